// Which layers run where: the stages of a pipeline, with their costs on
// their own device, derived from a Workload and a Platform.
#pragma once

#include <vector>

#include "sim/platform.hpp"
#include "workloads/costs.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

struct Stage {
  int first_layer = 0;  // inclusive, 0-based
  int last_layer = 0;
  int device = 0;       // index into Platform::devices
  double forward_seconds = 0;
  double backward_seconds = 0;
  double forward_flops = 0;
  double backward_flops = 0;
  double output_bytes = 0;  // a of the last layer, sent to the next stage
  double input_bytes = 0;   // a of the layer before the first (workload.input for stage 0)
  double stash_bytes = 0;   // sum of a_{l-1} over the stage's layers: kept from F until B
  double weight_bytes = 0;
};

struct StagePlan {
  std::vector<Stage> stages;
};

// Explicit placement is checked (hosts exist, are distinct, are routed);
// automatic placement puts stage i on device i and balances layers with
// partition_chain. Throws InputError on bad input.
StagePlan make_stage_plan(const Workload& workload, const Platform& platform);

// How many stages make_stage_plan would make, without checking anything: the
// explicit list's length, placement.stages, or min(devices, layers). For the
// memory estimate, before any plan is built.
int planned_stage_count(const Workload& workload, const Platform& platform);

}  // namespace pipesim
