// Lemma 1 of seed 002: the idle time that memory forces on a fixed sequence
// of operations while the link offloads (memory left to the operations
// grows at β from m_min) or prefetches (shrinks at β down to m_min at the
// end). The transfer is assumed to last the whole sequence. The tests'
// oracle: the program's memory moves in steps, not linearly
// (docs/memory-saving.md), and does not use it.
#pragma once

#include <vector>

namespace pipesim::memory_saving {

struct TimedNeed {
  double duration = 0;  // of the operation
  double memory = 0;    // M_o: memory it needs, beyond what the transfer holds
};

// ε = max(0, max_o (M_o - β d_o) - m_min) / β, with d_o the time of the
// operations before o (offload) or after o (prefetch). Infinity when β = 0
// and some M_o > m_min; 0 when nothing needs more than m_min.
double offload_idle_time(const std::vector<TimedNeed>& ops, double m_min, double beta);
double prefetch_idle_time(const std::vector<TimedNeed>& ops, double m_min, double beta);

}  // namespace pipesim::memory_saving
