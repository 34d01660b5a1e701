// Seed 002's dynamic program with rematerialization alone (bandwidth 0: the
// checkpointing problem of Beaumont et al.'s rotor): the fastest sequence of
// F_all / F_ck / F_none / B for a chain under a GPU memory limit.
#pragma once

#include <vector>

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/operations.hpp"

namespace pipesim::memory_saving {

struct Solution {
  bool feasible = false;
  double makespan = 0;         // optimal time on the grid (infinity when infeasible)
  std::vector<Operation> ops;  // the sequence, timed and sized with the true sizes
  double peak_memory = 0;      // max memory over ops (<= the limit)
  // The smallest limit under which some sequence of the model runs (true
  // sizes, no grid): set whether or not the limit given was enough.
  double min_feasible_limit = 0;
  double slot = 0;  // grid step: limit / slots
};

// limit: GPU memory for activations, gradients and overheads, a^0 included.
// Throws std::invalid_argument for an unusable chain, limit or slot count.
Solution solve_rematerialization(const Chain& chain, double limit, int slots);

// The smallest peak memory of any persistent sequence (true sizes).
double min_feasible_limit(const Chain& chain);

}  // namespace pipesim::memory_saving
