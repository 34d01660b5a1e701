#include "schedules/registry.hpp"

#include <climits>

#include "schedules/flush_pattern.hpp"
#include "schedules/generators.hpp"
#include "schedules/master_scheduler.hpp"
#include "schedules/pattern_generators.hpp"
#include "schedules/pattern_timing.hpp"
#include "schedules/pattern_unroll.hpp"
#include "schedules/pattern_yaml.hpp"
#include "schedules/pipeline_builder.hpp"
#include "schedules/stage_plan.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

using SequenceFn = std::vector<StageSequence> (*)(int stages, int microbatches);
using GraphFn = GeneratedSchedule (*)(const Workload& workload, const Platform& platform);

struct Entry {
  std::vector<std::string> names;  // canonical first
  SequenceFn sequences;            // flush schedules: no parameters
  GraphFn graph = nullptr;         // else: builds the graph, checks its own parameters
};

// Kept sorted by canonical name.
const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
      {{"1f1b", "1f1b-flush", "pipedream-flush"}, one_f_one_b_sequences},
      {{"1f1b-pattern"}, nullptr, one_f_one_b_pattern_schedule},
      {{"gpipe"}, gpipe_sequences},
      {{"kfkb"}, nullptr, kfkb_schedule},
      {{"master"}, nullptr, master_schedule},
      {{"pipedream"}, nullptr, pipedream_workload_schedule},
  };
  return table;
}

const Entry* find(const std::string& name) {
  for (const Entry& e : entries())
    for (const std::string& n : e.names)
      if (n == name) return &e;
  return nullptr;
}

// schedule: {name: pattern, file: F}: unrolled for microbatches x iterations
// micro-batches, iterations back to back.
GeneratedSchedule pattern_schedule(const Workload& w, const Platform& platform) {
  if (static_cast<long long>(w.microbatches) * w.iterations > INT_MAX)
    throw InputError(w.file, "iterations", "too many micro-batches in all (microbatches x iterations)");
  Pattern pattern = load_workload_pattern(w, platform);
  TaskGraph g = unroll_pattern(pattern, pattern_timing(pattern, w, platform), platform.size(),
                               w.microbatches * w.iterations, w.microbatches);
  return {std::move(g), std::move(pattern)};
}

}  // namespace

std::vector<std::string> schedule_names() {
  std::vector<std::string> names;
  for (const Entry& e : entries()) names.push_back(e.names.front());
  return names;
}

GeneratedSchedule generate(const Workload& workload, const Platform& platform) {
  if (workload.schedule == "pattern") {
    if (workload.microbatches < 1) throw InputError(workload.file, "microbatches", "must be at least 1");
    if (workload.iterations < 1) throw InputError(workload.file, "iterations", "must be at least 1");
    return pattern_schedule(workload, platform);
  }
  const Entry* entry = find(workload.schedule);
  if (!entry) {
    std::string expected;
    for (const std::string& n : schedule_names()) expected += (expected.empty() ? "" : ", ") + n;
    throw InputError(workload.file, "schedule",
                     "unknown schedule '" + workload.schedule + "' (expected one of: " + expected + ")");
  }
  if (entry->graph) {
    if (workload.microbatches < 1) throw InputError(workload.file, "microbatches", "must be at least 1");
    if (workload.iterations < 1) throw InputError(workload.file, "iterations", "must be at least 1");
    return entry->graph(workload, platform);
  }
  if (!workload.schedule_params.empty()) {
    const std::string& param = workload.schedule_params.begin()->first;
    throw InputError(workload.file, "schedule." + param,
                     "unknown parameter '" + param + "' for schedule '" + workload.schedule + "'");
  }
  if (workload.microbatches < 1) throw InputError(workload.file, "microbatches", "must be at least 1");
  if (workload.iterations < 1) throw InputError(workload.file, "iterations", "must be at least 1");
  const StagePlan plan = make_stage_plan(workload, platform);
  const auto sequences = entry->sequences(static_cast<int>(plan.stages.size()), workload.microbatches);
  return {build_pipeline(plan, sequences, workload.iterations, platform.size()),
          flush_pattern(plan, sequences, workload, platform)};
}

}  // namespace pipesim
