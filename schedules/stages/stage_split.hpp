// Which layers each stage of an automatically placed pipeline runs: the two
// rules of placement.partition (docs/workload-format.md#placement).
#pragma once

#include <utility>
#include <vector>

#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

using StageLayers = std::vector<std::pair<int, int>>;  // inclusive, 0-based, one per stage

// Even: a model's transformer blocks in equal counts, the embedding with
// the first stage and the head with the last, as Megatron-LM builds its
// (virtual) pipeline stages when they divide the blocks
// (megatron/core/transformer/transformer_block.py, get_num_layers_to_build);
// else, and for layer chains, equal counts of the whole chain, as PyTorch's
// pipeline split. Needs 1 <= STAGES <= layers.
StageLayers even_stage_layers(const Workload& workload, int stages);

// Counted: placement.layers, each stage's layer count in stage order (the
// loader checked that they add up to the chain). Throws InputError when the
// pipeline has another number of stages than the list.
StageLayers counted_stage_layers(const Workload& workload, int stages);

// Balanced: PipeDream's min-max partition (partition_chain) of the layers'
// forward + backward seconds on each stage's device, with each boundary's
// activation and gradient transfer. Where a device runs several stages
// (interleaved and V schedules), the stages' boundaries then move one layer
// at a time while that lowers the busiest device's load, or keeps it and
// lowers the sum of squared device loads (a device's load: the seconds of
// every stage it runs), so the embedding and the head weigh what they cost.
// STAGE_DEVICE[s]: stage s's device in PLATFORM, or -1 for a stage no rank
// runs (counted alone). Throws std::invalid_argument for more stages than
// layers.
StageLayers balanced_stage_layers(const Workload& workload, const Platform& platform,
                                  const std::vector<int>& stage_device);

// An automatic placement's stages: placement.layers where given, else
// placement.partition's rule, AUTO_RULE (even or balanced) where it is auto.
// STAGE_DEVICE as for balanced_stage_layers, one per stage.
StageLayers automatic_stage_layers(const Workload& workload, const Platform& platform,
                                   const std::vector<int>& stage_device, PartitionRule auto_rule);

}  // namespace pipesim
