// The flush schedules, GPipe and 1F1B: a stage plan, per-stage sequences,
// a flush at the end of every iteration; no parameters. A device may run
// several stages (their orders merged: stage_merge.hpp).
#include "schedules/flush/flush_pattern.hpp"
#include "schedules/flush/flush_sequences.hpp"
#include "schedules/memory_saving/stage_programs.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "schedules/stages/pipeline_builder.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

// Seed 002's programs budget a device's memory for its one stage.
void check_memory_saving_placement(const Workload& workload, const Platform& platform, const StagePlan& plan) {
  for (std::size_t s = 1; s < plan.stages.size(); ++s)
    for (std::size_t t = 0; t < s; ++t)
      if (plan.stages[t].device == plan.stages[s].device)
        throw InputError(workload.file, "memory_saving",
                         "runs one stage per device (its limits are a device's memory), but placement puts stages " +
                             std::to_string(t) + " and " + std::to_string(s) + " on " +
                             platform.devices[plan.stages[s].device].name);
}

template <std::vector<StageSequence> (*sequences)(const StagePlan& plan, int microbatches)>
GeneratedSchedule flush_schedule(const Workload& workload, const Platform& platform) {
  check_params(workload, {});
  const StagePlan plan = make_stage_plan(workload, platform, StagesPerDevice::Several);
  const auto orders = sequences(plan, workload.microbatches);
  if (saves_memory(workload)) {
    check_memory_saving_placement(workload, platform, plan);
    // Seed 002 per stage: the pattern's durations and memory would not be the run's, so none is returned.
    const auto programs = memory_saving::plan_stage_programs(workload, platform, plan, orders);
    memory_saving::ProgramEmitter emitter(programs, plan, platform);
    GeneratedSchedule out{build_pipeline(plan, orders, workload.iterations, platform.size(), &emitter), std::nullopt};
    for (const auto& p : programs)
      if (p.active) out.memory_saving.push_back(p.summary);
    return out;
  }
  GeneratedSchedule out(build_pipeline(plan, orders, workload.iterations, platform.size()));
  // Rebuilt on demand from the inputs (the orders hold 2 M ops per stage).
  out.iteration_pattern = [workload, platform] {
    const StagePlan plan = make_stage_plan(workload, platform, StagesPerDevice::Several);
    return flush_pattern(plan, sequences(plan, workload.microbatches), workload, platform);
  };
  return out;
}

// Per micro-batch and iteration: a forward and a backward per stage, two
// transfers per boundary. The pattern holds one iteration: M copies of
// every layer's forward and backward, and of the boundaries' transfers,
// built only for --export-pattern.
ScheduleSize flush_size(const Workload& w, const Platform& platform) {
  const int S = planned_stage_count(w, platform);
  const double M = w.microbatches, L = static_cast<double>(w.layers.size());
  return {M * w.iterations * (4.0 * S - 2), M * (2 * L + 2.0 * (S - 1)), std::to_string(S) + " stages", true};
}

const bool registered = register_schedule({"1f1b", "1f1b-flush", "pipedream-flush", "schedule1f1b"},
                                          flush_schedule<one_f_one_b_sequences>, flush_size) &&
                        register_schedule({"gpipe", "schedulegpipe"}, flush_schedule<gpipe_sequences>, flush_size) &&
                        register_memory_saving("1f1b") && register_memory_saving("gpipe") &&
                        register_balanced_by_default("1f1b") && register_balanced_by_default("gpipe") &&
                        register_schedule_params("1f1b", {}) && register_schedule_params("gpipe", {});

}  // namespace
}  // namespace pipesim
