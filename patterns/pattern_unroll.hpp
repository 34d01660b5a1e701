// A periodic pattern unrolled into a finite task graph the engine can run.
#pragma once

#include <vector>
#include "patterns/pattern.hpp"
#include "patterns/pattern_timing.hpp"

#include "sim/task_graph.hpp"

namespace pipesim {

// Every op and transfer instance whose micro-batch k*(i + shift) + copy lies
// in [0, microbatches), for every period i that has one: the warm-up and
// drain are the periods where some instances fall outside the range.
//  - Device order: instances by (period, start offset, task number, copy).
//  - Transfers of one link resource (timing.transfer_links: every Shared
//    link of the route under pattern.links = Platform, the unordered device
//    pair under Pair) depend on the previous one on that resource, in the
//    same order, so the engine never lets them share bandwidth. Empty
//    transfers (0 bytes) are instant in the engine and hold no link: they
//    are not serialized.
//  - Data: producer -> transfer -> consumer, or producer -> consumer on one device.
//  - Memory effects and static memory per the pattern's BufferPolicy:
//    docs/memory-model.md, "Periodic patterns".
//  - An op with timing.steps (a memory-saving program's) runs them as
//    consecutive tasks on its device, the first waiting for the op's
//    inputs, each with its own memory; the op keeps only its cross-device
//    buffers (docs/memory-saving.md, "Pattern schedules").
// Task::microbatch and ::iteration split the global micro-batch index by
// microbatches_per_iteration (0: everything is iteration 0); priority is the
// pattern time i * period + start. The pattern must pass check_pattern with
// its transfers; throws std::invalid_argument otherwise, or when the shifts
// make data go back in time (a circular dependency). Working memory beside
// the graph: per op and transfer of the pattern, not per task, for shifts
// that keep every producer ahead of its consumer (unroll_internal).
TaskGraph unroll_pattern(const Pattern& pattern, const PatternTiming& timing, int device_count, int microbatches,
                         int microbatches_per_iteration = 0);

// The same graph (one iteration) with, per task, what the analytic memory
// needs to replay it without an engine.
struct TimedUnroll {
  TaskGraph graph;
  std::vector<double> duration;   // seconds in the timing: op duration, transfer duration (0 if empty)
  std::vector<int> op;            // index into Pattern::ops; -1 for a transfer
  std::vector<long long> period;  // the pattern period i of the instance
};
TimedUnroll unroll_pattern_timed(const Pattern& pattern, const PatternTiming& timing, int device_count,
                                 int microbatches);

// Internal, for tests. The graph's tasks are the instances in Kahn's order
// with pattern time as priority. When every producer comes before its
// consumer in pattern time (valid shifts), that order is pattern time order
// itself, emitted period by period in O(ops + transfers + link resources)
// working memory (`pattern_order`); otherwise Kahn's algorithm runs over all
// instances (the reference, and the one that finds circular dependencies).
// Method::Kahn forces the reference; both give the same graph. `timed`: fill
// TimedUnroll's per-task vectors (else they stay empty).
namespace unroll_internal {
enum class Method { Automatic, Kahn };
struct Unrolled {
  TimedUnroll unroll;
  bool pattern_order = false;  // emitted in pattern time order, without Kahn
};
Unrolled unroll(const Pattern& pattern, const PatternTiming& timing, int device_count, int microbatches,
                int microbatches_per_iteration, bool timed, Method method);
}  // namespace unroll_internal

}  // namespace pipesim
