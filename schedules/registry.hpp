// Schedule names -> task graphs. Every generator family registers its
// schedules here from its own folder (schedules/<family>/); the registry
// knows none of them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "patterns/pattern.hpp"
#include "schedules/memory_estimate.hpp"
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

// What the builder will build, counted without building it (for the memory
// estimate; schedules/memory_estimate.hpp). Must not throw on parameters the
// builder would reject: it runs first.
using ScheduleSizer = ScheduleSize (*)(const Workload& workload, const Platform& platform);

// Called from a static initializer in each family's folder:
//   const bool registered = register_schedule({"gpipe"}, build_gpipe, gpipe_size);
// names: canonical first, then aliases. Without a sizer the estimate assumes
// a task per layer and micro-batch and a transfer between any two layers.
// Returns true.
bool register_schedule(std::vector<std::string> names, ScheduleBuilder build, ScheduleSizer size = nullptr);

// Limits on what a run may use. The command line's --max-memory SIZE.
struct RunLimits {
  double max_memory_bytes = 0;  // 0: the default (default_memory_limit())
};

// Checks the costs (check_cost_times) and the memory the run needs
// (estimated_memory_bytes of the family's ScheduleSize, against the limit),
// then plans the stages and builds the named schedule. Throws InputError
// for unknown schedules or parameters, and for runs over the limit, before
// building anything.
GeneratedSchedule generate(const Workload& workload, const Platform& platform, const RunLimits& limits = {});
inline TaskGraph generate_schedule(const Workload& workload, const Platform& platform) {
  return generate(workload, platform).graph;
}

// Canonical names, sorted ("1f1b", "gpipe"); aliases are not listed.
std::vector<std::string> schedule_names();
// "1f1b (1f1b-flush, pipedream-flush, schedule1f1b), 1f1b-pattern, ...": every name.
std::string schedule_names_text();

}  // namespace pipesim
