#include "sim/engine/executor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/deadlock.hpp"
#include "sim/engine/readiness.hpp"

namespace pipesim {
namespace {

namespace s4u = simgrid::s4u;
constexpr std::uintptr_t kTickTag = std::uintptr_t{1} << (sizeof(std::uintptr_t) * 8 - 1);  // marks ticks, not tasks

class Executor {
 public:
  Executor(s4u::Engine& engine, const std::vector<std::vector<s4u::Host*>>& hosts, const TaskGraph& graph)
      : engine_(engine), graph_(graph), readiness_(graph) {
    for (const auto& resources : hosts) devices_.push_back(resources.at(0));
    const size_t n = graph.size();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    timeline_.start.assign(n, nan);
    timeline_.finish.assign(n, nan);
    live_.resize(n);
    index_slots(hosts);
    ready_.resize(slot_host_.size());
    busy_.assign(slot_host_.size(), false);
    tick_.resize(slot_host_.size());
    greedy_.assign(slot_host_.size(), true);
    for (int d = 0; d < graph.device_count(); ++d)
      for (const TaskId t : graph.device_order(d)) greedy_[slot(t)] = false;
    index_links();
  }

  Timeline run() {
    s4u::Activity::on_completion_cb([this](const s4u::Activity& activity) { on_completion(activity); });
    for (TaskId t = 0; t < graph_.size(); ++t)
      if (readiness_.ready(t)) make_ready(t);
    settle();
    engine_.run();
    graveyard_.clear();
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
  // A slot runs one compute task at a time: a device's resource and lane.
  // With every task on resource 0, lane 0 (all schedules but seed 004's),
  // the slot is the device and slot_of_ stays empty.
  void index_slots(const std::vector<std::vector<s4u::Host*>>& hosts) {
    slot_host_ = devices_;
    bool lanes = false;
    for (const Task& task : graph_.tasks())
      if (!is_transfer(task.kind) && (task.resource != 0 || task.lane != 0)) lanes = true;
    if (!lanes) return;
    std::map<std::tuple<int, int, int>, std::uint32_t> index;
    for (int d = 0; d < graph_.device_count(); ++d) index[{d, 0, 0}] = d;
    slot_of_.resize(graph_.size());
    for (TaskId t = 0; t < graph_.size(); ++t) {
      const Task& task = graph_.task(t);
      if (is_transfer(task.kind)) continue;
      auto [it, inserted] = index.try_emplace({task.device, task.resource, task.lane},
                                              static_cast<std::uint32_t>(slot_host_.size()));
      if (inserted) slot_host_.push_back(hosts[task.device].at(task.resource));
      slot_of_[t] = it->second;
    }
  }
  std::uint32_t slot(TaskId t) const {
    return slot_of_.empty() ? static_cast<std::uint32_t>(graph_.task(t).device) : slot_of_[t];
  }

  // Every link gets a stable index (by name); routes are cached per device pair.
  void index_links() {
    auto links = engine_.get_all_links();
    std::sort(links.begin(), links.end(), [](auto* a, auto* b) { return a->get_name() < b->get_name(); });
    for (auto* link : links) {
      if (link->get_name() == "__loopback__") continue;  // SimGrid's internal self-route
      link_index_[link] = static_cast<std::uint32_t>(timeline_.links.size());
      timeline_.links.push_back({link->get_name(), link->get_bandwidth()});
    }
    for (TaskId t = 0; t < graph_.size(); ++t) {
      const Task& task = graph_.task(t);
      if (is_transfer(task.kind) && task.device != task.peer && task.amount > 0) {
        for (std::uint32_t l : route(task.device, task.peer)) timeline_.route_links.push_back(l);
      }
      timeline_.route_offsets.push_back(static_cast<std::uint32_t>(timeline_.route_links.size()));
    }
  }

  const std::vector<std::uint32_t>& route(int from, int to) {
    auto [it, inserted] = routes_.try_emplace({from, to});
    if (inserted) {
      std::vector<s4u::Link*> links;
      double latency = 0;
      devices_[from]->route_to(devices_[to], links, &latency);
      for (auto* link : links)
        if (auto found = link_index_.find(link); found != link_index_.end()) it->second.push_back(found->second);
    }
    return it->second;
  }

  void make_ready(TaskId t) {
    const Task& task = graph_.task(t);
    if (!is_transfer(task.kind)) {
      const std::uint32_t s = slot(t);
      ready_[s].push({task.priority, t});
      touched_.push_back(s);  // dispatched in settle(), once all ready tasks compete
      return;
    }
    timeline_.start[t] = s4u::Engine::get_clock();
    if (task.device == task.peer || task.amount <= 0) {
      instant_.push_back(t);  // nothing to move
      return;
    }
    auto comm = s4u::Comm::sendto_init(devices_[task.device], devices_[task.peer]);
    comm->set_payload_size(static_cast<std::uint64_t>(std::llround(task.amount)));
    launch(t, std::move(comm));
  }

  // A device without an order picks the best-priority ready task, so it must
  // see every task that becomes ready at this instant, including those whose
  // completions SimGrid reports later in the same round: a zero-flop tick
  // completes in the next round at the same clock, and dispatches then.
  void defer_dispatch(std::uint32_t s) {
    if (tick_[s] || busy_[s] || ready_[s].empty()) return;
    auto tick = s4u::Exec::init();
    tick->set_flops_amount(0);
    tick->set_host(slot_host_[s]);
    tick->set_data(reinterpret_cast<void*>(kTickTag | static_cast<std::uintptr_t>(s)));
    tick->start();
    tick_[s] = std::move(tick);
  }

  void dispatch(std::uint32_t s) {
    if (busy_[s] || ready_[s].empty()) return;
    const TaskId t = ready_[s].top().second;
    ready_[s].pop();
    busy_[s] = true;
    timeline_.start[t] = s4u::Engine::get_clock();
    const Task& task = graph_.task(t);
    if (task.amount <= 0) {
      instant_.push_back(t);
      return;
    }
    auto exec = s4u::Exec::init();
    exec->set_flops_amount(task.amount);
    exec->set_host(slot_host_[s]);
    // Lanes sharing a resource: each gets at most its share of the speed
    // (seed 004's beta); shares summing to 1 give each exactly its share.
    if (task.share < 1) exec->set_bound(task.share * slot_host_[s]->get_speed());
    launch(t, std::move(exec));
  }

  void launch(TaskId t, s4u::ActivityPtr activity) {
    activity->set_data(reinterpret_cast<void*>(static_cast<std::uintptr_t>(t) + 1));
    activity->start();
    live_[t] = std::move(activity);  // SimGrid frees an activity nobody holds
    readiness_.prefetch_successors(t);
  }

  void on_completion(const s4u::Activity& activity) {
    graveyard_.clear();  // released one callback late: SimGrid still uses the one completing now
    const auto tag = reinterpret_cast<std::uintptr_t>(activity.get_data<void>());
    if (tag == 0) return;  // not ours
    if (tag & kTickTag) {
      const auto s = static_cast<std::uint32_t>(tag & ~kTickTag);
      graveyard_.push_back(std::move(tick_[s]));
      dispatch(s);
      settle();
      return;
    }
    const TaskId t = static_cast<TaskId>(tag - 1);
    graveyard_.push_back(std::move(live_[t]));
    complete(t);
    settle();
  }

  void complete(TaskId t) {
    timeline_.finish[t] = s4u::Engine::get_clock();
    const Task& task = graph_.task(t);
    readiness_.complete(t, [this](TaskId next) { make_ready(next); });
    if (!is_transfer(task.kind)) {
      const std::uint32_t s = slot(t);
      busy_[s] = false;
      touched_.push_back(s);
    }
  }

  // Completes zero-cost tasks and starts work on idle devices until nothing
  // changes, without recursion.
  void settle() {
    while (!instant_.empty() || !touched_.empty()) {
      while (!instant_.empty()) {
        const TaskId t = instant_.back();
        instant_.pop_back();
        complete(t);
      }
      scratch_.swap(touched_);
      for (const std::uint32_t s : scratch_) (greedy_[s] ? defer_dispatch(s) : dispatch(s));
      scratch_.clear();
    }
  }

  using ReadyQueue = std::priority_queue<std::pair<double, TaskId>, std::vector<std::pair<double, TaskId>>,
                                         std::greater<>>;
  s4u::Engine& engine_;
  std::vector<s4u::Host*> devices_;    // each device's own host (resource 0)
  const TaskGraph& graph_;
  Readiness readiness_;
  std::vector<s4u::Host*> slot_host_;  // per slot; slots 0..devices-1 are the devices
  std::vector<std::uint32_t> slot_of_; // per task, empty when slot == device
  Timeline timeline_;
  std::vector<s4u::ActivityPtr> live_;
  std::vector<s4u::ActivityPtr> graveyard_;
  std::vector<ReadyQueue> ready_;        // per slot, as busy_, greedy_ and tick_
  std::vector<bool> busy_;
  std::vector<bool> greedy_;             // no ordered task: dispatch by priority, after a tick
  std::vector<s4u::ActivityPtr> tick_;  // its pending tick, if any
  std::vector<TaskId> instant_;
  std::vector<std::uint32_t> touched_;  // slots that may be able to start a task
  std::vector<std::uint32_t> scratch_;
  std::unordered_map<const s4u::Link*, std::uint32_t> link_index_;
  std::map<std::pair<int, int>, std::vector<std::uint32_t>> routes_;
};

}  // namespace

Timeline execute(s4u::Engine& engine, const std::vector<std::vector<s4u::Host*>>& hosts, const TaskGraph& graph) {
  return Executor(engine, hosts, graph).run();
}

}  // namespace pipesim
