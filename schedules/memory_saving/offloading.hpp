// Seed 002's dynamic program with offloading: rematerialization plus
// offloading of the activations held between the top-level segments of the
// chain to CPU memory over a link of bandwidth β, overlapped with compute.
// The class of sequences it is optimal in, and the recurrences, are in
// docs/memory-saving.md ("The program with offloading"). β = 0 gives
// exactly solve_rematerialization.
#pragma once

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/rematerialization.hpp"

namespace pipesim::memory_saving {

// bandwidth: memory units per time unit (>= 0, finite). The operations are
// timed and sized by replay_with_transfers (compute and link). Throws
// std::invalid_argument for an unusable chain, limit, slot count or bandwidth.
Solution solve_offloading(const Chain& chain, double limit, int slots, double bandwidth);

// The smallest limit under which some sequence of the class runs (true
// sizes, no grid); with bandwidth 0 the rematerialization one.
double min_feasible_limit_offloading(const Chain& chain, double bandwidth);

}  // namespace pipesim::memory_saving
