// Explains why a schedule stopped before all its tasks ran.
#pragma once

#include <string>

#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

// Every task that never finished waits for another one that never finished
// (a data dependency or its predecessor in the device order), so following
// those waits must close a cycle: that cycle is the explanation.
std::string explain_deadlock(const TaskGraph& graph, const Timeline& timeline);

}  // namespace pipesim
