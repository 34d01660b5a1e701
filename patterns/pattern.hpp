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
#include <tuple>
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

// Which transfers exclude each other (docs/pattern-format.md, "links").
enum class LinkModel {
  Platform,  // as SimGrid runs the platform: a transfer holds every Shared link
             // of its route (a SPLITDUPLEX direction is one), FatPipe none
  Pair,      // seed 000 eq. 9: both directions of a device pair are one resource
};
std::string_view to_string(LinkModel model);

// Weight versions a device holds (the gradient buffer comes on top), given the
// most micro-batches of one of its layers in flight at once.
inline int weight_versions(WeightPolicy policy, int in_flight) {
  switch (policy) {
    case WeightPolicy::Flush:
      return 1;
    case WeightPolicy::TwoBW:
      return 2;
    case WeightPolicy::Stashing:
      return in_flight > 1 ? in_flight : 1;  // the newest forward uses the current one
  }
  return 1;
}

// How long a communication buffer lives (docs/memory-model.md).
enum class BufferPolicy {
  Lifetime,  // the sender's copy from the start of its producer to the end of the transfer, the
             // receiver's from the start of the transfer to the end of its consumer (as flush schedules hold them)
  Seed000,   // seed 000 §6.2.4: a send and a receive buffer per cross-device edge and copy, for the whole run
};
std::string_view to_string(BufferPolicy policy);
// "lifetime" or "seed000"; false for anything else.
bool parse_buffer_policy(const std::string& text, BufferPolicy& policy);

// What a pattern may hold (docs/pattern-format.md): shifts within
// +-kMaxShift, so that a difference of two shifts, or a shift plus a lag
// (minimal_shift_step, at most kMaxShift), stays within int; at most
// kMaxCopies copies (a 64 MiB file cannot list more); a period of at most
// kMaxPeriod seconds (a period spans many tasks of at most kMaxCost s).
constexpr int kMaxShift = 1000000000;
constexpr int kMaxCopies = 1000000;
constexpr double kMaxPeriod = 1e200;

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
  int layers = 0;     // L
  int copies = 1;     // k
  double period = 0;  // T: time for `copies` micro-batches
  WeightPolicy weights = WeightPolicy::TwoBW;
  LinkModel links = LinkModel::Platform;
  // How its unrolled run and its analytic memory hold buffers. Seed 000 here
  // (the paper and the ILP); the workload and the command line default to lifetime.
  BufferPolicy buffers = BufferPolicy::Seed000;
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

  // Helpers in O(ops) for unrolling and analysis (header-only, so that
  // analysis needs no schedules library).
  // successor(i) for every op (-1 for the last backward, or if absent).
  std::vector<int> successors() const {
    const int n = 2 * layers * copies;
    std::vector<int> at(n > 0 ? n : 0, -1), next(ops.size(), -1);
    auto slot = [&](const PatternOp& op) { return (task_number(op) - 1) * copies + op.copy; };
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (int s = slot(ops[i]); s >= 0 && s < n && ops[i].copy >= 0 && ops[i].copy < copies)
        at[s] = static_cast<int>(i);
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (int s = slot(ops[i]) + copies; s >= copies && s < n && ops[i].copy >= 0 && ops[i].copy < copies)
        next[i] = at[s];
    return next;
  }
  // For every op, the index into transfers of its transfer, -1 if none.
  std::vector<int> transfer_of() const {
    std::vector<int> of(ops.size(), -1);
    for (std::size_t t = 0; t < transfers.size(); ++t)
      if (transfers[t].from >= 0 && transfers[t].from < static_cast<int>(ops.size()))
        of[transfers[t].from] = static_cast<int>(t);
    return of;
  }
  // Period order of two ops (of one device): start offset, then task number,
  // then copy. Unrolling and analysis must agree on it.
  bool runs_before(int a, int b) const {
    const PatternOp& x = ops[a];
    const PatternOp& y = ops[b];
    return std::make_tuple(x.start, task_number(x), x.copy) < std::make_tuple(y.start, task_number(y), y.copy);
  }
  // The same for transfers (of one link): start, then the producer's task number, then copy.
  bool transfer_before(int a, int b) const {
    const PatternOp& x = ops[transfers[a].from];
    const PatternOp& y = ops[transfers[b].from];
    return std::make_tuple(transfers[a].start, task_number(x), x.copy) <
           std::make_tuple(transfers[b].start, task_number(y), y.copy);
  }
};

}  // namespace pipesim
