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

#include "sim/engine/analytic_sharing.hpp"
#include "sim/engine/analytic_support.hpp"
#include "sim/engine/dispatch.hpp"
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
  std::uint32_t version = 0;  // stale once its flow's (its shared execution's) rate is set again
};
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return std::tie(a.date, a.kind, a.id) > std::tie(b.date, b.kind, b.id);
  }
};

// The analytic driver of the dispatch policy (dispatch.hpp): what it starts
// becomes events at the dates SimGrid would end them, replayed round by
// round; flows that meet on a link share it as SimGrid's CM02 does
// (analytic_sharing.hpp), re-solved once per round as SimGrid does.
class Replay {
 public:
  Replay(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings)
      : graph_(graph),
        platform_(platform),
        settings_(settings),
        dispatch_(graph, *this),
        cpu_sharing_(graph.size(), settings.maxmin_precision, settings.timing_precision),
        sharing_(graph.size(), settings.maxmin_precision, settings.timing_precision) {
    index_slots();
    index_routes();
  }

  AnalyticOutcome run() {
    try {
      dispatch_.start();
      share();
      while (true) {
        while (!events_.empty() && stale(events_.top())) events_.pop();
        if (events_.empty()) break;
        ++round_;
        now_ = now_ + (events_.top().date - now_);  // SimGrid's clock: NOW += delta
        round_events_.clear();
        while (!events_.empty() && std::fabs(events_.top().date - now_) < settings_.timing_precision) {
          if (!stale(events_.top())) round_events_.push_back(events_.top());
          events_.pop();
        }
        // SimGrid's models end this round's actions before any completion callback runs.
        for (const Event& e : round_events_) release(e);
        for (const Event& e : round_events_) {
          if (e.kind == EventKind::LatencyEnd) {
            const std::uint32_t r = route_of_[e.id];
            sharing_.start(e.id, bytes(e.id), routes_[r].latency, 0, constraints_[r], constraint_weights_[r], now_);
          } else if (e.kind == EventKind::Tick) {
            tick_round_[e.id] = kNoRound;
            fired_round_[e.id] = round_;
            dispatch_.tick_fired(e.id);
          } else {
            dispatch_.completed(e.id);
          }
        }
        share();
      }
    } catch (const Refused& refused) {
      return {std::nullopt, refused.why};
    }
    return {dispatch_.take_timeline(), {}, sharing_.ever_shared(), cpu_sharing_.ever_shared()};
  }

  // The driver's side of the policy.
  double now() const { return now_; }

  void joining(std::uint32_t s, const ReadyKey& key, const ReadyQueue& queue) {
    if (dispatch_.slots().greedy(s)) check_greedy_arrival(s, key, queue);
    if (mixed_[s]) {
      if (dispatch_round_[s] == round_) refuse_order(s, key.second);
      arrival_round_[s] = round_;
    }
  }

  void choosing(std::uint32_t s, const ReadyQueue& queue) {
    if (mixed_[s]) {
      if (queue.size() > 1 && arrival_round_[s] == round_) refuse_order(s, queue.top().second);
      dispatch_round_[s] = round_;
    }
    pick_[s] = queue.top();
  }

  void start_transfer(TaskId t) {
    const Route& r = routes_[route_of_[t]];
    if (!r.other.empty())
      throw Refused{"transfer " + quoted(graph_, t) + " crosses link " + r.other +
                    ", whose sharing (WIFI, NONLINEAR, no link, or one link twice) the analytic engine does not model"};
    // CM02: a flow's sharing penalty is its route's latency, and it takes no
    // bandwidth until that has elapsed; without latency, penalty 1 and its
    // narrowest link as a bound (network/TCP-gamma:0 leaves no other).
    if (r.latency > 0)
      events_.push({r.latency + now_, t, EventKind::LatencyEnd});
    else
      sharing_.start(t, bytes(t), 1, r.bandwidth, constraints_[route_of_[t]], constraint_weights_[route_of_[t]], now_);
  }

  void start_compute(std::uint32_t s, TaskId t) {
    const Task& task = graph_.task(t);
    const std::uint32_t r = slot_resource_[s];
    const bool oversubscribed = resource_running_[r] > 0 && resource_share_[r] + task.share > 1 + 1e-12;
    if (oversubscribed && !settings_.bounded_cpu) refuse_shares(s, t);
    resource_share_[r] += task.share;
    ++resource_running_[r];
    executing_[s] = t;
    exec_start_[s] = now_;
    if (oversubscribed || resource_shared_[r] > 0) return share_resource(s);
    const double speed = slot_speed_[s];
    double duration = task.amount / (task.share < 1 ? task.share * speed : speed);
    if (!settings_.bounded_cpu && duration < kTiEpsilon) duration = 0;
    events_.push({now_ + duration, t, EventKind::ExecEnd});
  }

  // A greedy slot sees every task that becomes ready this round before it
  // chooses: the executor's zero-flop tick completes in the next round.
  void start_tick(std::uint32_t s) {
    tick_round_[s] = round_ + 1;
    events_.push({now_, s, EventKind::Tick});
  }

 private:
  // Per slot: its speed and resource (lanes on one resource share its
  // speed); which slots mix ordered and unordered tasks.
  void index_slots() {
    const Slots& slots = dispatch_.slots();
    std::map<std::pair<int, int>, std::uint32_t> resources;
    for (std::uint32_t s = 0; s < slots.count(); ++s) {
      const Device& dev = platform_.devices.at(slots.device(s));
      const auto [it, inserted] =
          resources.try_emplace({slots.device(s), slots.resource(s)}, static_cast<std::uint32_t>(resources.size()));
      slot_speed_.push_back(dev.resources.empty() ? dev.speed : dev.resources.at(slots.resource(s)).speed);
      slot_resource_.push_back(it->second);
    }
    resource_share_.assign(resources.size(), 0);
    resource_running_.assign(resources.size(), 0);
    resource_shared_.assign(resources.size(), 0);
    for (std::uint32_t r = 0; r < resources.size(); ++r) cpu_link_.push_back({r});
    const std::uint32_t n = slots.count();
    mixed_.assign(n, false);
    tick_round_.assign(n, kNoRound);
    fired_round_.assign(n, kNoRound);
    pick_.assign(n, {0, kNone});
    dispatch_round_.assign(n, kNoRound);
    arrival_round_.assign(n, kNoRound);
    executing_.assign(n, kNone);
    exec_start_.assign(n, 0);
    exec_shared_.assign(n, false);
    std::vector<bool> ordered(graph_.size(), false);
    for (int d = 0; d < graph_.device_count(); ++d)
      for (const TaskId t : graph_.device_order(d)) ordered[t] = true;
    for (TaskId t = 0; t < graph_.size(); ++t) {
      const std::uint32_t s = dispatch_.slot(t);
      if (!is_transfer(graph_.task(t).kind) && !ordered[t] && !slots.greedy(s)) mixed_[s] = true;
    }
  }

  // The timeline's links and each transfer's route, as the executor records
  // them; a route's Shared links get occupancy slots. Paths filled by hand
  // (no Platform::links) count as one private Shared link per ordered pair.
  void index_routes() {
    Timeline& timeline = dispatch_.timeline();
    for (const NetworkLink& link : platform_.links) timeline.links.push_back({link.name, link.bandwidth});
    route_of_.assign(graph_.size(), 0);
    timeline.route_offsets.reserve(graph_.size() + 1);
    // Routes by device pair: a flat table unless the platform is huge.
    const std::uint64_t devices = static_cast<std::uint64_t>(platform_.devices.size());
    std::vector<std::uint32_t> table(devices * devices <= (1u << 22) ? devices * devices : 0, kNone);
    std::unordered_map<std::uint64_t, std::uint32_t> found;
    for (TaskId t = 0; t < graph_.size(); ++t) {
      const Task& task = graph_.task(t);
      if (is_transfer(task.kind) && task.device != task.peer && task.amount > 0) {
        const std::uint64_t key =
            static_cast<std::uint64_t>(task.device) * devices + static_cast<std::uint64_t>(task.peer);
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
        append_route(timeline, routes_[*id]);
      }
      timeline.route_offsets.push_back(static_cast<std::uint32_t>(timeline.route_links.size()));
    }
  }

  // A route and the links its flow is shared on: its Shared links (a private
  // pair link at the path's bandwidth) and its FatPipe links.
  Route make_route(const Task& task, const Path& path) {
    Route r = analytic::make_route(task, path, platform_, private_names_);
    std::vector<std::pair<std::uint32_t, double>> on;  // (link, consumption weight)
    for (std::size_t i = 0; i < r.shared.size(); ++i) {
      const std::uint32_t l = r.shared[i];
      sharing_.set_link(l, l < platform_.links.size() ? platform_.links[l].bandwidth : path.bandwidth, false);
      on.push_back({l, r.shared_weights[i]});
    }
    for (const std::uint32_t l : r.links)
      if (platform_.links.at(l).sharing == LinkSharing::FatPipe) {
        sharing_.set_link(l, platform_.links[l].bandwidth, true);
        on.push_back({l, 1});
      }
    std::sort(on.begin(), on.end());
    const auto same_link = [](const auto& a, const auto& b) { return a.first == b.first; };
    if (const auto twice = std::adjacent_find(on.begin(), on.end(), same_link); twice != on.end() && r.other.empty())
      r.other = link_name(twice->first) + " (twice on one route)";
    std::vector<std::uint32_t> links;
    std::vector<double> weights;
    for (const auto& [l, w] : on) links.push_back(l), weights.push_back(w);
    constraints_.push_back(std::move(links));
    constraint_weights_.push_back(std::move(weights));
    return r;
  }

  // Executions beyond their resource's speed share it as SimGrid's Cas01
  // CPU model does under cpu/optim:Lazy (DualPipeV's overlapped pairs): each
  // a variable of the resource's lmm constraint, its share the bound, solved
  // and updated lazily like flows on a link. An execution that ran alone
  // joins with the flops it has left.
  void share_resource(std::uint32_t s) {
    const std::uint32_t r = slot_resource_[s];
    cpu_sharing_.set_link(r, slot_speed_[s], false);
    for (std::uint32_t o = 0; o < executing_.size(); ++o) {
      const TaskId running = executing_[o];
      if (slot_resource_[o] != r || running == kNone || exec_shared_[o]) continue;
      double remains = graph_.task(running).amount;
      if (o != s) remains -= rate_alone(o, running) * (now_ - exec_start_[o]);
      exec_shared_[o] = true;
      ++resource_shared_[r];
      cpu_sharing_.start(running, std::max(remains, 0.0), 1, rate_alone(o, running), cpu_link_[r], one_weight_, now_);
    }
  }

  double rate_alone(std::uint32_t s, TaskId t) const {
    const double share = graph_.task(t).share;
    return share < 1 ? share * slot_speed_[s] : slot_speed_[s];
  }

  // The rates of the flows whose links (and of the executions whose
  // resources) changed this round, and their ends.
  void share() {
    TaskId starved = kNone;
    const auto moved = [&](TaskId t, double end, std::uint32_t v) {
      events_.push({end, t, is_transfer(graph_.task(t).kind) ? EventKind::TransferEnd : EventKind::ExecEnd, v});
    };
    if (!cpu_sharing_.solve(now_, moved, &starved) || !sharing_.solve(now_, moved, &starved))
      throw Refused{(is_transfer(graph_.task(starved).kind) ? "transfer " : "execution ") + quoted(graph_, starved) +
                    " gets no " + (is_transfer(graph_.task(starved).kind) ? "bandwidth" : "share of its resource") +
                    at_now() + " (SimGrid's max-min precision leaves it none)"};
  }

  std::string link_name(std::uint32_t occupancy) const {
    return analytic::link_name(occupancy, platform_, private_names_);
  }

  bool stale(const Event& e) const {
    if (e.kind == EventKind::ExecEnd) return e.version != cpu_sharing_.version(e.id);
    return e.kind == EventKind::TransferEnd && e.version != sharing_.version(e.id);
  }

  double bytes(TaskId t) const { return static_cast<double>(std::llround(graph_.task(t).amount)); }

  std::string at_now() const { return " at t = " + fmt::number(now_) + " s"; }

  // A greedy slot chooses when its tick completes; SimGrid does not fix the
  // order of the callbacks of one round, so a task that arrives in the round
  // of that choice must not be one the choice would have preferred.
  void check_greedy_arrival(std::uint32_t s, const ReadyKey& key, const ReadyQueue& queue) const {
    TaskId rival = kNone;
    if (fired_round_[s] == round_ && key < pick_[s])
      rival = pick_[s].second;
    else if (tick_round_[s] == round_ && key < queue.top())
      rival = queue.top().second;
    if (rival == kNone) return;
    throw Refused{"tasks " + quoted(graph_, key.second) + " and " + quoted(graph_, rival) + " compete for " +
                  slot_name(s) + at_now() +
                  " in the very round of its priority choice (SimGrid's order of "
                  "same-instant events decides)"};
  }

  [[noreturn]] void refuse_order(std::uint32_t s, TaskId t) const {
    throw Refused{"task " + quoted(graph_, t) + " becomes ready on " + slot_name(s) + at_now() +
                  " with another task, on a lane that mixes ordered and unordered tasks (SimGrid's order of "
                  "same-instant events decides which starts)"};
  }

  std::string slot_name(std::uint32_t s) const {
    const Slots& slots = dispatch_.slots();
    std::string name = platform_.devices.at(slots.device(s)).name;
    if (slots.lanes() && s >= static_cast<std::uint32_t>(graph_.device_count()))
      name += " (slot " + std::to_string(s) + ")";
    return name;
  }

  [[noreturn]] void refuse_shares(std::uint32_t s, TaskId t) const {
    for (std::uint32_t o = 0; o < executing_.size(); ++o)
      if (o != s && slot_resource_[o] == slot_resource_[s] && executing_[o] != kNone)
        throw Refused{"tasks " + quoted(graph_, executing_[o]) + " and " + quoted(graph_, t) + " run on one " +
                      "resource of " + platform_.devices.at(dispatch_.slots().device(s)).name + " with shares " +
                      fmt::number(graph_.task(executing_[o]).share) + " and " + fmt::number(graph_.task(t).share) +
                      at_now() + " (more than its whole speed: cpu/optim:TI would share it)"};
    throw Refused{"task " + quoted(graph_, t) + " oversubscribes its resource" + at_now()};
  }

  // What SimGrid's models do when an action ends, before the callbacks.
  void release(const Event& e) {
    if (e.kind == EventKind::TransferEnd) {
      sharing_.end(e.id);
    } else if (e.kind == EventKind::ExecEnd) {
      const std::uint32_t s = dispatch_.slot(e.id);
      const std::uint32_t r = slot_resource_[s];
      executing_[s] = kNone;
      if (exec_shared_[s]) {
        cpu_sharing_.end(e.id);
        exec_shared_[s] = false;
        --resource_shared_[r];
      }
      resource_share_[r] = --resource_running_[r] == 0 ? 0 : resource_share_[r] - graph_.task(e.id).share;
    }
  }

  const TaskGraph& graph_;
  const Platform& platform_;
  const AnalyticSettings settings_;
  Dispatch<Replay> dispatch_;
  double now_ = 0;
  std::uint32_t round_ = 0;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  std::vector<Event> round_events_;
  std::vector<std::uint32_t> route_of_;  // per task (transfers): index into routes_
  // Per slot.
  std::vector<double> slot_speed_;
  std::vector<std::uint32_t> slot_resource_;
  std::vector<bool> mixed_;                // ordered and unordered tasks: refused when two could start together
  std::vector<std::uint32_t> tick_round_;  // the round its pending tick ends, or kNoRound
  std::vector<std::uint32_t> fired_round_, dispatch_round_, arrival_round_;
  std::vector<ReadyKey> pick_;     // what the slot chose last
  std::vector<TaskId> executing_;  // its running execution, if any
  std::vector<double> exec_start_;
  std::vector<bool> exec_shared_;  // its execution shares the resource (in cpu_sharing_)
  // Per resource (device, resource), for lanes: shares of the running executions.
  std::vector<double> resource_share_;
  std::vector<std::uint32_t> resource_running_;
  std::vector<std::uint32_t> resource_shared_;        // its executions in cpu_sharing_
  std::vector<std::vector<std::uint32_t>> cpu_link_;  // {r}: the one constraint an execution is on
  const std::vector<double> one_weight_{1};
  BandwidthSharing cpu_sharing_;  // the resources' lmm system (Cas01's)
  // Links.
  BandwidthSharing sharing_;
  std::vector<Route> routes_;
  std::vector<std::vector<std::uint32_t>> constraints_;  // per route: its Shared and FatPipe links
  std::vector<std::vector<double>> constraint_weights_;  // per route: their consumption weights
  std::vector<std::string> private_names_;
};

}  // namespace

AnalyticOutcome replay_events(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings) {
  return Replay(graph, platform, settings).run();
}

}  // namespace pipesim
