// What a finished run shows wrong: deadlock, memory over capacity.
#pragma once

#include <vector>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"
#include "sim/violation.hpp"

namespace pipesim {

// What a run shows: the engine's deadlock explanation and, per device, the
// first instant its memory exceeded its capacity (names: per task, for messages).
std::vector<Violation> run_violations(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                                      const std::vector<std::string>& names);

}  // namespace pipesim
