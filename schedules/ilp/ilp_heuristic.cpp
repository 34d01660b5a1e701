#include "schedules/ilp/ilp_heuristic.hpp"

#include <algorithm>

#include "analysis/exact_period.hpp"
#include "analysis/pattern_analysis.hpp"
#include "schedules/pattern_generators.hpp"
#include "schedules/pattern_timing.hpp"

namespace pipesim::ilp {
namespace {

struct Evaluated {
  Pattern pattern;
  double period = 0;
  double worst_peak = 0;
  bool fits = true;
};

Evaluated evaluate(const Allocation& a, const Workload& w, const Platform& platform, const IlpOptions& options) {
  Evaluated e{kfkb_pattern(options.copies, a, w, platform, options.weights)};
  const PatternTiming t = pattern_timing(e.pattern, w, platform);
  e.period = exact_period(pattern_event_graph(e.pattern, t)).period;
  const PatternMemory m = pattern_memory(e.pattern, t, w, platform.size());
  double smallest = std::numeric_limits<double>::infinity();
  for (const Device& dev : platform.devices)
    if (dev.memory > 0) smallest = std::min(smallest, dev.memory);
  for (int d = 0; d < platform.size(); ++d) {
    e.worst_peak = std::max(e.worst_peak, m.devices[d].peak);
    const double own = platform.devices[d].memory > 0 ? platform.devices[d].memory : smallest;
    if (m.devices[d].peak > (options.allocation ? own : smallest)) e.fits = false;
  }
  return e;
}

}  // namespace

std::vector<Allocation> heuristic_allocations(const Workload& w, const Platform& platform, const IlpOptions& options,
                                              int cap) {
  if (options.allocation) return {*options.allocation};
  std::vector<Allocation> list;
  AllocationVisitor visitor;
  visitor.prune = [&](const Allocation&) { return static_cast<int>(list.size()) >= cap; };
  visitor.visit = [&](const Allocation& a) {
    if (static_cast<int>(list.size()) < cap) list.push_back(a);
  };
  const int L = static_cast<int>(w.layers.size());
  for_each_allocation(L, platform.size(), L > 8, {}, visitor);
  return list;
}

HeuristicResult best_heuristic_pattern(const Workload& w, const Platform& platform, const IlpOptions& options,
                                       int budget) {
  std::vector<std::pair<double, Allocation>> ranked;
  for (const Allocation& a : heuristic_allocations(w, platform, options))
    ranked.push_back({pattern_period_bound(a, w, platform, options.copies), a});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  HeuristicResult result;
  for (const auto& [bound, a] : ranked) {
    if (result.best && result.best_period <= bound * (1 + 1e-12)) break;  // nothing later can beat it
    if (result.evaluated >= budget) break;
    ++result.evaluated;
    Evaluated e = evaluate(a, w, platform, options);
    result.memory_needed = std::min(result.memory_needed, e.worst_peak);
    if (e.fits && (!result.best || e.period < result.best_period * (1 - 1e-12))) {
      result.best = std::move(e.pattern);
      result.best_period = e.period;
    }
  }
  return result;
}

HeuristicResult heuristic_memory_needed(const Workload& w, const Platform& platform, const IlpOptions& options,
                                        int budget) {
  HeuristicResult result;
  for (const Allocation& a : heuristic_allocations(w, platform, options, budget)) {
    ++result.evaluated;
    result.memory_needed = std::min(result.memory_needed, evaluate(a, w, platform, options).worst_peak);
  }
  return result;
}

}  // namespace pipesim::ilp
