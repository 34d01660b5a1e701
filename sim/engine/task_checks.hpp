// Checks a task graph's amounts, resources, lanes and shares before either
// engine runs it, with the same messages for both.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/task_graph.hpp"

namespace pipesim {

// resources[d]: how many compute resources device d has. bounds: the CPU
// model can bound an execution (cpu/optim Lazy or Full, not TI). Throws
// InputError on a resource or lane out of range, a share outside (0, 1] or
// under TI, an amount that is not finite (SimGrid keeps running past an Exec
// of inf flops and crashes at exit) or a transfer above 2^63 bytes.
void check_task_amounts(const TaskGraph& graph, const std::vector<std::size_t>& resources, bool bounds);

}  // namespace pipesim
