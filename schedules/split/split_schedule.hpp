// Seed 004's `split` schedule as a task graph (registered as "split").
#pragma once

#include "sim/platform.hpp"
#include "sim/split_plan.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// `microbatches` in one asynchronous stream (no flush), micro-batch k
// numbered k. Per stage and micro-batch: the forward's parts (one per
// resource with beta_j > 0 and a forward speed; lane 0, share beta_j, amount
// in host flops) after the input and the backward of micro-batch
// k - in_flight; the backward's parts (lane 1, share 1 - beta_j); a Transfer
// each way per boundary. Memory: weights x in_flight versions and one
// gradient buffer (static), activations from forward start to backward end,
// communication buffers as build_pipeline holds them.
TaskGraph split_schedule(const SplitPlan& plan, const Workload& workload, const Platform& platform, int microbatches);

}  // namespace pipesim
