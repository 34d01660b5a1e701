// A flush schedule (GPipe, 1F1B with flush) written as a periodic pattern:
// one period is one iteration, k = M copies of every task, all shifts 0.
#pragma once

#include <vector>

#include "patterns/pattern.hpp"
#include "schedules/stages/pipeline_builder.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Offsets come from an as-soon-as-possible list schedule of one iteration
// (each device in its sequence, each link resource one transfer at a time:
// `links`, see LinkResources), so the pattern is valid (Definition 1) and
// its period is that iteration's length.
Pattern flush_pattern(const StagePlan& plan, const std::vector<StageSequence>& sequences, const Workload& workload,
                      const Platform& platform, LinkModel links = LinkModel::Platform);

}  // namespace pipesim
