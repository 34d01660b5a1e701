#include "sim/engine/task_checks.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/input_error.hpp"

namespace pipesim {

void check_task_amounts(const TaskGraph& graph, const std::vector<std::size_t>& resources, bool bounds) {
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    const bool transfer = is_transfer(task.kind);
    if (!transfer && (task.resource < 0 || static_cast<std::size_t>(task.resource) >= resources.at(task.device)))
      throw InputError("task graph", graph.describe(t),
                       "resource " + std::to_string(task.resource) + " out of range: the device has " +
                           std::to_string(resources.at(task.device)) + " compute resources");
    if (!transfer && (task.lane < 0 || !(task.share > 0 && task.share <= 1)))
      throw InputError("task graph", graph.describe(t), "expected lane >= 0 and share in (0, 1]");
    if (!transfer && task.share < 1 && !bounds)
      throw InputError("--cfg", "cpu/optim:TI",
                       "shares of a resource's speed (" + graph.describe(t) +
                           ") need cpu/optim:Lazy or Full: the TI model cannot bound an execution");
    if (std::isfinite(task.amount) && task.amount >= 0 && (!transfer || task.amount < 9.2e18)) continue;
    char amount[32];
    std::snprintf(amount, sizeof(amount), "%g", task.amount);
    throw InputError("task graph", graph.describe(t),
                     std::string(transfer ? "expected a finite byte count below 2^63" : "expected a finite flop count") +
                         " >= 0, got " + amount + (transfer ? "" : " (a cost too large for the device's speed?)"));
  }
}

}  // namespace pipesim
