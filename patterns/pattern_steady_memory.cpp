#include "patterns/pattern_steady_memory.hpp"

#include "sim/memory_events.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace pipesim {

SteadyRange steady_range(const Pattern& p) {
  const int k = std::max(1, p.copies);
  return {std::max(2, (100 + k - 1) / k), std::max(2, (120 + k - 1) / k)};
}

int steady_microbatches(const Pattern& p, const SteadyRange& range) {
  int max_shift = 0;
  for (const PatternOp& o : p.ops) max_shift = std::max(max_shift, o.shift);
  for (const PatternTransfer& tr : p.transfers) max_shift = std::max(max_shift, tr.shift);
  const long long n = static_cast<long long>(p.copies) * (range.first + range.window + max_shift + 2LL);
  if (n > std::numeric_limits<int>::max()) throw std::invalid_argument("pattern memory: shifts too large to unroll");
  return static_cast<int>(n);
}

std::vector<double> earliest_starts(const TimedUnroll& u) {
  const TaskGraph& g = u.graph;
  const std::size_t n = g.size();
  std::vector<std::vector<TaskId>> after(n);  // device order: the next ordered task
  std::vector<int> waiting(n, 0);
  for (TaskId id = 0; id < n; ++id) waiting[id] = static_cast<int>(g.deps_end(id) - g.deps_begin(id));
  std::vector<std::vector<TaskId>> dependants(n);
  for (TaskId id = 0; id < n; ++id)
    for (const TaskId* d = g.deps_begin(id); d != g.deps_end(id); ++d) dependants[*d].push_back(id);
  for (int d = 0; d < g.device_count(); ++d) {
    const auto& order = g.device_order(d);
    for (std::size_t i = 1; i < order.size(); ++i) {
      dependants[order[i - 1]].push_back(order[i]);
      ++waiting[order[i]];
    }
  }
  std::vector<double> start(n, 0);
  std::vector<TaskId> ready;
  for (TaskId id = 0; id < n; ++id)
    if (waiting[id] == 0) ready.push_back(id);
  std::size_t done = 0;
  while (!ready.empty()) {
    const TaskId id = ready.back();
    ready.pop_back();
    ++done;
    const double finish = start[id] + u.duration[id];
    for (TaskId s : dependants[id]) {
      start[s] = std::max(start[s], finish);
      if (--waiting[s] == 0) ready.push_back(s);
    }
  }
  if (done != n) throw std::invalid_argument("pattern memory: the unrolled pattern deadlocks");
  return start;
}

std::pair<double, double> steady_window(const TimedUnroll& u, const std::vector<double>& start,
                                        const SteadyRange& range) {
  const long long first_period = range.first, window = range.window;
  constexpr double inf = std::numeric_limits<double>::infinity();
  double from = inf, to = inf;
  for (std::size_t id = 0; id < u.graph.size(); ++id) {
    if (u.period[id] >= first_period) from = std::min(from, start[id]);
    if (u.period[id] >= first_period + window) to = std::min(to, start[id]);
  }
  return {from, to};
}

void window_readings(const TaskGraph& g, const std::vector<double>& start, const std::vector<double>& finish,
                     double from, double to, const std::function<void(double, int, const MemoryBreakdown&)>& visit) {
  const int devices = g.device_count();
  std::vector<MemoryBreakdown> level(devices, MemoryBreakdown{});
  for (const StaticMemory& s : g.static_memory()) level[s.device][static_cast<int>(s.category)] += s.bytes;
  // Levels change in the order of the run's analysis (sim/memory_events);
  // each instant's changed devices are read once it is complete.
  std::vector<char> touched(devices, 0), carried(devices, 0);
  std::vector<int> list;
  double instant = 0;
  auto close_instant = [&] {
    std::sort(list.begin(), list.end());
    for (int d : list) {
      if (instant >= from) visit(instant, d, level[d]);
      touched[d] = 0;
    }
    list.clear();
  };
  for_each_memory_event(g, start, finish, [&](double time, TaskId, const MemoryEffect& e) {
    if (time >= to) return;
    if (!list.empty() && time != instant) close_instant();
    instant = time;
    if (time >= from)
      for (int d = 0; d < devices; ++d)
        if (!carried[d]) {  // the level before the window's first instant
          carried[d] = 1;
          visit(from, d, level[d]);
        }
    level[e.device][static_cast<int>(e.category)] += e.bytes;
    if (!touched[e.device]) touched[e.device] = 1, list.push_back(e.device);
  });
  close_instant();
}

}  // namespace pipesim
