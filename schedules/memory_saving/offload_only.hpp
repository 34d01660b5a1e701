// Offloading without rematerialization (docs/memory-saving.md, "The program
// with offloading alone"): every forward is F_all and runs once; tapes ā^i
// are offloaded to CPU memory while later forwards run and prefetched back
// before their backward, so that the GPU stays under the limit. The fastest
// such sequence of a precisely defined class (disjoint transfer windows).
#pragma once

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/rematerialization.hpp"

namespace pipesim::memory_saving {

// bandwidth: memory units per time unit (>= 0, finite). The operations are
// timed and sized by replay_with_transfers. Throws std::invalid_argument for
// an unusable chain, limit, slot count or bandwidth.
Solution solve_offload_only(const Chain& chain, double limit, int slots, double bandwidth);

// The smallest limit under which some sequence of the class runs (true
// sizes, no grid): every offloadable tape on the GPU only from its forward to
// the next one and from the backward after its consumer's to its own. With
// bandwidth 0, the peak of keeping everything (nothing of positive size moves).
double min_feasible_limit_offload_only(const Chain& chain, double bandwidth);

}  // namespace pipesim::memory_saving
