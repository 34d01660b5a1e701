// Times and sizes a sequence of (kind, layer) steps with the chain's true
// sizes: start times back to back, and the GPU memory each operation needs
// (Table 1 of seed 002; docs/memory-saving.md, "Operations").
#pragma once

#include <utility>
#include <vector>

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/operations.hpp"

namespace pipesim::memory_saving {

using Step = std::pair<OpKind, int>;  // kind, layer (1..L)

// Compute operations only (F_all, F_ck, F_none, B). Throws std::logic_error
// naming the step when an operation's input is missing (a bug of the caller).
std::vector<Operation> replay_sequence(const Chain& chain, const std::vector<Step>& steps);

double peak_memory(const std::vector<Operation>& ops);
double end_time(const std::vector<Operation>& ops);

}  // namespace pipesim::memory_saving
