#include "sim/engine/analytic_replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "sim/deadlock.hpp"
#include "sim/engine/readiness.hpp"
#include "sim/engine/analytic_support.hpp"
#include "sim/format.hpp"

namespace pipesim {
namespace {

using namespace analytic;

constexpr std::uint32_t kNoRound = std::numeric_limits<std::uint32_t>::max();

// The SimGrid actions the executor starts: their completion dates are what
// SimGrid's heap holds. A tick is the zero-flop execution before a greedy choice.
enum class EventKind : std::uint8_t { ExecEnd, LatencyEnd, TransferEnd, Tick };
struct Event {
  double date;
  std::uint32_t id;  // a task, or a slot for ticks
  EventKind kind;
};
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return std::tie(a.date, a.kind, a.id) > std::tie(b.date, b.kind, b.id);
  }
};

using Key = std::pair<double, TaskId>;  // (priority, task): the executor's ready-queue order

class Replay {
 public:
  Replay(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings)
      : graph_(graph), platform_(platform), settings_(settings), readiness_(graph) {
    const std::size_t n = graph.size();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    timeline_.start.assign(n, nan);
    timeline_.finish.assign(n, nan);
    index_slots();
    index_routes();
  }

  AnalyticOutcome run() {
    try {
      for (TaskId t = 0; t < graph_.size(); ++t)
        if (readiness_.ready(t)) make_ready(t);
      settle();
      while (!events_.empty()) {
        ++round_;
        now_ = now_ + (events_.top().date - now_);  // SimGrid's clock: NOW += delta
        round_events_.clear();
        while (!events_.empty() && std::fabs(events_.top().date - now_) < settings_.timing_precision) {
          round_events_.push_back(events_.top());
          events_.pop();
        }
        // SimGrid's models end this round's actions before any completion callback runs.
        for (const Event& e : round_events_) release(e);
        for (const Event& e : round_events_) {
          if (e.kind == EventKind::LatencyEnd) {
            const Route& r = routes_[route_of_[e.id]];
            events_.push({now_ + bytes(e.id) / r.bandwidth, e.id, EventKind::TransferEnd});
          } else if (e.kind == EventKind::Tick) {
            tick_pending_[e.id] = false;
            fired_round_[e.id] = round_;
            dispatch(e.id);
            settle();
          } else {
            complete(e.id);
            settle();
          }
        }
      }
    } catch (const Refused& refused) {
      return {std::nullopt, refused.why};
    }
    timeline_.makespan = 0;
    for (TaskId t = 0; t < graph_.size(); ++t) {
      if (std::isnan(timeline_.finish[t]))
        timeline_.blocked.push_back(t);
      else
        timeline_.makespan = std::max(timeline_.makespan, timeline_.finish[t]);
    }
    if (!timeline_.blocked.empty()) timeline_.deadlock = explain_deadlock(graph_, timeline_);
    return {std::move(timeline_), {}};
  }

 private:
  // Slots as in the executor: a device's resource and lane, slot d = (d, 0, 0).
  void index_slots() {
    const int devices = graph_.device_count();
    for (int d = 0; d < devices; ++d) add_slot(d, 0, d);
    bool lanes = false;
    for (const Task& task : graph_.tasks())
      if (!is_transfer(task.kind) && (task.resource != 0 || task.lane != 0)) lanes = true;
    if (lanes) {
      std::map<std::tuple<int, int, int>, std::uint32_t> index;
      std::map<std::pair<int, int>, std::uint32_t> resources;
      for (int d = 0; d < devices; ++d) {
        index[{d, 0, 0}] = d;
        resources[{d, 0}] = d;
      }
      slot_of_.resize(graph_.size());
      for (TaskId t = 0; t < graph_.size(); ++t) {
        const Task& task = graph_.task(t);
        if (is_transfer(task.kind)) continue;
        auto [rit, new_resource] =
            resources.try_emplace({task.device, task.resource}, static_cast<std::uint32_t>(resource_share_.size()));
        if (new_resource) {
          resource_share_.push_back(0);
          resource_running_.push_back(0);
        }
        auto [it, inserted] = index.try_emplace({task.device, task.resource, task.lane},
                                                static_cast<std::uint32_t>(slot_device_.size()));
        if (inserted) add_slot(task.device, task.resource, rit->second);
        slot_of_[t] = it->second;
      }
    }
    std::vector<bool> ordered(graph_.size(), false);
    for (int d = 0; d < devices; ++d)
      for (const TaskId t : graph_.device_order(d)) {
        ordered[t] = true;
        greedy_[slot(t)] = false;
      }
    for (TaskId t = 0; t < graph_.size(); ++t)
      if (!is_transfer(graph_.task(t).kind) && !ordered[t] && !greedy_[slot(t)]) mixed_[slot(t)] = true;
  }

  void add_slot(int device, int resource, std::uint32_t resource_id) {
    const Device& dev = platform_.devices.at(device);
    slot_device_.push_back(device);
    slot_speed_.push_back(dev.resources.empty() ? dev.speed : dev.resources.at(resource).speed);
    slot_resource_.push_back(resource_id);
    if (resource_id >= resource_share_.size()) {
      resource_share_.resize(resource_id + 1, 0);
      resource_running_.resize(resource_id + 1, 0);
    }
    ready_.emplace_back();
    busy_.push_back(false);
    greedy_.push_back(true);
    mixed_.push_back(false);
    tick_pending_.push_back(false);
    tick_round_.push_back(kNoRound);
    fired_round_.push_back(kNoRound);
    pick_.push_back({0, kNone});
    dispatch_round_.push_back(kNoRound);
    arrival_round_.push_back(kNoRound);
    executing_.push_back(kNone);
  }

  std::uint32_t slot(TaskId t) const {
    return slot_of_.empty() ? static_cast<std::uint32_t>(graph_.task(t).device) : slot_of_[t];
  }

  // The timeline's links and each transfer's route, as the executor records
  // them; a route's Shared links get occupancy slots. Paths filled by hand
  // (no Platform::links) count as one private Shared link per ordered pair.
  void index_routes() {
    for (const NetworkLink& link : platform_.links) timeline_.links.push_back({link.name, link.bandwidth});
    occupant_.assign(platform_.links.size(), kNone);
    route_of_.assign(graph_.size(), 0);
    timeline_.route_offsets.reserve(graph_.size() + 1);
    // Routes by device pair: a flat table unless the platform is huge.
    const std::uint64_t devices = static_cast<std::uint64_t>(platform_.devices.size());
    std::vector<std::uint32_t> table(devices * devices <= (1u << 22) ? devices * devices : 0, kNone);
    std::unordered_map<std::uint64_t, std::uint32_t> found;
    for (TaskId t = 0; t < graph_.size(); ++t) {
      const Task& task = graph_.task(t);
      if (is_transfer(task.kind) && task.device != task.peer && task.amount > 0) {
        const std::uint64_t key = static_cast<std::uint64_t>(task.device) * devices + static_cast<std::uint64_t>(task.peer);
        std::uint32_t* id = nullptr;
        if (!table.empty()) {
          id = &table[key];
        } else {
          id = &found.try_emplace(key, kNone).first->second;
        }
        if (*id == kNone) {
          *id = static_cast<std::uint32_t>(routes_.size());
          routes_.push_back(make_route(task, platform_.path(task.device, task.peer)));
        }
        route_of_[t] = *id;
        const Route& r = routes_[*id];
        timeline_.route_links.insert(timeline_.route_links.end(), r.links.begin(), r.links.end());
      }
      timeline_.route_offsets.push_back(static_cast<std::uint32_t>(timeline_.route_links.size()));
    }
  }

  Route make_route(const Task& task, const Path& path) {
    Route r = analytic::make_route(task, path, platform_, private_names_);
    occupant_.resize(platform_.links.size() + private_names_.size(), kNone);
    return r;
  }

  std::string link_name(std::uint32_t occupancy) const {
    return analytic::link_name(occupancy, platform_, private_names_);
  }

  double bytes(TaskId t) const { return static_cast<double>(std::llround(graph_.task(t).amount)); }

  std::string at_now() const { return " at t = " + fmt::number(now_) + " s"; }

  void make_ready(TaskId t) {
    const Task& task = graph_.task(t);
    if (!is_transfer(task.kind)) {
      const std::uint32_t s = slot(t);
      const Key key{task.priority, t};
      if (greedy_[s]) check_greedy_arrival(s, t, key);
      if (mixed_[s]) {
        if (dispatch_round_[s] == round_) refuse_order(s, t);
        arrival_round_[s] = round_;
      }
      ready_[s].push(key);
      touched_.push_back(s);
      return;
    }
    timeline_.start[t] = now_;
    if (task.device == task.peer || task.amount <= 0) {
      instant_.push_back(t);
      return;
    }
    const Route& r = routes_[route_of_[t]];
    if (!r.other.empty())
      throw Refused{"transfer " + quoted(graph_, t) + " crosses link " + r.other +
                    ", whose sharing (WIFI, NONLINEAR, or no link) the analytic engine does not model"};
    for (const std::uint32_t l : r.shared) {
      if (occupant_[l] != kNone)
        throw Refused{contention(graph_, occupant_[l], t, link_name(l), now_)};
      occupant_[l] = t;
    }
    if (r.latency > 0)
      events_.push({r.latency + now_, t, EventKind::LatencyEnd});
    else
      events_.push({now_ + bytes(t) / r.bandwidth, t, EventKind::TransferEnd});
    readiness_.prefetch_successors(t);
  }

  // A greedy slot chooses when its tick completes; SimGrid does not fix the
  // order of the callbacks of one round, so a task that arrives in the round
  // of that choice must not be one the choice would have preferred.
  void check_greedy_arrival(std::uint32_t s, TaskId t, const Key& key) const {
    TaskId rival = kNone;
    if (fired_round_[s] == round_ && key < pick_[s])
      rival = pick_[s].second;
    else if (tick_pending_[s] && tick_round_[s] == round_ && key < ready_[s].top())
      rival = ready_[s].top().second;
    if (rival == kNone) return;
    throw Refused{"tasks " + quoted(graph_, t) + " and " + quoted(graph_, rival) + " compete for " +
                  slot_name(s) + at_now() + " in the very round of its priority choice (SimGrid's order of "
                  "same-instant events decides)"};
  }

  [[noreturn]] void refuse_order(std::uint32_t s, TaskId t) const {
    throw Refused{"task " + quoted(graph_, t) + " becomes ready on " + slot_name(s) + at_now() +
                  " with another task, on a lane that mixes ordered and unordered tasks (SimGrid's order of "
                  "same-instant events decides which starts)"};
  }

  std::string slot_name(std::uint32_t s) const {
    std::string name = platform_.devices.at(slot_device_[s]).name;
    if (!slot_of_.empty() && s >= static_cast<std::uint32_t>(graph_.device_count()))
      name += " (slot " + std::to_string(s) + ")";
    return name;
  }

  // A greedy slot sees every task that becomes ready this round before it
  // chooses: the executor's zero-flop tick completes in the next round.
  void defer_dispatch(std::uint32_t s) {
    if (tick_pending_[s] || busy_[s] || ready_[s].empty()) return;
    tick_pending_[s] = true;
    tick_round_[s] = round_ + 1;
    events_.push({now_, s, EventKind::Tick});
  }

  void dispatch(std::uint32_t s) {
    if (busy_[s] || ready_[s].empty()) return;
    if (mixed_[s]) {
      if (ready_[s].size() > 1 && arrival_round_[s] == round_) refuse_order(s, ready_[s].top().second);
      dispatch_round_[s] = round_;
    }
    const Key key = ready_[s].top();
    const TaskId t = key.second;
    ready_[s].pop();
    pick_[s] = key;
    busy_[s] = true;
    timeline_.start[t] = now_;
    const Task& task = graph_.task(t);
    if (task.amount <= 0) {
      instant_.push_back(t);
      return;
    }
    const std::uint32_t r = slot_resource_[s];
    if (resource_running_[r] > 0 && resource_share_[r] + task.share > 1 + 1e-12) refuse_shares(s, t);
    resource_share_[r] += task.share;
    ++resource_running_[r];
    executing_[s] = t;
    const double speed = slot_speed_[s];
    double duration = task.amount / (task.share < 1 ? task.share * speed : speed);
    if (!settings_.bounded_cpu && duration < kTiEpsilon) duration = 0;
    events_.push({now_ + duration, t, EventKind::ExecEnd});
    readiness_.prefetch_successors(t);
  }

  [[noreturn]] void refuse_shares(std::uint32_t s, TaskId t) const {
    for (std::uint32_t o = 0; o < executing_.size(); ++o)
      if (o != s && slot_resource_[o] == slot_resource_[s] && executing_[o] != kNone)
        throw Refused{"tasks " + quoted(graph_, executing_[o]) + " and " + quoted(graph_, t) + " run on one " +
                      "resource of " + platform_.devices.at(slot_device_[s]).name + " with shares " +
                      fmt::number(graph_.task(executing_[o]).share) + " and " + fmt::number(graph_.task(t).share) +
                      at_now() + " (more than its whole speed: they would share it)"};
    throw Refused{"task " + quoted(graph_, t) + " oversubscribes its resource" + at_now()};
  }

  // What SimGrid's models do when an action ends, before the callbacks.
  void release(const Event& e) {
    if (e.kind == EventKind::TransferEnd) {
      for (const std::uint32_t l : routes_[route_of_[e.id]].shared)
        if (occupant_[l] == e.id) occupant_[l] = kNone;
    } else if (e.kind == EventKind::ExecEnd) {
      const std::uint32_t s = slot(e.id);
      const std::uint32_t r = slot_resource_[s];
      executing_[s] = kNone;
      resource_share_[r] = --resource_running_[r] == 0 ? 0 : resource_share_[r] - graph_.task(e.id).share;
    }
  }

  void complete(TaskId t) {
    timeline_.finish[t] = now_;
    readiness_.complete(t, [this](TaskId next) { make_ready(next); });
    if (!is_transfer(graph_.task(t).kind)) {
      const std::uint32_t s = slot(t);
      busy_[s] = false;
      touched_.push_back(s);
    }
  }

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

  using ReadyQueue = std::priority_queue<Key, std::vector<Key>, std::greater<>>;
  const TaskGraph& graph_;
  const Platform& platform_;
  const AnalyticSettings settings_;
  Readiness readiness_;
  Timeline timeline_;
  double now_ = 0;
  std::uint32_t round_ = 0;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  std::vector<Event> round_events_;
  // Per task.
  std::vector<std::uint32_t> slot_of_;   // empty when slot == device
  std::vector<std::uint32_t> route_of_;  // transfers: index into routes_
  // Per slot.
  std::vector<int> slot_device_;
  std::vector<double> slot_speed_;
  std::vector<std::uint32_t> slot_resource_;
  std::vector<ReadyQueue> ready_;
  std::vector<bool> busy_, greedy_, mixed_, tick_pending_;
  std::vector<std::uint32_t> tick_round_, fired_round_, dispatch_round_, arrival_round_;
  std::vector<Key> pick_;          // what the slot's last tick chose
  std::vector<TaskId> executing_;  // its running execution, if any
  // Per resource (device, resource), for lanes: shares of the running executions.
  std::vector<double> resource_share_;
  std::vector<std::uint32_t> resource_running_;
  // Links.
  std::vector<Route> routes_;
  std::vector<TaskId> occupant_;  // the transfer on each Shared link (then the private pair links)
  std::vector<std::string> private_names_;
  std::vector<TaskId> instant_;
  std::vector<std::uint32_t> touched_, scratch_;
};

}  // namespace

AnalyticOutcome replay_events(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings) {
  return Replay(graph, platform, settings).run();
}

}  // namespace pipesim
