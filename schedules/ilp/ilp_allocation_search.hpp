// The fixed-allocation improvement loop (docs/ilp.md, "Allocation search"):
// the free model of a ResNet is too large for CBC to improve its warm start,
// while the model of one allocation is small enough to solve to optimality
// in seconds. So: solve the fixed-allocation model of the best heuristic
// allocation, then of its neighbours (one layer at a boundary between two
// devices moved to the other side), moving to the best neighbour while one
// is faster per micro-batch, until none is or the time is spent. The same
// descent with each allocation's heuristic pattern instead of its model
// goes first: it is cheap enough for ResNet-101's large models.
#pragma once

#include <chrono>
#include <optional>

#include "schedules/ilp/ilp.hpp"

namespace pipesim::ilp {

struct AllocationSearchResult {
  std::optional<Pattern> best;  // the fastest pattern per micro-batch found, any copies; valid, fits
  double period = 0;            // its exact period (best->copies micro-batches)
  int solves = 0;               // fixed-allocation models solved
  int moves = 0;                // neighbours that were faster and became the current allocation
  bool local_optimum = false;   // every neighbour of the last allocation was solved and none was faster
};

// A pattern and its exact period (for its copies of each micro-batch).
struct TimedPattern {
  Pattern pattern;
  double period = 0;
};

// Starts from each of `starts` (valid patterns that fit; their allocations),
// with the options of the free-mode search (its memory, weights, copies and
// links); each fixed-allocation model gets at most `per_solve` seconds (0:
// no model, the allocation's best heuristic pattern, milliseconds) and the
// loop stops by `deadline`. The result is never slower per micro-batch than
// the best start. The neighbours are boundary_neighbours(allocation, reach).
AllocationSearchResult search_allocations(const Workload& workload, const Platform& platform, const IlpOptions& options,
                                          const std::vector<TimedPattern>& starts,
                                          std::chrono::steady_clock::time_point deadline, double per_solve,
                                          int reach = 1);

// The device of every layer in a pattern.
Allocation pattern_allocation(const Pattern& pattern, int layers);

// The allocations one boundary move away: for every pair of consecutive
// layers on different devices, up to `reach` layers of one side's run moved
// to the other side's device (1: either layer of the pair). Distinct, in
// order of the boundary, the earlier side's moves first, nearest first.
std::vector<Allocation> boundary_neighbours(const Allocation& allocation, int reach = 1);

}  // namespace pipesim::ilp
