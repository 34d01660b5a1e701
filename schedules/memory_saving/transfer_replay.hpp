// Times and sizes a sequence of compute steps, offloads, prefetches and
// frees with the chain's true sizes, independently of the programs: the
// GPU (compute, frees) and the link to CPU memory are two resources
// (docs/memory-saving.md, "Replay with transfers").
#pragma once

#include <vector>

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/operations.hpp"
#include "schedules/memory_saving/sequence_replay.hpp"

namespace pipesim::memory_saving {

// The list is the issue order of one host thread:
// - compute steps (F_all, F_ck, F_none, B) and frees run in list order on the
//   GPU, each once the previous one has ended and its inputs are on the GPU
//   (a prefetched input: once its prefetch has ended);
// - Offload i copies a^i to CPU memory (the tape ā^i if F_all^i's tape is on
//   the GPU) and Prefetch i copies it back (as a tape then); they
//   run in list order on the link (size / bandwidth each), each once the
//   link is free and the GPU work listed before it has ended;
// - Free i drops a^i (or the tape ā^i) from the GPU; after an Offload of a^i it waits for the
//   offload's end (the GPU memory of an offloaded value is released then).
// Memory: an operation holds its output and overhead from its start, frees
// its inputs and overhead at its end; a prefetch holds a^i from its start.
// Operation::memory is the most in use while it runs (at its instant for
// frees). Throws std::logic_error naming the step when the sequence is not
// executable (an input missing, a transfer of nothing, bandwidth 0).
std::vector<Operation> replay_with_transfers(const Chain& chain, const std::vector<Step>& steps, double bandwidth);

}  // namespace pipesim::memory_saving
