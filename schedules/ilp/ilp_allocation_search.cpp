#include "schedules/ilp/ilp_allocation_search.hpp"

#include <set>

namespace pipesim::ilp {

using Clock = std::chrono::steady_clock;

Allocation pattern_allocation(const Pattern& pattern, int layers) {
  Allocation allocation(layers, 0);
  for (const PatternOp& op : pattern.ops) allocation[op.layer] = op.device;
  return allocation;
}

std::vector<Allocation> boundary_neighbours(const Allocation& allocation, int reach) {
  const int L = static_cast<int>(allocation.size());
  std::vector<Allocation> neighbours;
  std::set<Allocation> seen{allocation};
  auto add = [&](const Allocation& n) {
    if (seen.insert(n).second) neighbours.push_back(n);
  };
  for (int l = 0; l + 1 < L; ++l) {
    if (allocation[l] == allocation[l + 1]) continue;
    // Layers l, l-1, ... (on l's device) to l+1's device; then l+1, l+2, ... to l's.
    Allocation left = allocation, right = allocation;
    for (int j = l; j > l - reach && j >= 0 && allocation[j] == allocation[l]; --j) {
      left[j] = allocation[l + 1];
      add(left);
    }
    for (int j = l + 1; j < l + 1 + reach && j < L && allocation[j] == allocation[l + 1]; ++j) {
      right[j] = allocation[l];
      add(right);
    }
  }
  return neighbours;
}

AllocationSearchResult search_allocations(const Workload& workload, const Platform& platform, const IlpOptions& options,
                                          const std::vector<TimedPattern>& starts, Clock::time_point deadline,
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
  for (const TimedPattern& start : starts) {
    const Allocation allocation = pattern_allocation(start.pattern, L);
    if (consider(start.pattern, start.period)) current = allocation;
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
