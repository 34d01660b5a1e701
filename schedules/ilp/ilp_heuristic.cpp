#include "schedules/ilp/ilp_heuristic.hpp"

#include <algorithm>

#include "analysis/exact_period.hpp"
#include "analysis/pattern_analysis.hpp"
#include "schedules/pattern_generators.hpp"
#include "schedules/pattern_search.hpp"
#include "schedules/pattern_timing.hpp"

namespace pipesim::ilp {

HeuristicResult heuristic_patterns(const Workload& w, const Platform& platform, const IlpOptions& options, int cap) {
  HeuristicResult result;
  const int L = static_cast<int>(w.layers.size()), k = options.copies;
  const bool fixed = options.allocation.has_value();
  auto limit = [&](int d) {
    if (!fixed) {
      double smallest = std::numeric_limits<double>::infinity();
      for (const Device& dev : platform.devices)
        if (dev.memory > 0) smallest = std::min(smallest, dev.memory);
      return smallest;
    }
    return platform.devices[d].memory > 0 ? platform.devices[d].memory : std::numeric_limits<double>::infinity();
  };
  auto consider = [&](const Allocation& a) {
    ++result.evaluated;
    Pattern p = kfkb_pattern(k, a, w, platform, options.weights);
    const PatternTiming t = pattern_timing(p, w, platform);
    const double period = exact_period(pattern_event_graph(p, t)).period;
    const PatternMemory m = pattern_memory(p, t, w, platform.size());
    double worst = 0;
    bool fits = true;
    for (int d = 0; d < platform.size(); ++d) {
      worst = std::max(worst, m.devices[d].peak);
      if (m.devices[d].peak > limit(d)) fits = false;
    }
    result.memory_needed = std::min(result.memory_needed, worst);
    if (fits && (!result.best || period < result.best_period * (1 - 1e-12))) {
      result.best = std::move(p);
      result.best_period = period;
    }
  };
  if (fixed) {
    consider(*options.allocation);
    return result;
  }
  const bool contiguous = L > 8;
  int seen = 0;
  AllocationVisitor visitor;
  visitor.prune = [&](const Allocation&) { return seen >= cap; };
  visitor.visit = [&](const Allocation& a) {
    if (seen++ < cap) consider(a);
  };
  for_each_allocation(L, platform.size(), contiguous, {}, visitor);
  if (seen >= cap) {  // the list was cut: the best contiguous pattern that fits, by branch and bound
    const auto make = [&](const Allocation& a) { return kfkb_pattern(k, a, w, platform, options.weights); };
    if (auto choice = search_best_pattern(true, make, w, platform, PatternSearch{true})) consider(choice->allocation);
  }
  return result;
}

}  // namespace pipesim::ilp
