// The periodic-pattern schedules: 1f1b-pattern, kfkb (seed 000 §4.2, §4.3)
// and pattern (a pattern file), unrolled without flush.
#include <cstdlib>
#include <functional>
#include <stdexcept>

#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "patterns/pattern_yaml.hpp"
#include "schedules/memory_saving/pattern_programs.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

const std::set<std::string> kKfkbParams = {"allocation", "k", "weights", "links", "memory_policy"},
                            kOneCopyParams = {"allocation", "weights", "links", "memory_policy"},
                            kPatternFileParams = {"file", "memory_policy"};  // checked by load_workload_pattern

// The pattern unrolled; under memory_saving, built again on the workload
// whose backwards do the programs' recomputes, and unrolled with the programs.
GeneratedSchedule unrolled_schedule(const Workload& w, const Platform& platform,
                                    const std::function<Pattern(const Workload&)>& build) {
  Pattern p = build(w);
  PatternTiming timing = pattern_timing(p, w, platform);
  std::vector<StageMemorySaving> saving;
  if (saves_memory(w)) {
    const memory_saving::PatternPrograms programs = memory_saving::plan_pattern_programs(w, platform, p, timing);
    p = build(programs.folded);
    timing = pattern_timing(p, programs.folded, platform);
    memory_saving::attach_programs(programs, p, platform, timing);
    if (const std::string overlap = find_overlap(p, timing, platform); !overlap.empty())
      throw InputError(w.file, "memory_saving", "the pattern has no room for the recomputes: " + overlap);
    saving = memory_saving::summaries(programs);
  }
  TaskGraph g = unroll_pattern(p, timing, platform.size(), total_microbatches(w), w.microbatches);
  GeneratedSchedule schedule(std::move(g), std::move(p));
  schedule.memory_saving = std::move(saving);
  if (!timing.steps.empty()) schedule.pattern_timing = std::move(timing);
  return schedule;
}

GeneratedSchedule unrolled(const Workload& w, const Platform& platform, bool kfkb) {
  check_params(w, kfkb ? kKfkbParams : kOneCopyParams);
  const Allocation a = workload_allocation(w, platform);
  const int copies = kfkb ? positive_param(w, "k", 2) : 1;
  const BufferPolicy buffers = memory_policy_param(w);
  try {
    return unrolled_schedule(w, platform, [&](const Workload& timed) {
      Pattern p = kfkb_pattern(copies, a, timed, platform, weights_param(w), links_param(w));
      p.buffers = buffers;
      return p;
    });
  } catch (const std::invalid_argument& e) {
    throw InputError(w.file, "schedule", e.what());
  }
}

GeneratedSchedule one_f_one_b_pattern_schedule(const Workload& w, const Platform& platform) {
  return unrolled(w, platform, false);
}

GeneratedSchedule kfkb_schedule(const Workload& w, const Platform& platform) { return unrolled(w, platform, true); }

// schedule: {name: pattern, file: F}: unrolled for microbatches x iterations
// micro-batches, iterations back to back.
GeneratedSchedule pattern_file_schedule(const Workload& w, const Platform& platform) {
  Pattern pattern = load_workload_pattern(w, platform);  // checks the parameters
  pattern.buffers = memory_policy_param(w);
  return unrolled_schedule(w, platform, [&](const Workload&) { return pattern; });
}

// A task per layer and micro-batch each way; transfers between the stages
// of the default allocation, or between any two layers for a given one (or
// a pattern file). The pattern: k copies of every task and transfer.
ScheduleSize unrolled_size(const Workload& w, const Platform& platform, int copies) {
  const double L = static_cast<double>(w.layers.size());
  const bool own_allocation = w.schedule == "pattern" || w.schedule_params.count("allocation");
  const double boundaries = own_allocation ? L - 1 : planned_stage_count(w, platform) - 1;
  const double per_microbatch = 2 * L + 2 * boundaries;
  return {static_cast<double>(w.microbatches) * w.iterations * per_microbatch, copies * per_microbatch,
          std::to_string(w.layers.size()) + " layers"};
}

ScheduleSize one_copy_size(const Workload& w, const Platform& platform) { return unrolled_size(w, platform, 1); }

ScheduleSize kfkb_size(const Workload& w, const Platform& platform) {
  const auto k = w.schedule_params.find("k");  // checked by the builder; only a size here
  const long copies = k == w.schedule_params.end() ? 2 : std::strtol(k->second.c_str(), nullptr, 10);
  return unrolled_size(w, platform, copies >= 1 && copies <= kMaxCopies ? static_cast<int>(copies) : 1);
}

const bool registered =
    register_schedule({"1f1b-pattern"}, one_f_one_b_pattern_schedule, one_copy_size) &&
    register_schedule({"kfkb"}, kfkb_schedule, kfkb_size) &&
    register_schedule({"pattern"}, pattern_file_schedule, one_copy_size) &&
    register_schedule_params("1f1b-pattern", kOneCopyParams) && register_schedule_params("kfkb", kKfkbParams) &&
    register_schedule_params("pattern", kPatternFileParams) && register_memory_saving("1f1b-pattern") &&
    register_balanced_by_default("1f1b-pattern") && register_balanced_by_default("kfkb") &&
    register_memory_saving("kfkb") && register_memory_saving("pattern");

}  // namespace

}  // namespace pipesim
