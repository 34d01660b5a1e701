// When a task may start: its data dependencies and its device order,
// counted down as tasks complete. Both engines (the SimGrid executor and the
// analytic replay) dispatch by this one class, so they cannot disagree on
// what becomes ready when, nor on the order in which they hear of it.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "sim/task_graph.hpp"

namespace pipesim {

class Readiness {
 public:
  explicit Readiness(const TaskGraph& graph);

  bool ready(TaskId t) const { return waiting_[t] == 0; }

  // t completed: calls now_ready(next) for every task this makes ready, data
  // successors first, then the next task of t's device order, then the
  // tasks of a group after it (TaskGraph::append_beside_previous).
  template <class F>
  void complete(TaskId t, F now_ready) {
    for (std::uint32_t i = succ_offsets_[t]; i < succ_offsets_[t + 1]; ++i)
      if (--waiting_[succ_ids_[i]] == 0) now_ready(succ_ids_[i]);
    if (order_next_[t] != kNone && --waiting_[order_next_[t]] == 0) now_ready(order_next_[t]);
    if (!order_more_.empty())
      for (const TaskId next : order_more_[t])
        if (--waiting_[next] == 0) now_ready(next);
  }

  // Fetches into the cache what complete(t) will touch: t's successors are
  // read long after it starts, and their cache misses dominated the engines'
  // own share of the time.
  void prefetch_successors(TaskId t) const {
    auto touch = [&](TaskId s) { __builtin_prefetch(&waiting_[s]); };
    for (std::uint32_t i = succ_offsets_[t]; i < succ_offsets_[t + 1]; ++i) touch(succ_ids_[i]);
    if (order_next_[t] != kNone) touch(order_next_[t]);
  }

 private:
  static constexpr TaskId kNone = std::numeric_limits<TaskId>::max();
  std::vector<std::uint32_t> waiting_;  // per task: unfinished dependencies and order predecessors
  std::vector<std::uint32_t> succ_offsets_;
  std::vector<TaskId> succ_ids_;                 // data successors, compressed rows
  std::vector<TaskId> order_next_;               // the next task of its device order, or kNone
  std::vector<std::vector<TaskId>> order_more_;  // further order successors; empty unless a graph has groups
};

}  // namespace pipesim
