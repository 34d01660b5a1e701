// Memory discretized into N values (seed 002, Theorem 1). Conservative:
// every size is rounded UP to whole slots of limit / N and the limit is N
// slots, so a sequence that fits the grid fits the true limit.
#pragma once

#include <vector>

#include "schedules/memory_saving/chain.hpp"

namespace pipesim::memory_saving {

struct MemoryGrid {
  int slots = 0;    // N
  double slot = 0;  // limit / N
  // Sizes in slots, paper indexing: a[0..L], abar[1..L], delta[0..L],
  // of[1..L], ob[1..L] (index 0 of abar, of, ob unused).
  std::vector<int> a, abar, delta, of, ob;
};

// Sizes larger than the limit become slots + 1 (never fit).
MemoryGrid make_grid(const Chain& chain, double limit, int slots);

}  // namespace pipesim::memory_saving
