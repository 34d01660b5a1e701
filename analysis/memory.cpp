#include "analysis/memory.hpp"

#include "sim/memory_events.hpp"

#include <algorithm>
#include <cstdint>
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

// Applies samples and reports each instant's changed devices once the
// instant is complete (the next sample is later, or the trace ends).
class InstantGrouper {
 public:
  InstantGrouper(int device_count, const InstantVisitor& visit)
      : device_count_(device_count),
        visit_(visit),
        level_(device_count, MemoryBreakdown{}),
        touched_(device_count, 0) {}

  void add(const MemorySample& s) {
    if (!touched_list_.empty() && s.time != time_) flush();
    check_device(s.device, device_count_);
    time_ = s.time;
    level_[s.device][static_cast<int>(s.category)] = s.bytes;
    if (!touched_[s.device]) {
      touched_[s.device] = 1;
      touched_list_.push_back(s.device);
    }
  }

  void flush() {
    std::sort(touched_list_.begin(), touched_list_.end());
    for (int d : touched_list_) {
      visit_(time_, d, level_[d]);
      touched_[d] = 0;
    }
    touched_list_.clear();
  }

 private:
  int device_count_;
  const InstantVisitor& visit_;
  std::vector<MemoryBreakdown> level_;
  std::vector<char> touched_;
  std::vector<int> touched_list_;
  double time_ = 0;
};

}  // namespace

void for_each_memory_instant(const std::vector<MemorySample>& trace, int device_count, const InstantVisitor& visit) {
  InstantGrouper instants(device_count, visit);
  for (const MemorySample& s : trace) instants.add(s);
  instants.flush();
}

void for_each_memory_instant(const TaskGraph& graph, const Timeline& timeline, const InstantVisitor& visit) {
  InstantGrouper instants(graph.device_count(), visit);
  for_each_memory_sample(graph, timeline, [&](const MemorySample& s) { instants.add(s); });
  instants.flush();
}

void for_each_memory_sample(const TaskGraph& graph, const Timeline& timeline,
                            const std::function<void(const MemorySample&)>& visit) {
  const int devices = graph.device_count();

  std::vector<MemoryBreakdown> level(devices, MemoryBreakdown{});
  for (const StaticMemory& s : graph.static_memory()) {
    check_device(s.device, devices);
    level[s.device][static_cast<int>(s.category)] += s.bytes;
  }
  for (int d = 0; d < devices; ++d)
    for (int c = 0; c < kCats; ++c)
      if (level[d][c] != 0) visit({0.0, d, static_cast<MemoryCategory>(c), level[d][c]});

  for (std::uint32_t s = 0; s < graph.shape_count(); ++s)
    for (const MemoryEffect& e : graph.effects_of(graph.shape(s))) check_device(e.device, devices);
  for_each_memory_event(graph, timeline.start, timeline.finish, [&](double time, TaskId, const MemoryEffect& e) {
    double& l = level[e.device][static_cast<int>(e.category)];
    l += e.bytes;
    visit({time, e.device, e.category, l});
  });
}

std::vector<MemorySample> memory_trace(const TaskGraph& graph, const Timeline& timeline) {
  std::vector<MemorySample> trace;
  for_each_memory_sample(graph, timeline, [&](const MemorySample& s) { trace.push_back(s); });
  return trace;
}

namespace {

void raise_peak(DevicePeak& p, double time, const MemoryBreakdown& level) {
  const double sum = total(level);
  if (sum > p.total) {
    p.total = sum;
    p.time = time;
    p.breakdown = level;
  }
  for (int c = 0; c < kCats; ++c) p.category_peaks[c] = std::max(p.category_peaks[c], level[c]);
}

// Watches each device's levels instant by instant and records the first
// instant it exceeds its capacity, with the category that grew most at that
// instant (what pushed it over).
class CapacityCheck {
 public:
  // static_memory: the levels before any task runs (what grew at the first
  // instant is measured from them).
  CapacityCheck(const Platform& platform, const std::vector<StaticMemory>& static_memory = {})
      : platform_(platform), found_(platform.size(), 0), previous_(platform.size(), MemoryBreakdown{}) {
    for (const StaticMemory& s : static_memory)
      if (s.device < platform.size()) previous_[s.device][static_cast<int>(s.category)] += s.bytes;
  }

  void visit(double time, int d, const MemoryBreakdown& level) {
    if (d >= platform_.size()) return;
    const MemoryBreakdown before = previous_[d];
    previous_[d] = level;
    const double capacity = platform_.devices[d].memory;
    if (found_[d] || capacity <= 0) return;
    const double used = total(level);
    if (used <= capacity) return;
    found_[d] = 1;
    // The category that grew most; if none grew (static memory alone is too much), the largest.
    int grew = 0, largest = 0;
    for (int c = 1; c < kCats; ++c) {
      if (level[c] - before[c] > level[grew] - before[grew]) grew = c;
      if (level[c] > level[largest]) largest = c;
    }
    if (!(level[grew] - before[grew] > 0)) grew = largest;
    out_.push_back({d, time, used, capacity, level, static_cast<MemoryCategory>(grew)});
  }

  // Found in time order; reported by device.
  std::vector<MemoryViolation> violations() {
    std::stable_sort(out_.begin(), out_.end(),
                     [](const MemoryViolation& a, const MemoryViolation& b) { return a.device < b.device; });
    return out_;
  }

 private:
  const Platform& platform_;
  std::vector<char> found_;
  std::vector<MemoryBreakdown> previous_;
  std::vector<MemoryViolation> out_;
};

}  // namespace

std::vector<DevicePeak> peak_memory(const std::vector<MemorySample>& trace, int device_count) {
  std::vector<DevicePeak> peaks(device_count);
  for_each_memory_instant(trace, device_count,
                          [&](double time, int d, const MemoryBreakdown& level) { raise_peak(peaks[d], time, level); });
  return peaks;
}

std::vector<DevicePeak> peak_memory(const TaskGraph& graph, const Timeline& timeline) {
  return memory_outcome(graph, timeline, Platform{}).peaks;
}

std::vector<MemoryViolation> memory_violations(const std::vector<MemorySample>& trace, const Platform& platform) {
  CapacityCheck check(platform);
  for_each_memory_instant(trace, platform.size(),
                          [&](double time, int d, const MemoryBreakdown& level) { check.visit(time, d, level); });
  return check.violations();
}

std::vector<MemoryViolation> memory_violations(const TaskGraph& graph, const Timeline& timeline,
                                               const Platform& platform) {
  return memory_outcome(graph, timeline, platform).violations;
}

MemoryOutcome memory_outcome(const TaskGraph& graph, const Timeline& timeline, const Platform& platform) {
  MemoryOutcome m;
  m.peaks.resize(graph.device_count());
  CapacityCheck check(platform, graph.static_memory());
  for_each_memory_instant(graph, timeline, [&](double time, int d, const MemoryBreakdown& level) {
    raise_peak(m.peaks[d], time, level);
    check.visit(time, d, level);
  });
  m.violations = check.violations();
  return m;
}

}  // namespace pipesim
