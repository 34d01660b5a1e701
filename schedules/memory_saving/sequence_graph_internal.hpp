// Exposed for tests only: one chain's sequence as tasks, which tests simulate alone.
// Product code includes sequence_graph.hpp.
#pragma once

#include "schedules/memory_saving/sequence_graph.hpp"

namespace pipesim::memory_saving {

// The whole sequence, appended to a graph: a^0 and δ^L are allocated when
// its first task starts and a^0, δ^0 freed when its last one ends (the
// program counts them from time 0). ops: a Solution's operations. Returns
// one task per operation.
std::vector<TaskId> append_chain_sequence(TaskGraph& graph, const Chain& chain, const std::vector<Operation>& ops,
                                          const ChainPlacement& where);

}  // namespace pipesim::memory_saving
