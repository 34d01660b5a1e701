// The heuristic side of the ILP: kFkB patterns (kfkb_pattern) over a set of
// allocations, and PipeDream's eager patterns (pipedream_pattern) of seed
// 000 §7's baseline configurations, for the warm start and, when nothing fits, for the
// memory that would have sufficed.
#pragma once

#include <limits>
#include <optional>

#include "schedules/ilp/ilp.hpp"

namespace pipesim::ilp {

struct HeuristicResult {
  std::optional<Pattern> best;  // options.copies copies, fits every device's memory; smallest exact period
  double best_period = 0;       // its exact period (k micro-batches)
  // The fastest per micro-batch of the fitting patterns with another number of
  // copies k' (PipeDream's eager steady states that repeat every k'
  // micro-batches): no MIP start for the model, whose k is fixed, but an
  // answer when it beats the model's (solve_optimal_pattern).
  std::optional<Pattern> other;
  double other_period = 0;  // its exact period (k' micro-batches)
  // Smallest, over the patterns tried, of their largest device peak: with
  // that much memory per device one of them fits (memory_needed only).
  double memory_needed = std::numeric_limits<double>::infinity();
  int evaluated = 0;  // patterns built and analysed
};

// The allocations tried: the fixed one; else every canonical allocation
// when the chain is short (L <= 8), else the contiguous ones (PipeDream's),
// at most `cap` of them.
std::vector<Allocation> heuristic_allocations(const Workload& workload, const Platform& platform,
                                              const IlpOptions& options, int cap = 20000);

// The best pattern that fits: allocations in increasing order of their load
// bound (pattern_period_bound, which kfkb_pattern reaches), so the search
// stops at the first fitting pattern no later bound can beat, or after
// `budget` patterns; then PipeDream's eager patterns: of the fixed
// allocation (if contiguous) with every NOAM, else of every configuration of
// PipeDream's baseline (pipedream_configurations). Those with k copies
// compete for `best`, the others for `other`, so the better of the two is
// never worse than a baseline run the pattern model expresses; with k = 1
// and no kFkB pattern that fits, also the eager patterns of the contiguous
// allocations tried (at most `budget`). In free mode "fits" means within
// the smallest device memory (the ILP's).
HeuristicResult best_heuristic_pattern(const Workload& workload, const Platform& platform, const IlpOptions& options,
                                       int budget = 5000);

// The smallest largest-device peak over the patterns of (at most `budget`)
// allocations (kFkB's) and of the eager candidates above.
HeuristicResult heuristic_memory_needed(const Workload& workload, const Platform& platform, const IlpOptions& options,
                                        int budget = 5000);

}  // namespace pipesim::ilp
