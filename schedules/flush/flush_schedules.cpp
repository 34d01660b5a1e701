// The flush schedules, GPipe and 1F1B: a stage plan, per-stage sequences,
// a flush at the end of every iteration; no parameters.
#include "schedules/flush/flush_pattern.hpp"
#include "schedules/flush/flush_sequences.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "schedules/stages/pipeline_builder.hpp"
#include "schedules/stages/stage_plan.hpp"

namespace pipesim {
namespace {

template <std::vector<StageSequence> (*sequences)(int stages, int microbatches)>
GeneratedSchedule flush_schedule(const Workload& workload, const Platform& platform) {
  check_params(workload, {});
  const StagePlan plan = make_stage_plan(workload, platform);
  const auto orders = sequences(static_cast<int>(plan.stages.size()), workload.microbatches);
  return {build_pipeline(plan, orders, workload.iterations, platform.size()),
          flush_pattern(plan, orders, workload, platform)};
}

const bool registered =
    register_schedule({"1f1b", "1f1b-flush", "pipedream-flush"}, flush_schedule<one_f_one_b_sequences>) &&
    register_schedule({"gpipe"}, flush_schedule<gpipe_sequences>);

}  // namespace
}  // namespace pipesim
