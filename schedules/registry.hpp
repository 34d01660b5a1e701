// Schedule names -> task graphs.
#pragma once

#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Plans the stages and builds the named schedule for workload.iterations
// iterations. Throws InputError for unknown schedules or parameters.
TaskGraph generate_schedule(const Workload& workload, const Platform& platform);

// Canonical names, sorted ("1f1b", "gpipe"); aliases are not listed.
std::vector<std::string> schedule_names();

}  // namespace pipesim
