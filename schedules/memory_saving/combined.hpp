// Policy both: the faster of the two offloading programs, seed 002's
// (offloading.hpp: checkpoints between top-level segments, with
// rematerialization) and offloading alone (offload_only.hpp: tapes, no
// recomputation). Neither class contains the other.
#pragma once

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/rematerialization.hpp"

namespace pipesim::memory_saving {

// The faster feasible solution (ties: solve_offloading's); when neither is
// feasible, an infeasible one carrying the smaller of their least limits.
Solution solve_combined(const Chain& chain, double limit, int slots, double bandwidth);

// The smaller of the two programs' least limits.
double min_feasible_limit_combined(const Chain& chain, double bandwidth);

}  // namespace pipesim::memory_saving
