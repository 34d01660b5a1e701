#include "sim/engine/analytic_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <sys/mman.h>

#include "sim/deadlock.hpp"
#include "sim/engine/task_checks.hpp"
#include "sim/format.hpp"

namespace pipesim {
namespace {

constexpr TaskId kNone = std::numeric_limits<TaskId>::max();
constexpr std::uint32_t kNoRound = std::numeric_limits<std::uint32_t>::max();
// CpuTiTmgr::solve (SimGrid's TI model) ends at once an execution shorter than this.
constexpr double kTiEpsilon = 1e-9;

// Reserves room for n elements and asks for transparent huge pages: the
// fast path fills a few arrays of millions of elements once, and 4 KiB page
// faults were a tenth of its time.
template <class T>
void reserve_huge(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  const auto begin = (reinterpret_cast<std::uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(v.data() + n)) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

// Thrown at the first condition that makes the evaluation inexact.
struct Refused {
  std::string why;
};

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

struct Route {
  double latency = 0;
  double bandwidth = 0;
  std::vector<std::uint32_t> links;   // Path::links, for the timeline
  std::vector<std::uint32_t> shared;  // occupancy indices of its Shared links
  std::string other;                  // a link whose sharing is not modelled, if any
};

std::string quoted(const TaskGraph& graph, TaskId t) { return "'" + graph.describe(t) + "'"; }

class Evaluator {
 public:
  Evaluator(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings)
      : graph_(graph), platform_(platform), settings_(settings) {
    const std::size_t n = graph.size();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    timeline_.start.assign(n, nan);
    timeline_.finish.assign(n, nan);
    waiting_.assign(n, 0);
    order_next_.assign(n, kNone);
    index_slots();
    index_successors();
    index_routes();
  }

  AnalyticOutcome run() {
    try {
      for (TaskId t = 0; t < graph_.size(); ++t)
        if (waiting_[t] == 0) make_ready(t);
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

  // Successors in compressed rows plus the device-order links, as the executor counts them.
  void index_successors() {
    const std::size_t n = graph_.size();
    succ_offsets_.assign(n + 1, 0);
    for (TaskId t = 0; t < n; ++t)
      for (const TaskId* d = graph_.deps_begin(t); d != graph_.deps_end(t); ++d) ++succ_offsets_[*d + 1];
    for (std::size_t i = 0; i < n; ++i) succ_offsets_[i + 1] += succ_offsets_[i];
    reserve_huge(succ_ids_, graph_.dependency_count());
    succ_ids_.resize(graph_.dependency_count());
    std::vector<std::uint32_t> fill(succ_offsets_.begin(), succ_offsets_.end() - 1);
    for (TaskId t = 0; t < n; ++t) {
      waiting_[t] = static_cast<std::uint32_t>(graph_.deps_end(t) - graph_.deps_begin(t));
      for (const TaskId* d = graph_.deps_begin(t); d != graph_.deps_end(t); ++d) succ_ids_[fill[*d]++] = t;
    }
    graph_.for_each_order_link([this](TaskId previous, TaskId next) {
      if (order_next_[previous] == kNone) {
        order_next_[previous] = next;
      } else {
        if (order_more_.empty()) order_more_.resize(graph_.size());
        order_more_[previous].push_back(next);
      }
      ++waiting_[next];
    });
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
    Route r;
    r.latency = path.latency;
    r.bandwidth = path.bandwidth;
    r.links.assign(path.links.begin(), path.links.end());
    if (path.links.empty()) {
      if (!platform_.links.empty())
        r.other = "(none: the route from " + platform_.devices.at(task.device).name + " to " +
                  platform_.devices.at(task.peer).name + " has no link)";
      r.shared.push_back(static_cast<std::uint32_t>(occupant_.size()));  // the pair's private link
      occupant_.push_back(kNone);
      private_names_.push_back(platform_.devices.at(task.device).name + "->" + platform_.devices.at(task.peer).name);
      return r;
    }
    for (const int l : path.links) {
      const NetworkLink& link = platform_.links.at(l);
      if (link.sharing == LinkSharing::Shared)
        r.shared.push_back(static_cast<std::uint32_t>(l));
      else if (link.sharing == LinkSharing::Other && r.other.empty())
        r.other = link.name;
    }
    return r;
  }

  std::string link_name(std::uint32_t occupancy) const {
    return occupancy < platform_.links.size() ? platform_.links[occupancy].name
                                              : private_names_.at(occupancy - platform_.links.size());
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
        throw Refused{"transfers " + quoted(graph_, occupant_[l]) + " and " + quoted(graph_, t) +
                      " both use link " + link_name(l) + at_now() + " (they would share its bandwidth)"};
      occupant_[l] = t;
    }
    if (r.latency > 0)
      events_.push({r.latency + now_, t, EventKind::LatencyEnd});
    else
      events_.push({now_ + bytes(t) / r.bandwidth, t, EventKind::TransferEnd});
    prefetch_successors(t);
  }

  // The successors are touched when t completes: fetching their records now
  // hides the cache misses that otherwise dominate (as in the executor).
  void prefetch_successors(TaskId t) const {
    auto touch = [this](TaskId s) {
      __builtin_prefetch(&graph_.task(s));
      __builtin_prefetch(&waiting_[s]);
    };
    for (std::uint32_t i = succ_offsets_[t]; i < succ_offsets_[t + 1]; ++i) touch(succ_ids_[i]);
    if (order_next_[t] != kNone) touch(order_next_[t]);
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
    prefetch_successors(t);
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
    for (std::uint32_t i = succ_offsets_[t]; i < succ_offsets_[t + 1]; ++i)
      if (--waiting_[succ_ids_[i]] == 0) make_ready(succ_ids_[i]);
    if (order_next_[t] != kNone && --waiting_[order_next_[t]] == 0) make_ready(order_next_[t]);
    if (!order_more_.empty())
      for (const TaskId next : order_more_[t])
        if (--waiting_[next] == 0) make_ready(next);
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
  Timeline timeline_;
  double now_ = 0;
  std::uint32_t round_ = 0;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  std::vector<Event> round_events_;
  // Per task.
  std::vector<std::uint32_t> waiting_;
  std::vector<std::uint32_t> succ_offsets_;
  std::vector<TaskId> succ_ids_;
  std::vector<TaskId> order_next_;
  std::vector<std::vector<TaskId>> order_more_;
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
    Route r;
    r.latency = path.latency;
    r.bandwidth = path.bandwidth;
    r.links.assign(path.links.begin(), path.links.end());
    if (path.links.empty()) {
      if (!platform_.links.empty())
        r.other = "(none: the route from " + platform_.devices.at(task.device).name + " to " +
                  platform_.devices.at(task.peer).name + " has no link)";
      r.shared.push_back(static_cast<std::uint32_t>(links_.size()));
      links_.emplace_back();
      private_names_.push_back(platform_.devices.at(task.device).name + "->" + platform_.devices.at(task.peer).name);
      return r;
    }
    for (const int l : path.links) {
      const NetworkLink& link = platform_.links.at(l);
      if (link.sharing == LinkSharing::Shared)
        r.shared.push_back(static_cast<std::uint32_t>(l));
      else if (link.sharing == LinkSharing::Other && r.other.empty())
        r.other = link.name;
    }
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
    const std::string link = conflict_link_ < platform_.links.size()
                                 ? platform_.links[conflict_link_].name
                                 : private_names_.at(conflict_link_ - platform_.links.size());
    return "transfers " + quoted(graph_, conflict_.first) + " and " + quoted(graph_, conflict_.second) +
           " both use link " + link + " at t = " + fmt::number(conflict_time_) + " s (they would share its bandwidth)";
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

bool is_true(const std::string& value) { return value == "1" || value == "yes" || value == "on" || value == "true"; }

}  // namespace

std::string analytic_refusal(const std::map<std::string, std::string>& config, const Platform& platform,
                             AnalyticSettings& settings) {
  auto value = [&](const std::string& key) {
    const auto it = config.find(key);
    return it == config.end() ? std::string() : it->second;
  };
  auto setting = [&](const std::string& key) { return "--cfg " + key + ":" + value(key); };
  if (platform.time_varying)
    return "the platform has profiles (speeds, bandwidths or states that change over time)";
  if (value("network/model") != "CM02") return setting("network/model") + " changes transfer times";
  if (const std::string h = value("host/model"); !h.empty() && h != "default" && h != "compound")
    return setting("host/model") + " changes how hosts and links are shared";
  if (!value("network/optim").empty() && value("network/optim") != "Lazy")
    return setting("network/optim") + " updates transfers differently";
  if (value("cpu/optim") != "TI" && value("cpu/optim") != "Lazy")
    return setting("cpu/optim") + " updates executions differently";
  if (is_true(value("network/crosstraffic"))) return setting("network/crosstraffic") + " slows opposite flows";
  for (const char* key : {"network/bandwidth-factor", "network/latency-factor"})
    if (!value(key).empty() && std::strtod(value(key).c_str(), nullptr) != 1.0)
      return setting(key) + " changes transfer times";
  if (!value("network/TCP-gamma").empty() && std::strtod(value("network/TCP-gamma").c_str(), nullptr) != 0.0)
    return setting("network/TCP-gamma") + " caps transfer rates";
  settings.bounded_cpu = value("cpu/optim") == "Lazy";
  if (!value("surf/precision").empty()) settings.timing_precision = std::strtod(value("surf/precision").c_str(), nullptr);
  return {};
}

AnalyticOutcome run_analytic(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings) {
  if (settings.list_fast_path) {
    ListSchedule list(graph, platform, settings);  // throws the input errors
    if (list.eligible()) return list.run();
  }
  std::vector<std::size_t> resources;
  for (const Device& device : platform.devices) resources.push_back(std::max<std::size_t>(1, device.resources.size()));
  check_task_amounts(graph, resources, settings.bounded_cpu);
  return Evaluator(graph, platform, settings).run();
}

}  // namespace pipesim
