#include "sim/engine/task_checks.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/input_error.hpp"

namespace pipesim {
namespace {

// Whether the tasks of a shape pass: the checks read nothing a task does not
// share with its shape, so a graph of millions of tasks is checked per shape.
bool acceptable(const Task& task, const std::vector<std::size_t>& resources, bool bounds) {
  const bool transfer = is_transfer(task.kind);
  if (!transfer) {
    if (task.device < 0 || static_cast<std::size_t>(task.device) >= resources.size()) return false;
    if (task.resource < 0 || static_cast<std::size_t>(task.resource) >= resources[task.device]) return false;
    if (task.lane < 0 || !(task.share > 0 && task.share <= 1)) return false;
    if (task.share < 1 && !bounds) return false;
  }
  return std::isfinite(task.amount) && task.amount >= 0 && (!transfer || task.amount < 9.2e18);
}

// Throws the error of task t, one that acceptable() turned down.
void reject(const TaskGraph& graph, TaskId t, const std::vector<std::size_t>& resources, bool bounds) {
  const Task task = graph.task(t);
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
  char amount[32];
  std::snprintf(amount, sizeof(amount), "%g", task.amount);
  throw InputError("task graph", graph.describe(t),
                   std::string(transfer ? "expected a finite byte count below 2^63" : "expected a finite flop count") +
                       " >= 0, got " + amount + (transfer ? "" : " (a cost too large for the device's speed?)"));
}

}  // namespace

void check_task_amounts(const TaskGraph& graph, const std::vector<std::size_t>& resources, bool bounds) {
  std::vector<char> bad(graph.shape_count(), 0);
  bool any = false;
  for (std::uint32_t s = 0; s < graph.shape_count(); ++s)
    if (!acceptable(graph.shape(s).task, resources, bounds)) {
      bad[s] = 1;
      any = true;
    }
  if (!any) return;
  for (TaskId t = 0; t < graph.size(); ++t)  // the first task in id order, as the message names it
    if (bad[graph.shape_of(t)]) reject(graph, t, resources, bounds);
}

}  // namespace pipesim
