// The engines' dispatch policy, in one place: when a task is ready
// (readiness.hpp), which ready task a compute slot starts, zero-cost tasks
// completed at once, and a greedy slot's choice put off by one round. The
// SimGrid executor (executor.cpp) and the analytic replay
// (analytic_replay.cpp) are its two drivers: a driver starts what the policy
// asks for (on SimGrid, or as events of its own) and tells it what ended.
// So the two engines cannot differ in what starts when, nor in the order
// they hear of it.
//
// A Driver provides (called back while the policy runs; a template
// parameter, not virtual calls, as the replay calls them per event):
//   double now() const;                             the clock
//   void start_transfer(TaskId t);                  t has bytes to move
//   void start_compute(std::uint32_t slot, TaskId t);  t has work (amount > 0)
//   void start_tick(std::uint32_t slot);            a zero-length wait of a greedy slot
//   void joining(std::uint32_t slot, const ReadyKey& key, const ReadyQueue& queue);
//       a compute task is about to join its slot's ready queue
//   void choosing(std::uint32_t slot, const ReadyQueue& queue);
//       the slot is about to start queue.top()
// and calls start() once, then completed(t) when t's activity ends and
// tick_fired(slot) when a tick ends, then takes the timeline.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "sim/deadlock.hpp"
#include "sim/engine/readiness.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

// A slot runs one compute task at a time: a device's resource and lane.
// Slot d is device d's (resource 0, lane 0); the others follow in the order
// of their first task. With every task on resource 0, lane 0 (all schedules
// but seed 004's), the slot is the device.
class Slots {
 public:
  explicit Slots(const TaskGraph& graph);

  std::uint32_t count() const { return static_cast<std::uint32_t>(device_.size()); }
  std::uint32_t of(TaskId t) const { return of_.empty() ? static_cast<std::uint32_t>(graph_->task(t).device) : of_[t]; }
  int device(std::uint32_t s) const { return device_[s]; }
  int resource(std::uint32_t s) const { return resource_[s]; }
  bool lanes() const { return !of_.empty(); }
  // No task of the slot is in its device's order: it takes the best priority.
  bool greedy(std::uint32_t s) const { return greedy_[s]; }

 private:
  const TaskGraph* graph_;
  std::vector<std::uint32_t> of_;  // per task, empty when slot == device
  std::vector<int> device_, resource_;
  std::vector<bool> greedy_;
};

using ReadyKey = std::pair<double, TaskId>;  // (priority, task): the lowest starts first
using ReadyQueue = std::priority_queue<ReadyKey, std::vector<ReadyKey>, std::greater<>>;

template <class Driver>
class Dispatch {
 public:
  Dispatch(const TaskGraph& graph, Driver& driver) : graph_(graph), driver_(driver), readiness_(graph), slots_(graph) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    timeline_.start.assign(graph.size(), nan);
    timeline_.finish.assign(graph.size(), nan);
    ready_.resize(slots_.count());
    busy_.assign(slots_.count(), false);
    tick_pending_.assign(slots_.count(), false);
  }

  const Slots& slots() const { return slots_; }
  std::uint32_t slot(TaskId t) const { return slots_.of(t); }
  // The timeline being filled: drivers add the links and routes.
  Timeline& timeline() { return timeline_; }

  // Makes ready every task that waits for nothing.
  void start() {
    for (TaskId t = 0; t < graph_.size(); ++t)
      if (readiness_.ready(t)) make_ready(t);
    settle();
  }

  void completed(TaskId t) {
    complete(t);
    settle();
  }

  void tick_fired(std::uint32_t s) {
    tick_pending_[s] = false;
    dispatch(s);
    settle();
  }

  // Once nothing runs: the makespan, and what a deadlock left unfinished.
  Timeline take_timeline() {
    timeline_.makespan = 0;
    for (TaskId t = 0; t < graph_.size(); ++t) {
      if (std::isnan(timeline_.finish[t]))
        timeline_.blocked.push_back(t);
      else
        timeline_.makespan = std::max(timeline_.makespan, timeline_.finish[t]);
    }
    if (!timeline_.blocked.empty()) timeline_.deadlock = explain_deadlock(graph_, timeline_);
    return std::move(timeline_);
  }

 private:
  void make_ready(TaskId t) {
    const Task& task = graph_.task(t);
    if (!is_transfer(task.kind)) {
      const std::uint32_t s = slot(t);
      const ReadyKey key{task.priority, t};
      driver_.joining(s, key, ready_[s]);
      ready_[s].push(key);
      touched_.push_back(s);  // dispatched in settle(), once all ready tasks compete
      return;
    }
    timeline_.start[t] = driver_.now();
    if (task.device == task.peer || task.amount <= 0) {
      instant_.push_back(t);  // nothing to move
      return;
    }
    driver_.start_transfer(t);
    readiness_.prefetch_successors(t);
  }

  // A device without an order picks the best-priority ready task, so it must
  // see every task that becomes ready at this instant, including those whose
  // completions come later in the same round: a zero-length tick ends in the
  // next round at the same clock, and dispatches then.
  void defer_dispatch(std::uint32_t s) {
    if (tick_pending_[s] || busy_[s] || ready_[s].empty()) return;
    tick_pending_[s] = true;
    driver_.start_tick(s);
  }

  void dispatch(std::uint32_t s) {
    if (busy_[s] || ready_[s].empty()) return;
    driver_.choosing(s, ready_[s]);
    const TaskId t = ready_[s].top().second;
    ready_[s].pop();
    busy_[s] = true;
    timeline_.start[t] = driver_.now();
    if (graph_.task(t).amount <= 0) {
      instant_.push_back(t);
      return;
    }
    driver_.start_compute(s, t);
    readiness_.prefetch_successors(t);
  }

  void complete(TaskId t) {
    timeline_.finish[t] = driver_.now();
    readiness_.complete(t, [this](TaskId next) { make_ready(next); });
    if (!is_transfer(graph_.task(t).kind)) {
      const std::uint32_t s = slot(t);
      busy_[s] = false;
      touched_.push_back(s);
    }
  }

  // Completes zero-cost tasks and starts work on idle slots until nothing
  // changes, without recursion.
  void settle() {
    while (!instant_.empty() || !touched_.empty()) {
      while (!instant_.empty()) {
        const TaskId t = instant_.back();
        instant_.pop_back();
        complete(t);
      }
      scratch_.swap(touched_);
      for (const std::uint32_t s : scratch_) (slots_.greedy(s) ? defer_dispatch(s) : dispatch(s));
      scratch_.clear();
    }
  }

  const TaskGraph& graph_;
  Driver& driver_;
  Readiness readiness_;
  Slots slots_;
  Timeline timeline_;
  std::vector<ReadyQueue> ready_;  // per slot, as busy_ and tick_pending_
  std::vector<bool> busy_, tick_pending_;
  std::vector<TaskId> instant_;         // started, nothing to do: completed in settle()
  std::vector<std::uint32_t> touched_;  // slots that may be able to start a task
  std::vector<std::uint32_t> scratch_;
};

}  // namespace pipesim
