// Executes one task graph on SimGrid, creating each activity only when its
// task becomes ready (SimGrid 3.32 is quadratic when all are created up
// front). What starts when is the dispatch policy's (dispatch.hpp).
#pragma once

#include <vector>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

// hosts[d][r]: the SimGrid host of compute resource r of device d; hosts[d][0]
// is the device's own host (the end of its transfers).
Timeline execute(simgrid::s4u::Engine& engine, const std::vector<std::vector<simgrid::s4u::Host*>>& hosts,
                 const TaskGraph& graph);

}  // namespace pipesim
