// The fit partition of `pipesim plan` (docs/plan.md#partitions): where a
// pipeline's balanced partition is over memory on some GPUs, the layer
// counts per stage whose busiest GPU computes the least while every GPU's
// memory fits, as Megatron-LM users give the first and last stages fewer
// layers. Each GPU's memory is modelled from a pipeline's bounds: its
// static bytes grow with its stages' weights, what its passes hold with
// their layers' stashes (how many micro-batches a stage holds in flight is
// its schedule's, whatever its layers).
#pragma once

#include <optional>
#include <vector>

#include "sim/platform.hpp"
#include "studies/plan/plan_bounds.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// A pipeline rank's memory as the model reads it: bytes = fixed +
// per_weight x weights + per_stash x stashes, over the layers of its stages.
struct RankMemoryModel {
  double fixed = 0, per_weight = 0, per_stash = 0;
  double capacity = 0;  // bytes the rank's GPU may take
  double speed = 0;     // flop/s of its GPU
};

// The model of each pipeline rank, calibrated on BOUNDS (plan_bounds of
// TIMED): each rank's static memory and memory bound at its stages' current
// layers. Empty where BOUNDS does not say which rank runs each stage.
std::vector<RankMemoryModel> rank_memory_models(const Workload& timed, const PlanBounds& bounds);

// Layer counts per stage (stage s on rank STAGE_RANK[s]) whose ranks all
// fit their model's capacity, the busiest rank's compute seconds (forward
// and backward flops / its GPU's speed; REFERENCE_SPEED for second-valued
// costs) as low as found; nullopt where none is found.
// - One stage per rank: the least busiest stage among every contiguous
//   split (a dynamic program, O(stages x layers^2)); among splits as fast,
//   each stage starts as early as it can, from the last stage back.
// - Several stages per rank (interleaved and V schedules): from START, one
//   layer at a time across a stage boundary while that lowers the bytes
//   over capacity, then the busiest rank's seconds, then the sum of squared
//   rank seconds: a local search.
std::optional<std::vector<int>> fit_layer_counts(const Workload& timed, double reference_speed,
                                                 const std::vector<RankMemoryModel>& ranks,
                                                 const std::vector<int>& stage_rank, const std::vector<int>& start);

// Each stage's layer count in BOUNDS.stages ("0-2 3-4 5-7" gives 3 2 3).
std::vector<int> stage_layer_counts(const PlanBounds& bounds);

}  // namespace pipesim
