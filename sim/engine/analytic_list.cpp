#include "sim/engine/analytic_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <unordered_map>
#include <utility>

#include "sim/deadlock.hpp"
#include "sim/engine/analytic_support.hpp"
#include "sim/engine/task_checks.hpp"

namespace pipesim {
namespace {

using namespace analytic;

// The fast path: every compute task in its device's order, one lane per
// device, so no choice is ever made and nothing waits but for what it
// depends on. Kahn's algorithm over data and order links gives each task
// start = the latest finish among them; a Shared link conflicts when two
// transfers' intervals overlap by at least surf/precision (less would end
// in one SimGrid round). Reads each Task once, in one streaming pass.
class ListSchedule {
 public:
  ListSchedule(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings)
      : graph_(graph), platform_(platform), settings_(settings) {
    const std::size_t n = graph.size();
    reserve_huge(nodes_, n);
    nodes_.resize(n);
    reserve_huge(succ_offsets_, n + 1);
    succ_offsets_.assign(n + 1, 0);
    reserve_huge(timeline_.route_offsets, n + 1);
    reserve_huge(timeline_.route_links, n);
    for (const NetworkLink& link : platform_.links) timeline_.links.push_back({link.name, link.bandwidth});
    links_.resize(platform_.links.size());
    std::vector<double> speed;  // each device's own host
    for (const Device& device : platform_.devices)
      speed.push_back(device.resources.empty() ? device.speed : device.resources[0].speed);
    const std::uint64_t devices = platform_.devices.size();
    route_table_.assign(devices * devices <= (1u << 22) ? devices * devices : 0, kNone);
    std::size_t computes = 0;
    bool suspicious = false;
    for (TaskId t = 0; t < n; ++t) {
      const Task& task = graph.task(t);
      Node& node = nodes_[t];
      node.waiting = static_cast<std::uint32_t>(graph.deps_end(t) - graph.deps_begin(t));
      for (const TaskId* d = graph.deps_begin(t); d != graph.deps_end(t); ++d) ++succ_offsets_[*d + 1];
      const bool transfer = is_transfer(task.kind);
      if (!(task.amount >= 0 && task.amount < 9.2e18)) suspicious = true;  // also NaN and inf
      if (transfer) {
        if (task.device != task.peer && task.amount > 0) {
          node.route = route(task);
          node.cost = static_cast<double>(std::llround(task.amount));
          const Route& r = routes_[node.route];
          timeline_.route_links.insert(timeline_.route_links.end(), r.links.begin(), r.links.end());
          if (!r.other.empty() && refusal_.empty())
            refusal_ = "transfer " + quoted(graph, t) + " crosses link " + r.other +
                       ", whose sharing (WIFI, NONLINEAR, or no link) the analytic engine does not model";
        } else {
          node.route = kInstant;
        }
      } else {
        ++computes;
        if (task.resource != 0 || task.lane != 0 || task.share != 1) {
          suspicious = true;
          lanes_ = true;
        }
        double duration = task.amount / speed.at(task.device);
        if (!settings_.bounded_cpu && duration < kTiEpsilon) duration = 0;  // as in the event replay
        node.route = kComputeFlag | static_cast<std::uint32_t>(task.device);
        node.cost = task.amount > 0 ? duration : 0;
      }
      timeline_.route_offsets.push_back(static_cast<std::uint32_t>(timeline_.route_links.size()));
    }
    std::size_t ordered = 0;
    for (int d = 0; d < graph.device_count(); ++d) ordered += graph.device_order(d).size();
    eligible_ = !lanes_ && ordered == computes;
    if (suspicious) {  // the precise input error, or a graph for the event replay
      std::vector<std::size_t> resources;
      for (const Device& device : platform_.devices) resources.push_back(std::max<std::size_t>(1, device.resources.size()));
      check_task_amounts(graph, resources, settings_.bounded_cpu);
    }
  }

  bool eligible() const { return eligible_; }

  AnalyticOutcome run() {
    if (!refusal_.empty()) return {std::nullopt, refusal_};
    index_successors();
    const std::size_t n = graph_.size();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    reserve_huge(timeline_.start, n);
    reserve_huge(timeline_.finish, n);
    timeline_.start.assign(n, 0);
    timeline_.finish.assign(n, nan);
    // Each device runs its order: a compute task goes when its data is there
    // and it is at its device's cursor (the order links, without storing them).
    const int devices = graph_.device_count();
    std::vector<std::size_t> cursor(devices, 0);
    std::vector<double> free_at(devices, 0);
    std::deque<TaskId> queue;
    auto at_cursor = [&](TaskId t, std::uint32_t d) {
      const std::vector<TaskId>& order = graph_.device_order(static_cast<int>(d));
      return cursor[d] < order.size() && order[cursor[d]] == t;
    };
    auto data_ready = [&](TaskId t) {
      const std::uint32_t route = nodes_[t].route;
      if (!(route & kComputeFlag) || at_cursor(t, route & ~kComputeFlag)) queue.push_back(t);
    };
    for (TaskId t = 0; t < n; ++t)
      if (nodes_[t].waiting == 0) data_ready(t);
    while (!queue.empty()) {
      const TaskId t = queue.front();
      queue.pop_front();
      const Node& node = nodes_[t];
      double& start = timeline_.start[t];
      double finish = start;
      if (node.route & kComputeFlag) {
        const std::uint32_t d = node.route & ~kComputeFlag;
        if (free_at[d] > start) start = free_at[d];
        finish = start + node.cost;
        free_at[d] = finish;
        const std::vector<TaskId>& order = graph_.device_order(static_cast<int>(d));
        if (++cursor[d] < order.size()) {
          const TaskId next = order[cursor[d]];
          if (nodes_[next].waiting == 0) {
            if (finish > timeline_.start[next]) timeline_.start[next] = finish;
            queue.push_back(next);
          }
        }
      } else if (node.route != kInstant) {
        const Route& r = routes_[node.route];
        finish = (r.latency > 0 ? r.latency + start : start) + node.cost / r.bandwidth;
        occupy(t, r, start, finish);
      }
      timeline_.finish[t] = finish;
      for (std::uint32_t i = succ_offsets_[t]; i < succ_offsets_[t + 1]; ++i) {
        const TaskId next = succ_ids_[i];
        double& s = timeline_.start[next];
        if (finish > s) s = finish;
        if (--nodes_[next].waiting == 0) data_ready(next);
      }
    }
    check_unsorted_links();
    if (conflict_.second != kNone) return {std::nullopt, conflict_message()};
    timeline_.makespan = 0;
    for (TaskId t = 0; t < n; ++t) {
      if (std::isnan(timeline_.finish[t])) {
        timeline_.start[t] = nan;
        timeline_.blocked.push_back(t);
      } else {
        timeline_.makespan = std::max(timeline_.makespan, timeline_.finish[t]);
      }
    }
    if (!timeline_.blocked.empty()) timeline_.deadlock = explain_deadlock(graph_, timeline_);
    return {std::move(timeline_), {}};
  }

 private:
  static constexpr std::uint32_t kComputeFlag = 0x80000000u;  // | device
  static constexpr std::uint32_t kInstant = kComputeFlag - 1;  // a transfer that moves nothing

  struct Node {
    double cost = 0;           // compute: seconds; transfer: bytes
    std::uint32_t route = 0;   // transfers: index into routes_ or kInstant; compute: kComputeFlag | device
    std::uint32_t waiting = 0; // unfinished data dependencies
  };
  // What a Shared link has carried, in the order the pass met its transfers.
  struct LinkState {
    double last_start = 0, max_finish = 0;
    TaskId holder = kNone;  // the transfer that ends last so far
    bool unsorted = false;  // met out of time order: checked by sorting at the end
  };

  std::uint32_t route(const Task& task) {
    const std::uint64_t devices = platform_.devices.size();
    const std::uint64_t key = static_cast<std::uint64_t>(task.device) * devices + static_cast<std::uint64_t>(task.peer);
    std::uint32_t& id = route_table_.empty() ? route_map_.try_emplace(key, kNone).first->second : route_table_[key];
    if (id == kNone) {
      id = static_cast<std::uint32_t>(routes_.size());
      routes_.push_back(make_route(task, platform_.path(task.device, task.peer)));
    }
    return id;
  }

  Route make_route(const Task& task, const Path& path) {
    Route r = analytic::make_route(task, path, platform_, private_names_);
    links_.resize(platform_.links.size() + private_names_.size());
    return r;
  }

  void index_successors() {
    const std::size_t n = graph_.size();
    for (std::size_t i = 0; i < n; ++i) succ_offsets_[i + 1] += succ_offsets_[i];
    reserve_huge(succ_ids_, graph_.dependency_count());
    succ_ids_.resize(graph_.dependency_count());
    std::vector<std::uint32_t> fill(succ_offsets_.begin(), succ_offsets_.end() - 1);
    for (TaskId t = 0; t < n; ++t)
      for (const TaskId* d = graph_.deps_begin(t); d != graph_.deps_end(t); ++d) succ_ids_[fill[*d]++] = t;
  }

  void occupy(TaskId t, const Route& r, double start, double finish) {
    for (const std::uint32_t l : r.shared) {
      LinkState& link = links_[l];
      if (link.holder == kNone) {
        link = {start, finish, t, false};
      } else if (link.unsorted) {
        continue;
      } else if (start >= link.last_start) {
        if (start + settings_.timing_precision <= link.max_finish) conflict(start, link.holder, t, l);
        link.last_start = start;
        if (finish > link.max_finish) {
          link.max_finish = finish;
          link.holder = t;
        }
      } else {
        link.unsorted = true;
      }
    }
  }

  void conflict(double at, TaskId first, TaskId second, std::uint32_t link) {
    if (conflict_.second == kNone || at < conflict_time_) {
      conflict_time_ = at;
      conflict_ = {first, second};
      conflict_link_ = link;
    }
  }

  // Links met out of time order: their transfers sorted by start, then the same test.
  void check_unsorted_links() {
    std::vector<std::uint32_t> unsorted;
    for (std::uint32_t l = 0; l < links_.size(); ++l)
      if (links_[l].unsorted) unsorted.push_back(l);
    if (unsorted.empty()) return;
    std::unordered_map<std::uint32_t, std::vector<std::pair<double, TaskId>>> carried;
    for (const std::uint32_t l : unsorted) carried[l];
    for (TaskId t = 0; t < graph_.size(); ++t) {
      const Node& node = nodes_[t];
      if (node.route >= kInstant || std::isnan(timeline_.finish[t])) continue;  // compute tasks, empty transfers
      for (const std::uint32_t l : routes_[node.route].shared)
        if (const auto it = carried.find(l); it != carried.end()) it->second.push_back({timeline_.start[t], t});
    }
    for (auto& [l, transfers] : carried) {
      std::sort(transfers.begin(), transfers.end());
      double max_finish = -std::numeric_limits<double>::infinity();
      TaskId holder = kNone;
      for (const auto& [start, t] : transfers) {
        if (holder != kNone && start + settings_.timing_precision <= max_finish) conflict(start, holder, t, l);
        if (timeline_.finish[t] > max_finish) {
          max_finish = timeline_.finish[t];
          holder = t;
        }
      }
    }
  }

  std::string conflict_message() const {
    return contention(graph_, conflict_.first, conflict_.second, link_name(conflict_link_, platform_, private_names_),
                      conflict_time_);
  }

  const TaskGraph& graph_;
  const Platform& platform_;
  const AnalyticSettings settings_;
  Timeline timeline_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> succ_offsets_;
  std::vector<TaskId> succ_ids_;
  std::vector<Route> routes_;
  std::vector<std::uint32_t> route_table_;
  std::unordered_map<std::uint64_t, std::uint32_t> route_map_;
  std::vector<LinkState> links_;
  std::vector<std::string> private_names_;
  bool lanes_ = false, eligible_ = false;
  std::string refusal_;
  std::pair<TaskId, TaskId> conflict_{kNone, kNone};
  double conflict_time_ = 0;
  std::uint32_t conflict_link_ = 0;
};

}  // namespace

std::optional<AnalyticOutcome> list_schedule(const TaskGraph& graph, const Platform& platform,
                                             const AnalyticSettings& settings) {
  ListSchedule list(graph, platform, settings);
  if (!list.eligible()) return std::nullopt;
  return list.run();
}

}  // namespace pipesim
