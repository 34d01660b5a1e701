// Executes one task graph on SimGrid, creating each activity only when its
// task becomes ready (SimGrid 3.32 is quadratic when all are created up front).
#pragma once

#include <vector>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

Timeline execute(simgrid::s4u::Engine& engine, const std::vector<simgrid::s4u::Host*>& devices,
                 const TaskGraph& graph);

}  // namespace pipesim
