// Turns a stage plan and a per-stage operation order into a TaskGraph: data
// dependencies, transfers between devices, device orders and memory effects.
// Memory model (see docs/memory-model.md):
//  - static per device: weights and one gradient accumulation buffer of the
//    same size (flush schedules accumulate, then update once);
//  - Activations: F(s,m) allocates the stage's stash at start, B(s,m) frees it
//    at finish;
//  - CommBuffers: a tensor sent to another device is allocated on the sender
//    when its producer starts and freed when the transfer finishes; it is
//    allocated on the receiver when the transfer starts and freed when the
//    consumer finishes. Stages on one device exchange nothing: the tensor one
//    hands the next is held once, from the producer's start to the
//    consumer's finish.
// When several stages share a device, the tasks follow one merged order
// (merge_stage_sequences, stage_merge.hpp) and each device runs its part.
#pragma once

#include <vector>

#include "schedules/stages/stage_plan.hpp"
#include "sim/task_graph.hpp"

namespace pipesim {

// One step of a stage's sequence: TaskKind::Forward or TaskKind::Backward.
struct Op {
  TaskKind kind;
  int microbatch;
  bool operator==(const Op& o) const { return kind == o.kind && microbatch == o.microbatch; }
};
using StageSequence = std::vector<Op>;

// Replaces the one task of F(s,m) or B(s,m) by tasks of its own (seed 002's
// memory saving: a program's operation sequence). The builder still adds the
// transfers between stages and their communication buffers, hooked on the
// last task; the stash (Activations) is the emitter's to account.
class StageComputeEmitter {
 public:
  virtual ~StageComputeEmitter() = default;
  virtual bool replaces(int stage) const = 0;
  // base: the task the builder would add (kind Forward or Backward, device,
  // stage, layers, micro-batch, iteration, priority). The first tasks wait
  // for `input` (the received tensor or the producer; empty for none).
  // Returns the last task, which produces the output.
  virtual TaskId emit(TaskGraph& graph, const Task& base, const std::vector<TaskId>& input) = 0;
};

// sequences[s] is stage s's order for one iteration; it must hold F and B of
// every micro-batch 0..M-1 exactly once. Iteration i+1 repeats it after
// iteration i on each device (flush). Throws std::logic_error on malformed or
// deadlocking sequences.
TaskGraph build_pipeline(const StagePlan& plan, const std::vector<StageSequence>& sequences, int iterations,
                         int device_count, StageComputeEmitter* compute = nullptr);

}  // namespace pipesim
