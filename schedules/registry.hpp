// Schedule names -> task graphs. Every generator family registers its
// schedules here from its own folder (schedules/<family>/); the registry
// knows none of them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "patterns/pattern.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// A generated schedule: the task graph the engine runs and, when the schedule
// is periodic (or flushed: one period per iteration), the pattern it follows.
struct GeneratedSchedule {
  TaskGraph graph;
  std::optional<Pattern> pattern;
};

// Builds a schedule for workload.iterations iterations of
// workload.microbatches micro-batches (both checked >= 1 by the registry);
// checks its own parameters and throws InputError on bad ones.
using ScheduleBuilder = GeneratedSchedule (*)(const Workload& workload, const Platform& platform);

// Called from a static initializer in each family's folder:
//   const bool registered = register_schedule({"gpipe"}, build_gpipe);
// names: canonical first, then aliases. Returns true.
bool register_schedule(std::vector<std::string> names, ScheduleBuilder build);

// Plans the stages and builds the named schedule. Throws InputError for
// unknown schedules or parameters.
GeneratedSchedule generate(const Workload& workload, const Platform& platform);
inline TaskGraph generate_schedule(const Workload& workload, const Platform& platform) {
  return generate(workload, platform).graph;
}

// Canonical names, sorted ("1f1b", "gpipe"); aliases are not listed.
std::vector<std::string> schedule_names();
// "1f1b (1f1b-flush, pipedream-flush), 1f1b-pattern, gpipe, ...": every name.
std::string schedule_names_text();

}  // namespace pipesim
