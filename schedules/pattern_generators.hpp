// Periodic patterns (seed 000 Definition 1, k copies) built by heuristics on
// a given allocation, and PipeDream's eager 1F1B (seed 000 §4.1, §7).
#pragma once

#include <vector>

#include "schedules/registry.hpp"
#include "schedules/allocation.hpp"
#include "schedules/pattern.hpp"
#include "schedules/pipeline_builder.hpp"
#include "schedules/stage_plan.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// The smallest period any pattern with `copies` copies can have on this
// allocation: the largest total duration of one device's ops, or of one
// link's non-empty transfers (seed 000: a link is one resource for both
// directions), over `copies` micro-batches. Throws std::invalid_argument
// like pattern_timing (unknown device, no route, ...).
double pattern_period_bound(const Allocation& allocation, const Workload& workload, const Platform& platform,
                            int copies = 1);

// kFkB pattern (k copies of every task per period; k = 2 is seed 000 §4.3's
// 2F2B) with period T = pattern_period_bound(allocation, ..., k), the optimum
// with unlimited memory, always reached; then assign_minimal_shifts.
// Heuristic, modulo scheduling along the chain: copy 0's tasks are placed in
// chain order F_1 .. F_L, B_L .. B_1, each at the earliest offset at or after
// its input arrives (F_1: offset 0) where its device is free; a transfer
// likewise on its link (both directions share it) right after its producer.
// Following one micro-batch as early as possible keeps F_l .. B_l short,
// hence the stashed activations. Copy c >= 1 follows the same way from a
// release time chosen among those that let one of its tasks start, without
// waiting, where something already placed on its device ends (at most 64
// tried), keeping the one that stashes least (bytes stashed, sum over layers
// of stash count x a_{l-1}; then copies); on seed 000 §4.3's examples this
// gives the stash counts the paper reports for its 2F2B
// (tests/test_pattern_paper.cpp). Two more candidates, kept if they stash
// less: all copies placed task by task (copies of a task back to back), and k
// periods of the 1F1B pattern (so kFkB never stashes more than 1F1B). When a
// device's (or link's) free time is too fragmented for an op, the ops after
// it on that resource are pushed later (back to back if need be). The result
// passes find_overlap, and its exact period is T: every device and link fits
// in T, the busiest one is full.
Pattern kfkb_pattern(int k, const Allocation& allocation, const Workload& workload, const Platform& platform,
                     WeightPolicy weights = WeightPolicy::TwoBW);
// k = 1: seed 000's 1F1B pattern.
Pattern one_f_one_b_pattern(const Allocation& allocation, const Workload& workload, const Platform& platform,
                            WeightPolicy weights = WeightPolicy::TwoBW);

// ---- PipeDream (schedules/pipedream.cpp) ----

// The stage plan of a contiguous allocation: one stage per range of
// consecutive layers, on its device. Throws InputError (through
// make_stage_plan) or std::invalid_argument for a non-contiguous one.
StagePlan allocation_plan(const Allocation& allocation, const Workload& workload, const Platform& platform);

// PipeDream's eager 1F1B without flush (its runtime: stage s first runs
// min(M, max(0, noam - 1 - s)) forwards, then alternates one forward and
// one backward, oldest micro-batch first, then drains the backwards). With
// noam = S, stage 0 keeps S micro-batches in flight.
std::vector<StageSequence> pipedream_sequences(int stages, int microbatches, int noam);
// How many micro-batches stage s holds between a forward and its backward: min(M, max(1, noam - s)).
int pipedream_in_flight(int stage, int microbatches, int noam);

// The eager schedule for `microbatches` micro-batches in one stream (a
// single iteration, no flush): build_pipeline's tasks, orders and memory
// effects, plus weight stashing: stage s keeps pipedream_in_flight versions of
// its weights in all, the current one among them (WeightPolicy::Stashing).
TaskGraph pipedream_schedule(const StagePlan& plan, int microbatches, int noam, int device_count);

// The steady state of pipedream_schedule on a contiguous allocation as a
// k = 1 pattern with WeightPolicy::Stashing: the schedule is run without
// contention (every task as soon as its inputs and its device's previous
// task are done: what the engine does when no two transfers share a link
// at once) until every task's start advances by the same period in a
// window of micro-batches; offsets are the start times of the window's
// first micro-batch modulo that period, shifts come from the micro-batch
// indices (not minimal: PipeDream's own), each stage's layers back to back.
// Throws std::invalid_argument if no 1-periodic steady state shows within
// a bounded run, or if it puts two transfers on one link at once (seed
// 000's one-port link cannot express that).
Pattern pipedream_pattern(const Allocation& allocation, int noam, const Workload& workload, const Platform& platform);

// ---- Registry entries (schedules/pattern_schedules.cpp) ----
// Parameters: `allocation: "0,1,0"` (device index per layer; default: the
// workload's placement, as stages), `weights: flush | 2bw | stashing`
// (default 2bw), and for kfkb `k` (default 2), for pipedream `noam`
// (default: the number of stages). The patterns are unrolled for
// microbatches x iterations micro-batches without flush; PipeDream runs
// them as one stream (iteration 0). Bad parameters throw InputError.
GeneratedSchedule one_f_one_b_pattern_schedule(const Workload& workload, const Platform& platform);
GeneratedSchedule kfkb_schedule(const Workload& workload, const Platform& platform);
GeneratedSchedule pipedream_workload_schedule(const Workload& workload, const Platform& platform);

}  // namespace pipesim
