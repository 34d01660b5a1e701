#include "sim/engine/dispatch.hpp"

#include <map>
#include <tuple>

namespace pipesim {

Slots::Slots(const TaskGraph& graph) : graph_(&graph) {
  const int devices = graph.device_count();
  for (int d = 0; d < devices; ++d) {
    device_.push_back(d);
    resource_.push_back(0);
  }
  bool lanes = false;
  for (const Task& task : graph.tasks())
    if (!is_transfer(task.kind) && (task.resource != 0 || task.lane != 0)) lanes = true;
  if (lanes) {
    std::map<std::tuple<int, int, int>, std::uint32_t> index;
    for (int d = 0; d < devices; ++d) index[{d, 0, 0}] = static_cast<std::uint32_t>(d);
    of_.resize(graph.size());
    for (TaskId t = 0; t < graph.size(); ++t) {
      const Task& task = graph.task(t);
      if (is_transfer(task.kind)) continue;
      auto [it, inserted] = index.try_emplace({task.device, task.resource, task.lane}, count());
      if (inserted) {
        device_.push_back(task.device);
        resource_.push_back(task.resource);
      }
      of_[t] = it->second;
    }
  }
  greedy_.assign(count(), true);
  for (int d = 0; d < devices; ++d)
    for (const TaskId t : graph.device_order(d)) greedy_[of(t)] = false;
}

}  // namespace pipesim
