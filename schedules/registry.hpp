// Schedule names -> task graphs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedules/pattern.hpp"
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

// Plans the stages and builds the named schedule for workload.iterations
// iterations. Throws InputError for unknown schedules or parameters.
GeneratedSchedule generate(const Workload& workload, const Platform& platform);
inline TaskGraph generate_schedule(const Workload& workload, const Platform& platform) {
  return generate(workload, platform).graph;
}

// Canonical names, sorted ("1f1b", "gpipe"); aliases are not listed.
std::vector<std::string> schedule_names();

}  // namespace pipesim
