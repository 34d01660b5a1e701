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
  int device = 0;  // index into Platform::devices
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

// Whether a schedule runs several stages on one device (gpipe, 1f1b) or
// exactly one stage per device (every other user of the stage plan).
enum class StagesPerDevice { One, Several };

// Explicit placement is checked (hosts exist, are routed, and with
// StagesPerDevice::One are distinct); automatic placement puts stage i on
// device i, or, with StagesPerDevice::Several and more stages N than compute
// devices D, stage s on device floor(s*D/N) (contiguous blocks), and splits
// the layers by placement.partition (balanced unless told even,
// schedules/stages/stage_split.hpp). Throws InputError on bad input; a placement
// that shares a device under StagesPerDevice::One is refused naming the
// workload's schedule.
StagePlan make_stage_plan(const Workload& workload, const Platform& platform,
                          StagesPerDevice per_device = StagesPerDevice::One);

// Whether some device runs more than one of the plan's stages.
bool shares_devices(const StagePlan& plan);

// How many stages make_stage_plan would make, without checking anything: the
// explicit list's length, placement.stages, or min(devices, layers). For the
// memory estimate, before any plan is built.
int planned_stage_count(const Workload& workload, const Platform& platform);

}  // namespace pipesim
