// The fit partition of `pipesim plan` (docs/plan.md#partitions): where a
// pipeline's balanced partition is over memory on some GPUs, the layer
// counts per stage whose busiest stage takes the least time while every
// stage's memory fits, as Megatron-LM users give the first and last stages
// fewer layers. Each stage's memory is modelled from a pipeline's bounds:
// its static bytes grow with its weights, what its passes hold with its
// layers' stashes (how many micro-batches a stage holds in flight is its
// schedule's, whatever its layers).
#pragma once

#include <optional>
#include <vector>

#include "sim/platform.hpp"
#include "studies/plan/plan_bounds.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Stage memory as the model reads it: bytes = fixed + per_weight x weights
// + per_stash x stashes, for the stage's layers.
struct StageMemoryModel {
  double fixed = 0, per_weight = 0, per_stash = 0;
  double capacity = 0;  // bytes the stage may take
  double speed = 0;     // flop/s of its GPU
};

// The model of each stage of a pipeline with one stage per rank, calibrated
// on BOUNDS (plan_bounds of TIMED on PLATFORM): each stage's static memory
// and memory bound at its current layers. Empty where BOUNDS has no ranks or
// stages do not map one to one on ranks.
std::vector<StageMemoryModel> stage_memory_models(const Workload& timed, const PlanBounds& bounds);

// The layer counts per stage that minimise the busiest stage's compute
// seconds (forward and backward flops / its GPU's speed, REFERENCE_SPEED for
// second-valued costs) among the contiguous splits whose every stage fits
// its model's capacity; nullopt where none does. Among splits as fast, each
// stage's cut as early as possible, from the last stage back.
std::optional<std::vector<int>> fit_layer_counts(const Workload& timed, double reference_speed,
                                                 const std::vector<StageMemoryModel>& stages);

// Each stage's layer count in BOUNDS.stages ("0-2 3-4 5-7" gives 3 2 3).
std::vector<int> stage_layer_counts(const PlanBounds& bounds);

}  // namespace pipesim
