#include "analysis/memory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace pipesim {
namespace {

constexpr int kCats = kMemoryCategoryCount;

void check_device(int device, int device_count) {
  if (device < 0 || device >= device_count)
    throw std::invalid_argument("memory: effect on unknown device " + std::to_string(device));
}

double total(const MemoryBreakdown& b) {
  double sum = 0;
  for (double v : b) sum += v;
  return sum;
}

}  // namespace

void for_each_memory_instant(const std::vector<MemorySample>& trace, int device_count,
                             const std::function<void(double, int, const MemoryBreakdown&)>& visit) {
  std::vector<MemoryBreakdown> level(device_count, MemoryBreakdown{});
  std::vector<char> touched(device_count, 0);
  std::vector<int> touched_list;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const MemorySample& s = trace[i];
    check_device(s.device, device_count);
    level[s.device][static_cast<int>(s.category)] = s.bytes;
    if (!touched[s.device]) {
      touched[s.device] = 1;
      touched_list.push_back(s.device);
    }
    if (i + 1 == trace.size() || trace[i + 1].time != s.time) {
      std::sort(touched_list.begin(), touched_list.end());
      for (int d : touched_list) {
        visit(s.time, d, level[d]);
        touched[d] = 0;
      }
      touched_list.clear();
    }
  }
}

std::vector<MemorySample> memory_trace(const TaskGraph& graph, const Timeline& timeline) {
  const int devices = graph.device_count();
  if (timeline.start.size() < graph.size() || timeline.finish.size() < graph.size())
    throw std::invalid_argument("memory: timeline has fewer tasks than the graph");
  std::vector<MemorySample> trace;

  std::vector<MemoryBreakdown> level(devices, MemoryBreakdown{});
  for (const StaticMemory& s : graph.static_memory()) {
    check_device(s.device, devices);
    level[s.device][static_cast<int>(s.category)] += s.bytes;
  }
  for (int d = 0; d < devices; ++d)
    for (int c = 0; c < kCats; ++c)
      if (level[d][c] != 0) trace.push_back({0.0, d, static_cast<MemoryCategory>(c), level[d][c]});

  // Sorted by (time, frees first, finish effects first, task, index). When
  // effects are listed in task order (as graphs build them), index order is
  // task order and the whole key packs in 64 bits beside the time: the sort
  // then touches no effect records (millions, out of cache).
  struct Event {
    double time;
    std::uint64_t key;  // low 32 bits: index into memory_effects()
  };
  const auto& effects = graph.memory_effects();
  if (effects.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("memory: more than 2^32 memory effects");
  std::vector<Event> events;
  events.reserve(effects.size());
  bool task_ordered = true;
  for (std::size_t i = 0; i < effects.size(); ++i) {
    const MemoryEffect& e = effects[i];
    check_device(e.device, devices);
    if (e.task >= graph.size()) throw std::invalid_argument("memory: effect of an unknown task");
    if (i > 0 && e.task < effects[i - 1].task) task_ordered = false;
    const double t = e.when == MemoryWhen::AtStart ? timeline.start[e.task] : timeline.finish[e.task];
    const std::uint64_t key = (std::uint64_t{e.bytes > 0} << 63) | (std::uint64_t{e.when != MemoryWhen::AtFinish} << 62) | i;
    if (std::isfinite(t)) events.push_back({t, key});
  }
  auto index = [](const Event& ev) { return static_cast<std::uint32_t>(ev.key); };
  if (task_ordered) {
    std::sort(events.begin(), events.end(),
              [](const Event& a, const Event& b) { return a.time != b.time ? a.time < b.time : a.key < b.key; });
  } else {
    // The index makes every key unique, so the order is fully determined.
    std::sort(events.begin(), events.end(), [&](const Event& a, const Event& b) {
      if (a.time != b.time) return a.time < b.time;
      const MemoryEffect& x = effects[index(a)];
      const MemoryEffect& y = effects[index(b)];
      const bool x_alloc = x.bytes > 0, y_alloc = y.bytes > 0;
      if (x_alloc != y_alloc) return !x_alloc;
      if (x.when != y.when) return x.when == MemoryWhen::AtFinish;
      if (x.task != y.task) return x.task < y.task;
      return index(a) < index(b);
    });
  }

  trace.reserve(trace.size() + events.size());
  for (const Event& ev : events) {
    const MemoryEffect& e = effects[index(ev)];
    double& l = level[e.device][static_cast<int>(e.category)];
    l += e.bytes;
    trace.push_back({ev.time, e.device, e.category, l});
  }
  return trace;
}

std::vector<DevicePeak> peak_memory(const std::vector<MemorySample>& trace, int device_count) {
  std::vector<DevicePeak> peaks(device_count);
  for_each_memory_instant(trace, device_count, [&](double time, int d, const MemoryBreakdown& level) {
    DevicePeak& p = peaks[d];
    const double sum = total(level);
    if (sum > p.total) {
      p.total = sum;
      p.time = time;
      p.breakdown = level;
    }
    for (int c = 0; c < kCats; ++c) p.category_peaks[c] = std::max(p.category_peaks[c], level[c]);
  });
  return peaks;
}

std::vector<DevicePeak> peak_memory(const TaskGraph& graph, const Timeline& timeline) {
  return peak_memory(memory_trace(graph, timeline), graph.device_count());
}

std::vector<MemoryViolation> memory_violations(const std::vector<MemorySample>& trace,
                                               const Platform& platform) {
  const int devices = platform.size();
  std::vector<char> found(devices, 0);
  std::vector<MemoryViolation> out;
  for_each_memory_instant(trace, devices, [&](double time, int d, const MemoryBreakdown& level) {
    const double capacity = platform.devices[d].memory;
    if (found[d] || capacity <= 0) return;
    const double used = total(level);
    if (used > capacity) {
      found[d] = 1;
      out.push_back({d, time, used, capacity, level});
    }
  });
  // Found in time order; reported by device.
  std::stable_sort(out.begin(), out.end(),
                   [](const MemoryViolation& a, const MemoryViolation& b) { return a.device < b.device; });
  return out;
}

std::vector<MemoryViolation> memory_violations(const TaskGraph& graph, const Timeline& timeline,
                                               const Platform& platform) {
  return memory_violations(memory_trace(graph, timeline), platform);
}

}  // namespace pipesim
