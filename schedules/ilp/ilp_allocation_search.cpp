#include "schedules/ilp/ilp_allocation_search.hpp"

#include <set>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "sim/exact_period.hpp"

namespace pipesim::ilp {
namespace {

using Clock = std::chrono::steady_clock;

double exact(const Pattern& p, const Workload& w, const Platform& platform) {
  return exact_period(pattern_event_graph(p, pattern_timing(p, w, platform))).period;
}

}  // namespace

Allocation pattern_allocation(const Pattern& pattern, int layers) {
  Allocation allocation(layers, 0);
  for (const PatternOp& op : pattern.ops) allocation[op.layer] = op.device;
  return allocation;
}

std::vector<Allocation> boundary_neighbours(const Allocation& allocation, int reach) {
  const int L = static_cast<int>(allocation.size());
  std::vector<Allocation> neighbours;
  std::set<Allocation> seen{allocation};
  auto add = [&](Allocation n) {
    if (seen.insert(n).second) neighbours.push_back(std::move(n));
  };
  for (int l = 0; l + 1 < L; ++l) {
    if (allocation[l] == allocation[l + 1]) continue;
    // Layers l, l-1, ... (on l's device) to l+1's device; then l+1, l+2, ... to l's.
    Allocation n = allocation;
    for (int j = l; j > l - reach && j >= 0 && allocation[j] == allocation[l]; --j) add((n[j] = allocation[l + 1], n));
    n = allocation;
    for (int j = l + 1; j < l + 1 + reach && j < L && allocation[j] == allocation[l + 1]; ++j)
      add((n[j] = allocation[l], n));
  }
  return neighbours;
}

AllocationSearchResult search_allocations(const Workload& workload, const Platform& platform, const IlpOptions& options,
                                          const std::vector<Pattern>& starts, Clock::time_point deadline,
                                          double per_solve, int reach) {
  const int L = static_cast<int>(workload.layers.size());
  AllocationSearchResult result;
  auto consider = [&](const Pattern& p, double period) {
    if (result.best && period / p.copies >= result.period / result.best->copies * (1 - 1e-9)) return false;
    result.best = p;
    result.period = period;
    return true;
  };
  std::set<Allocation> solved;
  // The best pattern of ALLOCATION by its own model, kept if faster; false
  // when the time is spent.
  bool timed_out = false;
  auto solve = [&](const Allocation& allocation) {
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) return timed_out = true, false;
    solved.insert(allocation);
    IlpOptions fixed = options;
    fixed.allocation = allocation;
    fixed.time_limit = std::min(left, per_solve);  // 0: the allocation's heuristic pattern
    fixed.warm_start.reset();
    fixed.write_model.clear();
    fixed.log = nullptr;
    fixed.progress = nullptr;
    ++result.solves;
    const IlpResult r = solve_optimal_pattern(workload, platform, fixed);
    return r.pattern && consider(*r.pattern, r.period);
  };

  Allocation current;
  for (const Pattern& start : starts) {
    const Allocation allocation = pattern_allocation(start, L);
    if (consider(start, exact(start, workload, platform))) current = allocation;
    if (!solved.count(allocation) && solve(allocation)) current = allocation;
  }
  while (!current.empty() && !timed_out) {
    std::optional<Allocation> next;
    for (const Allocation& n : boundary_neighbours(current, reach)) {
      if (solved.count(n)) continue;
      if (solve(n)) next = n;
      if (timed_out) break;
    }
    if (!next) {
      result.local_optimum = !timed_out;
      break;
    }
    current = *next;
    ++result.moves;
  }
  return result;
}

}  // namespace pipesim::ilp
