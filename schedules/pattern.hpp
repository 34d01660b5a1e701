// A periodic pattern (seed 000, Definition 1), extended to k copies of each
// task per period (kFkB; k = 1 is the paper's 1F1B pattern).
//
// The chain has L layers (0-based here). The paper's task T_j, j = 1..2L, is
// the forward of layer j-1 for j <= L and the backward of layer 2L-j for
// j > L; its output (activation a_{j}, or for a backward the gradient of the
// layer's input) goes to T_{j+1}. A pattern gives, for every task and copy, a
// device, a start offset in [0, period) and a shift; and for every pair of
// consecutive tasks on different devices a transfer with its own offset and
// shift. In period i (i any integer), copy c of a task processes micro-batch
//     k * (i + shift) + c.
// Offsets define the order of tasks on each device and of transfers on each
// link; durations come from the workload and the platform.
#pragma once

#include <string>
#include <vector>

#include "sim/task_graph.hpp"

namespace pipesim {

// How many copies of the weights a device holds (seed 000 §6.2.3).
enum class WeightPolicy {
  Flush,     // one version + one gradient buffer: 2 W (GPipe, 1F1B with flush)
  TwoBW,     // PipeDream-2BW: two versions + gradients: 3 W (the paper's eq. 33)
  Stashing,  // PipeDream: one version per micro-batch in flight + gradients
};
std::string_view to_string(WeightPolicy policy);

struct PatternOp {
  TaskKind kind = TaskKind::Forward;  // Forward or Backward
  int layer = 0;                      // 0-based
  int copy = 0;                       // 0 .. copies-1
  int device = 0;                     // platform device index
  double start = 0;                   // offset within the period
  int shift = 0;                      // period i runs micro-batch copies*(i+shift)+copy
};

// The transfer of op `from`'s output to the device of its successor task.
struct PatternTransfer {
  int from = 0;  // index into Pattern::ops of the producer
  double start = 0;
  int shift = 0;
};

struct Pattern {
  int layers = 0;       // L
  int copies = 1;       // k
  double period = 0;    // T: time for `copies` micro-batches
  WeightPolicy weights = WeightPolicy::TwoBW;
  std::vector<PatternOp> ops;              // 2L * k, any order
  std::vector<PatternTransfer> transfers;  // one per cross-device consecutive pair

  // Seed 000's task number j in 1..2L of an op.
  int task_number(const PatternOp& op) const {
    return op.kind == TaskKind::Forward ? op.layer + 1 : 2 * layers - op.layer;
  }
  // Index into ops of task j (1..2L), copy c; -1 if absent.
  int find(int task_number, int copy) const;
  // The op that consumes op `index`'s output (task j+1, same copy); -1 for the last backward.
  int successor(int index) const { return find(task_number(ops[index]) + 1, ops[index].copy); }
};

}  // namespace pipesim
