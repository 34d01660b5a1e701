// Executes a memory-saving program's operation sequence: turns its steps into
// TaskGraph tasks on one GPU and its host memory, with the same timing and
// memory rules as replay_with_transfers (docs/memory-saving.md, "Execution").
// Knows nothing of SimGrid.
#pragma once

#include <string>
#include <vector>

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/operations.hpp"
#include "schedules/memory_saving/sequence_replay.hpp"
#include "sim/task_graph.hpp"

namespace pipesim::memory_saving {

// Where a chain runs and how its abstract numbers become task amounts: chain
// times are seconds on the GPU (flops = seconds x gpu_speed), chain sizes are
// bytes, and the program's bandwidth is the GPU-host path's.
struct ChainPlacement {
  int gpu = 0;
  int host_memory = -1;  // the device offloads go to; required by Offload / Prefetch
  double gpu_speed = 1;  // flop/s
  // Copied into every task.
  int stage = -1;
  int first_layer = 0;  // the task layer of chain layer 1
  int microbatch = -1;
  int iteration = 0;
  double priority = 0;
};

// Appends steps to a graph, keeping what is on the GPU between calls (a
// pipeline emits a micro-batch's forward phase, then later its backward).
// Rules (those of replay_with_transfers):
// - compute steps are GPU tasks in the device order: Forward the first time a
//   layer runs forward, Recompute afterwards, Backward; they also wait for the
//   prefetch of an input;
// - Offload / Prefetch are transfers GPU -> host memory / host memory -> GPU
//   of a^i, or of the tape ā^i when F_all^i's tape is on the GPU,
//   one after the other (each waits for the previous transfer and for the last
//   GPU task listed before it);
// - Free i is a zero-byte Offload on the GPU, in the device order, after the
//   offload of a^i: the GPU releases a^i there;
// - memory (category Activations): an operation allocates its output and
//   overhead at its start and frees its inputs and overhead at its finish
//   (seed 002, Table 1); a prefetch allocates a^i on the GPU at its start; the
//   host holds a copy from the start of its offload to the end of its prefetch.
// Throws std::logic_error naming the step when the steps cannot run.
class SequenceEmitter {
 public:
  SequenceEmitter(TaskGraph& graph, const Chain& chain, const ChainPlacement& where);

  // The first GPU task and the first transfer of this call also wait for
  // `after`. Returns one task per step.
  std::vector<TaskId> emit(const std::vector<Step>& steps, const std::vector<TaskId>& after = {});

  // Frees, at the finish of `task`, the host copies no prefetch consumed.
  void release_host_copies(TaskId task);

  TaskId last_gpu_task() const { return last_gpu_; }

 private:
  // One step each, after emit's checks; they throw (fail) when it cannot run.
  TaskId add_forward(OpKind kind, int i);
  TaskId add_backward(int i);
  TaskId add_offload(int i);
  TaskId add_prefetch(int i);
  TaskId add_free(int i);
  [[noreturn]] void fail(const std::string& why) const;  // names the step
  bool input_there(int i) const;                         // a^{i-1} on the GPU, plain or in a tape
  void free_input(int i, TaskId task);

  TaskId add(Task task, std::vector<TaskId> deps, bool gpu_order);
  Task make(TaskKind kind, int layer) const;

  TaskGraph& graph_;
  const Chain& chain_;
  ChainPlacement where_;
  double host_size(int i) const;  // bytes of the host copy of layer i

  std::vector<bool> plain_, tape_, forwarded_, on_host_, host_tape_;  // host_tape_: the copy is ā^i
  std::vector<TaskId> prefetch_, offload_;                            // latest per a^i, kNoTask if none
  TaskId last_gpu_, last_link_;
  std::vector<TaskId> after_;
  int gradient_;
  std::size_t step_index_ = 0;  // the step being added, for fail's message
  Step step_{};
};

std::vector<Step> steps_of(const std::vector<Operation>& ops);

}  // namespace pipesim::memory_saving
