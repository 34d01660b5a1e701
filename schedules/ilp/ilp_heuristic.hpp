// The heuristic side of the ILP: kFkB patterns (kfkb_pattern) over a set of
// allocations, for the warm start and, when nothing fits, for the memory
// that would have sufficed.
#pragma once

#include <limits>
#include <optional>

#include "schedules/ilp/ilp.hpp"

namespace pipesim::ilp {

struct HeuristicResult {
  std::optional<Pattern> best;  // fits every device's memory; smallest exact period
  double best_period = 0;       // its exact period (k micro-batches)
  // Smallest, over the patterns tried, of their largest device peak: with
  // that much memory per device one of them fits.
  double memory_needed = std::numeric_limits<double>::infinity();
  int evaluated = 0;
};

// Fixed allocation: that one. Otherwise every canonical allocation when the
// chain is short (L <= 8), else the contiguous ones (PipeDream's), at most
// `cap` of them, plus the best contiguous one that fits (search_best_pattern).
// In free mode "fits" means within the smallest device memory (the ILP's).
HeuristicResult heuristic_patterns(const Workload& workload, const Platform& platform, const IlpOptions& options,
                                   int cap = 4000);

}  // namespace pipesim::ilp
