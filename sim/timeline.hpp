// What the engine observed: when every task ran and which links carried
// each transfer. Analysis reads this and the task graph, nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/task_graph.hpp"

namespace pipesim {

struct LinkInfo {
  std::string name;
  double bandwidth = 0;  // bytes per second
};

struct Timeline {
  std::vector<double> start;   // per task; NaN if it never ran
  std::vector<double> finish;  // per task; NaN if it never finished
  double makespan = 0;
  std::vector<LinkInfo> links;
  // Links crossed by each task, compressed rows (empty for compute tasks).
  std::vector<std::uint32_t> route_offsets{0};
  std::vector<std::uint32_t> route_links;
  // Per route_links entry: the flows of the whole job that crossing stands
  // for (Path::weights: a folded job's). Empty when every entry is 1.
  std::vector<double> route_weights;
  // Tasks that never ran because of a deadlock; empty when all completed.
  std::vector<TaskId> blocked;
  std::string deadlock;  // explanation when blocked is not empty

  bool completed() const { return blocked.empty(); }
  const std::uint32_t* route_begin(TaskId t) const { return route_links.data() + route_offsets[t]; }
  const std::uint32_t* route_end(TaskId t) const { return route_links.data() + route_offsets[t + 1]; }
};

}  // namespace pipesim
