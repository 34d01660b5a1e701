#include "sim/engine/analytic_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "sim/engine/analytic_list.hpp"
#include "sim/engine/analytic_replay.hpp"
#include "sim/engine/readiness.hpp"
#include "sim/engine/task_checks.hpp"

namespace pipesim {
namespace {

bool is_true(const std::string& value) { return value == "1" || value == "yes" || value == "on" || value == "true"; }

// The longest path through data and order links, every execution at its
// rate alone and every transfer alone on its route: what
// contention_free_timeline gives a graph with lanes, whose executions
// SimGrid may share (which only slows them). Tasks complete in the order of
// their finish, so a task made ready starts when its last predecessor ends.
// nullopt on a cycle (a deadlock).
std::optional<Timeline> relaxed_longest_path(const TaskGraph& graph, const Platform& platform) {
  const std::size_t n = graph.size();
  auto seconds = [&](TaskId t) {
    const Task& task = graph.task(t);
    if (is_transfer(task.kind)) {
      if (task.device == task.peer || task.amount <= 0) return 0.0;
      const Path& path = platform.path(task.device, task.peer);
      return path.latency + std::llround(task.amount) / path.bandwidth;
    }
    const Device& device = platform.devices.at(task.device);
    const double speed = device.resources.empty() ? device.speed : device.resources.at(task.resource).speed;
    return task.amount / (task.share < 1 ? task.share * speed : speed);
  };
  Readiness readiness(graph);
  Timeline timeline;
  timeline.start.assign(n, 0);
  timeline.finish.assign(n, 0);
  using Finish = std::pair<double, TaskId>;
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> running;
  const auto start = [&](TaskId t, double at) {
    timeline.start[t] = at;
    timeline.finish[t] = at + seconds(t);
    running.push({timeline.finish[t], t});
  };
  for (TaskId t = 0; t < n; ++t)
    if (readiness.ready(t)) start(t, 0);
  std::size_t done = 0;
  while (!running.empty()) {
    const auto [at, t] = running.top();
    running.pop();
    ++done;
    timeline.makespan = std::max(timeline.makespan, at);
    readiness.complete(t, [&](TaskId next) { start(next, at); });
  }
  if (done < n) return std::nullopt;
  return timeline;
}

}  // namespace

std::string analytic_refusal(const std::map<std::string, std::string>& config, const Platform& platform,
                             AnalyticSettings& settings) {
  auto value = [&](const std::string& key) {
    const auto it = config.find(key);
    return it == config.end() ? std::string() : it->second;
  };
  auto setting = [&](const std::string& key) { return "--cfg " + key + ":" + value(key); };
  if (platform.time_varying) return "the platform has profiles (speeds, bandwidths or states that change over time)";
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
  if (!value("surf/precision").empty())
    settings.timing_precision = std::strtod(value("surf/precision").c_str(), nullptr);
  if (!value("maxmin/precision").empty())
    settings.maxmin_precision = std::strtod(value("maxmin/precision").c_str(), nullptr);
  return {};
}

AnalyticOutcome run_analytic(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings) {
  // The longest-path pass where nothing shares a link; where something does, the event replay shares it.
  if (settings.list_fast_path) {
    AnalyticSettings list = settings;
    list.stop_at_conflict = true;  // any conflict hands the run to the replay
    if (std::optional<AnalyticOutcome> out = list_schedule(graph, platform, list); out && out->timeline)
      return std::move(*out);
  }
  std::vector<std::size_t> resources;
  for (const Device& device : platform.devices) resources.push_back(std::max<std::size_t>(1, device.resources.size()));
  check_task_amounts(graph, resources, settings.bounded_cpu);
  return replay_events(graph, platform, settings);
}

std::optional<Timeline> contention_free_timeline(const TaskGraph& graph, const Platform& platform) {
  AnalyticSettings settings;
  settings.ignore_sharing = true;
  settings.routes = false;
  std::optional<AnalyticOutcome> out = list_schedule(graph, platform, settings);
  if (out && out->timeline) return std::move(out->timeline);
  for (const Task& task : graph.tasks())
    if (!is_transfer(task.kind) && (task.resource != 0 || task.lane != 0)) return relaxed_longest_path(graph, platform);
  return std::nullopt;
}

}  // namespace pipesim
