// Replaying a sequence of (kind, layer) steps with the chain's true sizes
// (Table 1 of seed 002; docs/memory-saving.md, "Operations"). GpuContents
// holds what each compute step needs on the GPU and what it leaves there:
// both replays use it, this one back to back with compute steps only,
// replay_with_transfers (transfer_replay.hpp) with the link to CPU memory.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/operations.hpp"

namespace pipesim::memory_saving {

using Step = std::pair<OpKind, int>;  // kind, layer (1..L)

// What a compute step does to GPU memory.
struct StepMemory {
  double at_start = 0;  // allocated as it starts: its output (or tape) or input gradient, its overhead
  double at_end = 0;    // released as it ends (<= 0): its overhead, a consumed gradient and tape, a^i in a new tape
  int frees_input = 0;  // i - 1 when it also frees a^{i-1} as it ends (F_none, B), else 0
};

// Which a^i and tapes ā^i are on the GPU, and which gradient, as steps run.
// Errors are std::logic_error "step N (KIND I): WHY": a sequence that
// cannot run is a bug of its caller.
class GpuContents {
 public:
  explicit GpuContents(const Chain& chain);

  // Step n's layer, once it exists.
  const ChainLayer& layer(std::size_t n, Step step) const;
  // Applies compute step n (F_all, F_ck, F_none, B) when its inputs are there.
  StepMemory compute(std::size_t n, Step step);
  [[noreturn]] void fail(std::size_t n, Step step, const std::string& why) const;

  bool plain(int i) const { return plain_[i]; }  // a^i alone
  bool tape(int i) const { return tape_[i]; }    // ā^i, which contains a^i
  void put(int i, bool as_tape) { (as_tape ? tape_ : plain_)[i] = true; }
  void drop(int i) { plain_[i] = tape_[i] = false; }

 private:
  const Chain& chain_;
  std::vector<bool> plain_, tape_;
  int gradient_;  // δ^gradient is on the GPU; δ^L, the loss gradient, from the start
};

bool is_compute(OpKind kind);

// Compute operations only (F_all, F_ck, F_none, B), each starting when the
// previous one ends; Operation::memory is the GPU memory in use as it starts.
std::vector<Operation> replay_sequence(const Chain& chain, const std::vector<Step>& steps);

double peak_memory(const std::vector<Operation>& ops);
double end_time(const std::vector<Operation>& ops);

}  // namespace pipesim::memory_saving
