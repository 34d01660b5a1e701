#include "reports/orders_csv.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace pipesim {
namespace {

char letter(TaskKind kind) {
  switch (kind) {
    case TaskKind::Forward:
      return 'F';
    case TaskKind::Backward:
      return 'B';
    case TaskKind::BackwardInput:
      return 'I';
    case TaskKind::BackwardWeight:
      return 'W';
    default:
      return 0;
  }
}

}  // namespace

void write_orders_csv(std::ostream& os, const TaskGraph& g, const Timeline& tl) {
  std::vector<std::vector<TaskId>> rows(g.device_count());
  std::map<int, int> stage_device;
  for (TaskId t = 0; t < g.size(); ++t) {
    const Task& task = g.task(t);
    if (is_transfer(task.kind) || task.kind == TaskKind::Communication) continue;  // the CSV's own lowering
    if (!letter(task.kind))
      throw std::invalid_argument("it has " + std::string(to_string(task.kind)) +
                                  " tasks, which PyTorch's compute CSV cannot hold (only F, B, I, W)");
    if (task.stage < 0 || task.microbatch < 0)
      throw std::invalid_argument("its tasks have no stage or micro-batch: " + g.describe(t));
    const auto [it, fresh] = stage_device.emplace(task.stage, task.device);
    if (!fresh && it->second != task.device)
      throw std::invalid_argument("stage " + std::to_string(task.stage) + " runs on two devices (" +
                                  std::to_string(it->second) + " and " + std::to_string(task.device) +
                                  "); a PyTorch stage has one rank");
    if (task.iteration == 0 && g.device_order(task.device).empty()) rows[task.device].push_back(t);
  }
  for (int d = 0; d < g.device_count(); ++d) {
    if (!g.device_order(d).empty()) {
      for (TaskId t : g.device_order(d))
        if (g.task(t).iteration == 0 && letter(g.task(t).kind)) rows[d].push_back(t);
    } else {  // run by priority: the order the simulation chose
      std::stable_sort(rows[d].begin(), rows[d].end(), [&](TaskId a, TaskId b) { return tl.start[a] < tl.start[b]; });
    }
  }
  while (!rows.empty() && rows.back().empty()) rows.pop_back();
  auto cell = [&](TaskId id) {
    const Task& t = g.task(id);
    return std::to_string(t.stage) + letter(t.kind) + std::to_string(t.microbatch);
  };
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      os << (i ? "," : "");
      // Two ops side by side (TaskGraph::append_beside_previous): DualPipeV's pair cell.
      if (i + 1 < row.size() && g.beside_previous(row[i + 1])) {
        if (g.task(row[i]).kind != TaskKind::Forward)
          throw std::invalid_argument("it runs " + g.describe(row[i + 1]) + " beside " + g.describe(row[i]) +
                                      ", and PyTorch's overlapped pairs start with a forward");
        os << '(' << cell(row[i]) << ';' << cell(row[i + 1]) << ")OVERLAP_F_B";
        ++i;
      } else {
        os << cell(row[i]);
      }
    }
    os << '\n';
  }
}

}  // namespace pipesim
