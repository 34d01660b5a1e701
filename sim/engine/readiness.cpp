#include "sim/engine/readiness.hpp"

namespace pipesim {

Readiness::Readiness(const TaskGraph& graph)
    : waiting_(graph.size(), 0), succ_offsets_(graph.size() + 1, 0), order_next_(graph.size(), kNone) {
  const std::size_t n = graph.size();
  for (TaskId t = 0; t < n; ++t)
    for (const TaskId* d = graph.deps_begin(t); d != graph.deps_end(t); ++d) ++succ_offsets_[*d + 1];
  for (std::size_t i = 0; i < n; ++i) succ_offsets_[i + 1] += succ_offsets_[i];
  succ_ids_.resize(graph.dependency_count());
  std::vector<std::uint32_t> fill(succ_offsets_.begin(), succ_offsets_.end() - 1);
  for (TaskId t = 0; t < n; ++t) {
    waiting_[t] = static_cast<std::uint32_t>(graph.deps_end(t) - graph.deps_begin(t));
    for (const TaskId* d = graph.deps_begin(t); d != graph.deps_end(t); ++d) succ_ids_[fill[*d]++] = t;
  }
  graph.for_each_order_link([&](TaskId previous, TaskId next) {
    if (order_next_[previous] == kNone) {
      order_next_[previous] = next;
    } else {  // a task before a group of tasks side by side (TaskGraph::append_beside_previous)
      if (order_more_.empty()) order_more_.resize(n);
      order_more_[previous].push_back(next);
    }
    ++waiting_[next];
  });
}

}  // namespace pipesim
