#include "sim/deadlock.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace pipesim {

std::string explain_deadlock(const TaskGraph& graph, const Timeline& timeline) {
  constexpr TaskId kNone = std::numeric_limits<TaskId>::max();
  auto unfinished = [&](TaskId t) { return std::isnan(timeline.finish[t]); };
  std::vector<TaskId> order_prev(graph.size(), kNone);
  // Around groups side by side a task has several order predecessors: keep an unfinished one.
  graph.for_each_order_link([&](TaskId previous, TaskId next) {
    if (order_prev[next] == kNone || !unfinished(order_prev[next])) order_prev[next] = previous;
  });
  // The task a blocked task waits for, and why.
  auto waits_for = [&](TaskId t, bool& by_order) {
    by_order = false;
    for (const TaskId* d = graph.deps_begin(t); d != graph.deps_end(t); ++d)
      if (unfinished(*d)) return *d;
    by_order = true;
    return order_prev[t] != kNone && unfinished(order_prev[t]) ? order_prev[t] : kNone;
  };

  size_t blocked = 0;
  TaskId first = kNone;
  for (TaskId t = 0; t < graph.size(); ++t)
    if (unfinished(t)) {
      ++blocked;
      if (first == kNone) first = t;
    }
  std::string text =
      "deadlock: " + std::to_string(blocked) + " of " + std::to_string(graph.size()) + " tasks never ran";
  if (first == kNone) return text;

  std::vector<int> seen_at(graph.size(), -1);
  std::vector<std::pair<TaskId, bool>> walk;  // (task, waits by device order)
  TaskId t = first;
  while (t != kNone && seen_at[t] < 0) {
    seen_at[t] = static_cast<int>(walk.size());
    bool by_order = false;
    const TaskId next = waits_for(t, by_order);
    walk.push_back({t, by_order});
    t = next;
  }
  if (t == kNone) return text + "; " + graph.describe(walk.back().first) + " waits for nothing that ran";
  text += "; waiting cycle: ";
  for (size_t i = seen_at[t]; i < walk.size(); ++i) {
    text += graph.describe(walk[i].first);
    text += walk[i].second ? " waits (device order) for " : " waits (data) for ";
  }
  return text + graph.describe(t);
}

}  // namespace pipesim
