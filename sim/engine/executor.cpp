#include "sim/engine/executor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <unordered_map>

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/engine/dispatch.hpp"

namespace pipesim {
namespace {

namespace s4u = simgrid::s4u;
constexpr std::uintptr_t kTickTag = std::uintptr_t{1} << (sizeof(std::uintptr_t) * 8 - 1);  // marks ticks, not tasks

// The SimGrid driver of the dispatch policy (dispatch.hpp): each task it
// starts is a SimGrid activity, each activity's completion goes back to it.
class Executor {
 public:
  Executor(s4u::Engine& engine, const std::vector<std::vector<s4u::Host*>>& hosts, const TaskGraph& graph)
      : engine_(engine), graph_(graph), dispatch_(graph, *this) {
    for (const auto& resources : hosts) devices_.push_back(resources.at(0));
    live_.resize(graph.size());
    const Slots& slots = dispatch_.slots();
    for (std::uint32_t s = 0; s < slots.count(); ++s)
      slot_host_.push_back(hosts[slots.device(s)].at(slots.resource(s)));
    tick_.resize(slots.count());
    index_links();
  }

  Timeline run() {
    s4u::Activity::on_completion_cb([this](const s4u::Activity& activity) { on_completion(activity); });
    dispatch_.start();
    engine_.run();
    graveyard_.clear();
    return dispatch_.take_timeline();
  }

  // The driver's side of the policy.
  double now() const { return s4u::Engine::get_clock(); }
  void joining(std::uint32_t, const ReadyKey&, const ReadyQueue&) {}
  void choosing(std::uint32_t, const ReadyQueue&) {}

  void start_transfer(TaskId t) {
    const Task& task = graph_.task(t);
    auto comm = s4u::Comm::sendto_init(devices_[task.device], devices_[task.peer]);
    comm->set_payload_size(static_cast<std::uint64_t>(std::llround(task.amount)));
    launch(t, std::move(comm));
  }

  void start_compute(std::uint32_t s, TaskId t) {
    const Task& task = graph_.task(t);
    auto exec = s4u::Exec::init();
    exec->set_flops_amount(task.amount);
    exec->set_host(slot_host_[s]);
    // Lanes sharing a resource: each gets at most its share of the speed
    // (seed 004's beta); shares summing to 1 give each exactly its share.
    if (task.share < 1) exec->set_bound(task.share * slot_host_[s]->get_speed());
    launch(t, std::move(exec));
  }

  void start_tick(std::uint32_t s) {
    auto tick = s4u::Exec::init();
    tick->set_flops_amount(0);
    tick->set_host(slot_host_[s]);
    tick->set_data(reinterpret_cast<void*>(kTickTag | static_cast<std::uintptr_t>(s)));
    tick->start();
    tick_[s] = std::move(tick);
  }

 private:
  // Every link gets a stable index (by name); routes are cached per device pair.
  void index_links() {
    Timeline& timeline = dispatch_.timeline();
    auto links = engine_.get_all_links();
    std::sort(links.begin(), links.end(), [](auto* a, auto* b) { return a->get_name() < b->get_name(); });
    for (auto* link : links) {
      if (link->get_name() == "__loopback__") continue;  // SimGrid's internal self-route
      link_index_[link] = static_cast<std::uint32_t>(timeline.links.size());
      timeline.links.push_back({link->get_name(), link->get_bandwidth()});
    }
    for (TaskId t = 0; t < graph_.size(); ++t) {
      const Task& task = graph_.task(t);
      if (is_transfer(task.kind) && task.device != task.peer && task.amount > 0) {
        for (std::uint32_t l : route(task.device, task.peer)) timeline.route_links.push_back(l);
      }
      timeline.route_offsets.push_back(static_cast<std::uint32_t>(timeline.route_links.size()));
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

  void launch(TaskId t, s4u::ActivityPtr activity) {
    activity->set_data(reinterpret_cast<void*>(static_cast<std::uintptr_t>(t) + 1));
    activity->start();
    live_[t] = std::move(activity);  // SimGrid frees an activity nobody holds
  }

  void on_completion(const s4u::Activity& activity) {
    graveyard_.clear();  // released one callback late: SimGrid still uses the one completing now
    const auto tag = reinterpret_cast<std::uintptr_t>(activity.get_data<void>());
    if (tag == 0) return;  // not ours
    if (tag & kTickTag) {
      const auto s = static_cast<std::uint32_t>(tag & ~kTickTag);
      graveyard_.push_back(std::move(tick_[s]));
      dispatch_.tick_fired(s);
      return;
    }
    const TaskId t = static_cast<TaskId>(tag - 1);
    graveyard_.push_back(std::move(live_[t]));
    dispatch_.completed(t);
  }

  s4u::Engine& engine_;
  const TaskGraph& graph_;
  Dispatch<Executor> dispatch_;
  std::vector<s4u::Host*> devices_;    // each device's own host (resource 0)
  std::vector<s4u::Host*> slot_host_;  // per slot; slots 0..devices-1 are the devices
  std::vector<s4u::ActivityPtr> live_;
  std::vector<s4u::ActivityPtr> graveyard_;
  std::vector<s4u::ActivityPtr> tick_;  // per slot: its pending tick, if any
  std::unordered_map<const s4u::Link*, std::uint32_t> link_index_;
  std::map<std::pair<int, int>, std::vector<std::uint32_t>> routes_;
};

}  // namespace

Timeline execute(s4u::Engine& engine, const std::vector<std::vector<s4u::Host*>>& hosts, const TaskGraph& graph) {
  return Executor(engine, hosts, graph).run();
}

}  // namespace pipesim
