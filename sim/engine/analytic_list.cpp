#include "sim/engine/analytic_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <tuple>
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
// depends on: a task starts at the latest finish among its dependencies and
// the previous task of its device's order. A Shared link conflicts when two
// transfers' data phases (after their latency) overlap by at least
// surf/precision (less would end in one SimGrid round).
//
// What a task costs and where it runs are functions of its shape, worked
// out once per shape; per task the pass keeps nothing but the Timeline it
// returns. Dependencies have smaller ids than their task (TaskGraph::add),
// so when every device order runs in increasing id the pass is one sweep in
// id order (ListPass::IdOrder); otherwise Kahn's algorithm over data and
// order links (ListPass::Queue), which also leaves a deadlock's tasks unrun.
class ListSchedule {
 public:
  ListSchedule(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings)
      : graph_(graph), platform_(platform), settings_(settings) {
    for (const NetworkLink& link : platform_.links) timeline_.links.push_back({link.name, link.bandwidth});
    links_.resize(platform_.links.size());
    std::vector<double> speed;  // each device's own host
    for (const Device& device : platform_.devices)
      speed.push_back(device.resources.empty() ? device.speed : device.resources[0].speed);
    bool suspicious = false, lanes = false;
    shapes_.resize(graph.shape_count());
    for (std::uint32_t s = 0; s < graph.shape_count();
         ++s) {  // in id order: routes made in the order of their first task
      const Task& task = graph.shape(s).task;
      Cost& cost = shapes_[s];
      if (!(task.amount >= 0 && task.amount < 9.2e18)) suspicious = true;  // also NaN and inf
      if (is_transfer(task.kind)) {
        if (task.device != task.peer && task.amount > 0) {
          cost.route = route(task);
          const Route& r = routes_[cost.route];
          cost.seconds = static_cast<double>(std::llround(task.amount)) / r.alone_bandwidth;
          cost.latency = r.latency;
        } else {
          cost.route = kInstant;
        }
      } else {
        if (task.resource != 0 || task.lane != 0 || task.share != 1) suspicious = lanes = true;
        double duration = task.amount / speed.at(task.device);
        if (!settings_.bounded_cpu && duration < kTiEpsilon) duration = 0;  // as in the event replay
        cost.route = kComputeFlag | static_cast<std::uint32_t>(task.device);
        cost.seconds = task.amount > 0 ? duration : 0;
      }
    }
    if (!lanes) count_tasks();
    std::size_t ordered = 0;
    for (int d = 0; d < graph.device_count(); ++d) ordered += graph.device_order(d).size();
    eligible_ = !lanes && ordered == computes_;
    if (suspicious) {  // the precise input error, or a graph for the event replay
      std::vector<std::size_t> resources;
      for (const Device& device : platform_.devices)
        resources.push_back(std::max<std::size_t>(1, device.resources.size()));
      check_task_amounts(graph, resources, settings_.bounded_cpu);
    }
  }

  bool eligible() const { return eligible_; }

  AnalyticOutcome run(ListPass pass, ListPass* taken) {
    if (!refusal_.empty()) return {std::nullopt, refusal_};
    const std::size_t n = graph_.size();
    reserve_huge(timeline_.start, n);
    reserve_huge(timeline_.finish, n);
    if (settings_.routes) {
      reserve_huge(timeline_.route_offsets, n + 1);
      reserve_huge(timeline_.route_links, route_link_count_);
    }
    bool finished = false;  // start, finish and makespan final
    ListPass used = ListPass::IdOrder;
    if (pass == ListPass::Queue || !orders_increase() || !id_order_pass(finished)) {
      restart();
      queue_pass();
      used = ListPass::Queue;
    }
    if (taken) *taken = used;
    if (stopped()) return {std::nullopt, conflict_message()};
    if (!settings_.ignore_sharing) {
      check_unsorted_links();
      if (conflict_.second != kNone) return {std::nullopt, conflict_message()};
    }
    if (!finished) finish_timeline();
    return {std::move(timeline_), {}};
  }

 private:
  static constexpr std::uint32_t kComputeFlag = 0x80000000u;   // | device
  static constexpr std::uint32_t kInstant = kComputeFlag - 1;  // a transfer that moves nothing

  // What every task of a shape costs, and where.
  struct Cost {
    double seconds = 0;       // compute: its duration; transfer: bytes / bandwidth
    double latency = 0;       // transfer: its route's
    std::uint32_t route = 0;  // transfers: index into routes_ or kInstant; compute: kComputeFlag | device
  };
  // What a Shared link has carried, in the order the pass met its transfers.
  struct LinkState {
    double last_start = 0, max_finish = 0;
    TaskId last = kNone;    // the transfer met last
    TaskId holder = kNone;  // the transfer that ends last so far
    bool unsorted = false;  // met out of (start, id) order: checked by sorting at the end
  };

  static double nan() { return std::numeric_limits<double>::quiet_NaN(); }

  // Compute tasks, route links for the timeline's exact reservation, and
  // the first transfer over a link the engine does not model: from how many
  // tasks each shape has.
  void count_tasks() {
    std::vector<std::uint32_t> tasks_of(shapes_.size(), 0);
    for (TaskId t = 0; t < graph_.size(); ++t) ++tasks_of[graph_.shape_of(t)];
    bool refused = false;
    for (std::uint32_t s = 0; s < shapes_.size(); ++s) {
      const std::uint32_t r = shapes_[s].route;
      if (r & kComputeFlag) {
        computes_ += tasks_of[s];
      } else if (r != kInstant) {
        route_link_count_ += std::size_t{tasks_of[s]} * routes_[r].links.size();
        refused = refused || (tasks_of[s] > 0 && !routes_[r].other.empty());
      }
    }
    for (TaskId t = 0; refused && t < graph_.size(); ++t) {
      const std::uint32_t r = shapes_[graph_.shape_of(t)].route;
      if (r < kInstant && !routes_[r].other.empty()) {
        refusal_ = "transfer " + quoted(graph_, t) + " crosses link " + routes_[r].other +
                   ", whose sharing (WIFI, NONLINEAR, or no link) the analytic engine does not model";
        break;
      }
    }
  }

  // A transfer's finish; checks its Shared links over its data phase, after
  // its latency (SimGrid's CM02 holds no bandwidth while latency elapses).
  double transfer_finish(TaskId t, const Cost& c, double start) {
    const double data = c.latency > 0 ? c.latency + start : start;
    const double finish = data + c.seconds;
    if (!settings_.ignore_sharing) occupy(t, routes_[c.route], data, finish);
    return finish;
  }

  void add_route_row(const Cost& c) {
    if (!settings_.routes) return;
    if (!(c.route & kComputeFlag) && c.route != kInstant) {
      append_route(timeline_, routes_[c.route]);
    }
    timeline_.route_offsets.push_back(static_cast<std::uint32_t>(timeline_.route_links.size()));
  }

  // A conflict met with settings_.stop_at_conflict: the pass ends there.
  bool stopped() const { return settings_.stop_at_conflict && conflict_.second != kNone; }

  bool orders_increase() const {
    for (int d = 0; d < graph_.device_count(); ++d) {
      const std::vector<TaskId>& order = graph_.device_order(d);
      for (std::size_t i = 1; i < order.size(); ++i)
        if (order[i] <= order[i - 1]) return false;
    }
    return true;
  }

  // Every task after all it waits for: its dependencies have smaller ids,
  // and so has the previous task of its device's order. False (and a
  // timeline to throw away) when a compute task is not next in its
  // device's order: some order holds a transfer, for the queue pass to run.
  bool id_order_pass(bool& finished) {
    const int devices = graph_.device_count();
    std::vector<double> free_at(devices, 0);
    std::vector<std::size_t> cursor(devices, 0);
    double makespan = 0;
    bool unfinished = false;  // a NaN finish
    for (TaskId t = 0; t < graph_.size(); ++t) {
      const Cost& c = shapes_[graph_.shape_of(t)];
      double start = 0;
      for (const TaskId* d = graph_.deps_begin(t); d != graph_.deps_end(t); ++d)
        if (timeline_.finish[*d] > start) start = timeline_.finish[*d];
      double finish = start;
      if (c.route & kComputeFlag) {
        const std::uint32_t d = c.route & ~kComputeFlag;
        const std::vector<TaskId>& order = graph_.device_order(static_cast<int>(d));
        if (cursor[d] == order.size() || order[cursor[d]] != t) return false;
        ++cursor[d];
        if (free_at[d] > start) start = free_at[d];
        finish = start + c.seconds;
        free_at[d] = finish;
      } else if (c.route != kInstant) {
        finish = transfer_finish(t, c, start);
        if (stopped()) return true;
      }
      timeline_.start.push_back(start);
      timeline_.finish.push_back(finish);
      add_route_row(c);
      if (std::isnan(finish))
        unfinished = true;
      else
        makespan = std::max(makespan, finish);
    }
    timeline_.makespan = makespan;
    finished = !unfinished;
    return true;
  }

  // Back to before any pass.
  void restart() {
    timeline_.start.clear();
    timeline_.finish.clear();
    timeline_.route_offsets.resize(1);
    timeline_.route_links.clear();
    links_.assign(links_.size(), LinkState{});
    conflict_ = {kNone, kNone};
  }

  // Tasks that never finished are blocked (a deadlock); the makespan is the latest finish.
  void finish_timeline() {
    timeline_.makespan = 0;
    for (TaskId t = 0; t < graph_.size(); ++t) {
      if (std::isnan(timeline_.finish[t])) {
        timeline_.start[t] = nan();
        timeline_.blocked.push_back(t);
      } else {
        timeline_.makespan = std::max(timeline_.makespan, timeline_.finish[t]);
      }
    }
    if (!timeline_.blocked.empty()) timeline_.deadlock = explain_deadlock(graph_, timeline_);
  }

  // Kahn's algorithm: each device runs its order, a compute task going when
  // its data is there and it is at its device's cursor (the order links,
  // without storing them).
  void queue_pass() {
    const std::size_t n = graph_.size();
    for (TaskId t = 0; t < n; ++t) add_route_row(shapes_[graph_.shape_of(t)]);
    std::vector<std::uint32_t> waiting(n), succ_offsets(n + 1, 0);
    for (TaskId t = 0; t < n; ++t) {
      waiting[t] = static_cast<std::uint32_t>(graph_.deps_end(t) - graph_.deps_begin(t));
      for (const TaskId* d = graph_.deps_begin(t); d != graph_.deps_end(t); ++d) ++succ_offsets[*d + 1];
    }
    for (std::size_t i = 0; i < n; ++i) succ_offsets[i + 1] += succ_offsets[i];
    std::vector<TaskId> succ_ids(graph_.dependency_count());
    {
      std::vector<std::uint32_t> fill(succ_offsets.begin(), succ_offsets.end() - 1);
      for (TaskId t = 0; t < n; ++t)
        for (const TaskId* d = graph_.deps_begin(t); d != graph_.deps_end(t); ++d) succ_ids[fill[*d]++] = t;
    }
    timeline_.start.assign(n, 0);
    timeline_.finish.assign(n, nan());
    const int devices = graph_.device_count();
    std::vector<std::size_t> cursor(devices, 0);
    std::vector<double> free_at(devices, 0);
    std::deque<TaskId> queue;
    auto route_of = [&](TaskId t) { return shapes_[graph_.shape_of(t)].route; };
    auto at_cursor = [&](TaskId t, std::uint32_t d) {
      const std::vector<TaskId>& order = graph_.device_order(static_cast<int>(d));
      return cursor[d] < order.size() && order[cursor[d]] == t;
    };
    auto data_ready = [&](TaskId t) {
      const std::uint32_t route = route_of(t);
      if (!(route & kComputeFlag) || at_cursor(t, route & ~kComputeFlag)) queue.push_back(t);
    };
    for (TaskId t = 0; t < n; ++t)
      if (waiting[t] == 0) data_ready(t);
    while (!queue.empty()) {
      const TaskId t = queue.front();
      queue.pop_front();
      const Cost& c = shapes_[graph_.shape_of(t)];
      double& start = timeline_.start[t];
      double finish;
      if (c.route & kComputeFlag) {
        const std::uint32_t d = c.route & ~kComputeFlag;
        if (free_at[d] > start) start = free_at[d];
        finish = start + c.seconds;
        free_at[d] = finish;
        const std::vector<TaskId>& order = graph_.device_order(static_cast<int>(d));
        if (++cursor[d] < order.size()) {
          const TaskId next = order[cursor[d]];
          if (waiting[next] == 0) {
            if (finish > timeline_.start[next]) timeline_.start[next] = finish;
            queue.push_back(next);
          }
        }
      } else {
        finish = c.route == kInstant ? start : transfer_finish(t, c, start);
        if (stopped()) return;
      }
      timeline_.finish[t] = finish;
      for (std::uint32_t i = succ_offsets[t]; i < succ_offsets[t + 1]; ++i) {
        const TaskId next = succ_ids[i];
        double& s = timeline_.start[next];
        if (finish > s) s = finish;
        if (--waiting[next] == 0) data_ready(next);
      }
    }
  }

  std::uint32_t route(const Task& task) {
    const std::uint64_t key =
        static_cast<std::uint64_t>(task.device) * platform_.devices.size() + static_cast<std::uint64_t>(task.peer);
    std::uint32_t& id = route_map_.try_emplace(key, kNone).first->second;
    if (id == kNone) {
      id = static_cast<std::uint32_t>(routes_.size());
      routes_.push_back(make_route(task, platform_.path(task.device, task.peer), platform_, private_names_));
      links_.resize(platform_.links.size() + private_names_.size());
    }
    return id;
  }

  // Transfers met in (start, id) order are checked as they come; a link
  // that sees one out of that order is checked by sorting at the end, so
  // the verdict and the pair named do not depend on the pass.
  void occupy(TaskId t, const Route& r, double start, double finish) {
    for (std::uint32_t i = 0; i < r.shared.size(); ++i) {
      const std::uint32_t l = r.shared[i];
      LinkState& link = links_[l];
      if (link.holder == kNone) {
        link = {start, finish, t, t, false};
      } else if (link.unsorted) {
        continue;
      } else if (start > link.last_start || (start == link.last_start && t > link.last)) {
        if (start + settings_.timing_precision <= link.max_finish) conflict(start, link.holder, t, i);
        link.last_start = start;
        link.last = t;
        if (finish > link.max_finish) {
          link.max_finish = finish;
          link.holder = t;
        }
      } else {
        link.unsorted = true;
      }
    }
  }

  // The earliest conflict whatever the pass's order: at equal times the
  // smallest second transfer, then its first conflicting link along its
  // route (as the event replay names the link), then the smallest first.
  // position: the link's index in second's Route::shared.
  void conflict(double at, TaskId first, TaskId second, std::uint32_t position) {
    if (conflict_.second == kNone ||
        std::tie(at, second, position, first) <
            std::tie(conflict_time_, conflict_.second, conflict_position_, conflict_.first)) {
      conflict_time_ = at;
      conflict_ = {first, second};
      conflict_position_ = position;
    }
  }

  // Links met out of order: their transfers sorted by (start, id), then the
  // same test. Kept small: 4 bytes per transfer on such a link (task ids in
  // one array, bucketed by link), sorted one link at a time.
  void check_unsorted_links() {
    std::vector<std::uint32_t> unsorted;
    for (std::uint32_t l = 0; l < links_.size(); ++l)
      if (links_[l].unsorted) unsorted.push_back(l);
    if (unsorted.empty()) return;
    std::vector<std::vector<std::uint32_t>> buckets_of(routes_.size());  // per route: its unsorted links' buckets
    for (std::uint32_t r = 0; r < routes_.size(); ++r)
      for (const std::uint32_t l : routes_[r].shared)
        if (const auto it = std::lower_bound(unsorted.begin(), unsorted.end(), l); it != unsorted.end() && *it == l)
          buckets_of[r].push_back(static_cast<std::uint32_t>(it - unsorted.begin()));
    auto for_each_carried = [&](auto f) {
      for (TaskId t = 0; t < graph_.size(); ++t) {
        const std::uint32_t route = shapes_[graph_.shape_of(t)].route;
        if (route >= kInstant || buckets_of[route].empty() || std::isnan(timeline_.finish[t])) continue;
        for (const std::uint32_t b : buckets_of[route]) f(b, t);
      }
    };
    std::vector<std::uint32_t> offsets(unsorted.size() + 1, 0);
    for_each_carried([&](std::uint32_t b, TaskId) { ++offsets[b + 1]; });
    for (std::size_t b = 0; b < unsorted.size(); ++b) offsets[b + 1] += offsets[b];
    std::vector<TaskId> carried(offsets.back());
    std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
    for_each_carried([&](std::uint32_t b, TaskId t) { carried[fill[b]++] = t; });
    std::vector<std::pair<double, TaskId>> transfers;
    for (std::size_t b = 0; b < unsorted.size(); ++b) {
      const std::uint32_t l = unsorted[b];
      transfers.clear();
      for (std::uint32_t i = offsets[b]; i < offsets[b + 1]; ++i) {  // by the start of their data phases
        const TaskId t = carried[i];
        const double latency = routes_[shapes_[graph_.shape_of(t)].route].latency;
        transfers.push_back({latency > 0 ? latency + timeline_.start[t] : timeline_.start[t], t});
      }
      std::sort(transfers.begin(), transfers.end());
      double max_finish = -std::numeric_limits<double>::infinity();
      TaskId holder = kNone;
      for (const auto& [start, t] : transfers) {
        if (holder != kNone && start + settings_.timing_precision <= max_finish) {
          const std::vector<std::uint32_t>& shared = routes_[shapes_[graph_.shape_of(t)].route].shared;
          conflict(start, holder, t,
                   static_cast<std::uint32_t>(std::find(shared.begin(), shared.end(), l) - shared.begin()));
        }
        if (timeline_.finish[t] > max_finish) {
          max_finish = timeline_.finish[t];
          holder = t;
        }
      }
    }
  }

  std::string conflict_message() const {
    const std::uint32_t link = routes_[shapes_[graph_.shape_of(conflict_.second)].route].shared[conflict_position_];
    return contention(graph_, conflict_.first, conflict_.second, link_name(link, platform_, private_names_),
                      conflict_time_);
  }

  const TaskGraph& graph_;
  const Platform& platform_;
  const AnalyticSettings settings_;
  Timeline timeline_;
  std::vector<Cost> shapes_;  // per shape id
  std::size_t computes_ = 0, route_link_count_ = 0;
  std::vector<Route> routes_;
  std::unordered_map<std::uint64_t, std::uint32_t> route_map_;  // device * devices + peer -> route
  std::vector<LinkState> links_;
  std::vector<std::string> private_names_;
  bool eligible_ = false;
  std::string refusal_;
  std::pair<TaskId, TaskId> conflict_{kNone, kNone};
  double conflict_time_ = 0;
  std::uint32_t conflict_position_ = 0;
};

}  // namespace

std::optional<AnalyticOutcome> list_schedule(const TaskGraph& graph, const Platform& platform,
                                             const AnalyticSettings& settings, ListPass pass, ListPass* taken) {
  ListSchedule list(graph, platform, settings);
  if (!list.eligible()) return std::nullopt;
  return list.run(pass, taken);
}

}  // namespace pipesim
