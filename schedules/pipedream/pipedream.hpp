// PipeDream's eager 1F1B without flush (Narayanan et al. 2019; seed 000
// §4.1, §7): its task graph and, when it settles into one, its pattern.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "patterns/allocation.hpp"
#include "patterns/pattern.hpp"
#include "schedules/stages/pipeline_builder.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

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

// The longest cycle pipedream_pattern looks for: max(kMaxEagerCopies, noam).
// The eager schedule's steady state may repeat only every k micro-batches;
// on PipeDream's partitions of ResNet-18/50/101 on 4 and 8 devices k is
// 1..8 and never above the NOAM.
constexpr int kMaxEagerCopies = 8;
int eager_cycle_bound(int noam);

// The steady state of pipedream_schedule on a contiguous allocation as a
// pattern with WeightPolicy::Stashing: the schedule is run without
// contention (every task as soon as its inputs and its device's previous
// task are done: what the engine does when no two transfers share a link
// at once) until, in a window of micro-batches, every task's start advances
// by the same T every k micro-batches, for the smallest k up to
// eager_cycle_bound(noam). The pattern has k copies and period T (k = 1: seed 000's
// 1F1B pattern): copy c of period i is micro-batch k (i + shift) + c, and
// micro-batch m0 + c of the window (m0 a multiple of k) gives copy c's
// offsets (its start times modulo T) and shifts (from the micro-batch
// indices: not minimal, PipeDream's own); each stage's layers back to back.
// Throws std::invalid_argument if no such steady state shows within a
// bounded run, or if it puts two transfers on one link at once (a
// pattern's link resource holds one transfer at a time).
Pattern pipedream_pattern(const Allocation& allocation, int noam, const Workload& workload, const Platform& platform);

// What `schedule: pipedream` runs, and the study's baseline with it (one
// accounting for both): the steady-state pattern unrolled, with `buffers`,
// when there is one, so that the figures printed beside the run are the
// run's; else the eager stage pipeline and no pattern. Throws
// std::invalid_argument for a non-contiguous allocation.
std::pair<TaskGraph, std::optional<Pattern>> pipedream_run(const Allocation& allocation, int noam,
                                                           const Workload& workload, const Platform& platform,
                                                           int microbatches, BufferPolicy buffers);

}  // namespace pipesim
