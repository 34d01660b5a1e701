// TEMPORARY: a plain ring until the collectives branch lands.
#include "collectives/collective.hpp"

#include <stdexcept>

namespace pipesim {

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::AllReduce: return "all-reduce";
    case CollectiveOp::ReduceScatter: return "reduce-scatter";
    case CollectiveOp::AllGather: return "all-gather";
    case CollectiveOp::Broadcast: return "broadcast";
  }
  return "?";
}
std::string_view to_string(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::Auto: return "auto";
    case CollectiveAlgorithm::Ring: return "ring";
    case CollectiveAlgorithm::Tree: return "tree";
    case CollectiveAlgorithm::Hierarchical: return "hierarchical";
  }
  return "?";
}
std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view name) {
  for (auto a : {CollectiveAlgorithm::Auto, CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree,
                 CollectiveAlgorithm::Hierarchical})
    if (to_string(a) == name) return a;
  return std::nullopt;
}
CollectiveAlgorithm choose_algorithm(const CollectiveSpec&, const Platform&) { return CollectiveAlgorithm::Ring; }

CollectiveTasks add_collective(TaskGraph& graph, const CollectiveSpec& spec, const Platform&,
                               const std::vector<std::vector<TaskId>>& ready, const Task& tag, int record) {
  const int n = static_cast<int>(spec.group.size());
  CollectiveTasks out;
  out.record = record >= 0 ? record
                           : graph.add_collective({std::string(to_string(spec.op)), "ring", spec.purpose, spec.group,
                                                   spec.bytes});
  std::vector<TaskId> have(n);
  for (int i = 0; i < n; ++i) {
    Task m = tag;
    m.kind = TaskKind::Transfer;
    m.device = m.peer = spec.group[i];
    m.amount = 0;
    m.collective = out.record;
    have[i] = graph.add(m, ready[i]);
  }
  const int steps = spec.op == CollectiveOp::AllReduce ? 2 * (n - 1) : n - 1;
  for (int s = 0; s < steps; ++s) {
    std::vector<TaskId> next(n);
    for (int i = 0; i < n; ++i) {
      Task m = tag;
      m.kind = TaskKind::Transfer;
      m.device = spec.group[i];
      m.peer = spec.group[(i + 1) % n];
      m.amount = spec.bytes / n;
      m.collective = out.record;
      next[(i + 1) % n] = graph.add(m, {have[i], have[(i + 1) % n]});
    }
    have = next;
  }
  out.done = have;
  return out;
}

double collective_closed_form(const CollectiveSpec&, const Platform&) { return 0; }

}  // namespace pipesim
