#include "sim/engine/analytic_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "sim/engine/analytic_list.hpp"
#include "sim/engine/analytic_replay.hpp"
#include "sim/engine/task_checks.hpp"

namespace pipesim {
namespace {

bool is_true(const std::string& value) { return value == "1" || value == "yes" || value == "on" || value == "true"; }

// The longest path through data and order links, every execution at its
// rate alone and every transfer alone on its route: what
// contention_free_timeline gives a graph with lanes, whose executions
// SimGrid may share (which only slows them). nullopt on a cycle (a deadlock).
std::optional<Timeline> relaxed_longest_path(const TaskGraph& graph, const Platform& platform) {
  const std::size_t n = graph.size();
  std::vector<std::vector<TaskId>> next(n);
  std::vector<std::uint32_t> waiting(n, 0);
  for (TaskId t = 0; t < n; ++t)
    for (const TaskId* d = graph.deps_begin(t); d != graph.deps_end(t); ++d) next[*d].push_back(t), ++waiting[t];
  graph.for_each_order_link([&](TaskId previous, TaskId t) { next[previous].push_back(t), ++waiting[t]; });
  Timeline timeline;
  timeline.start.assign(n, 0);
  timeline.finish.assign(n, 0);
  std::vector<TaskId> ready;
  for (TaskId t = 0; t < n; ++t)
    if (waiting[t] == 0) ready.push_back(t);
  std::size_t done = 0;
  while (!ready.empty()) {
    const TaskId t = ready.back();
    ready.pop_back();
    ++done;
    const Task& task = graph.task(t);
    double seconds = 0;
    if (is_transfer(task.kind)) {
      if (task.device != task.peer && task.amount > 0) {
        const Path& path = platform.path(task.device, task.peer);
        seconds = path.latency + std::llround(task.amount) / path.bandwidth;
      }
    } else {
      const Device& device = platform.devices.at(task.device);
      const double speed = device.resources.empty() ? device.speed : device.resources.at(task.resource).speed;
      seconds = task.amount / (task.share < 1 ? task.share * speed : speed);
    }
    timeline.finish[t] = timeline.start[t] + seconds;
    timeline.makespan = std::max(timeline.makespan, timeline.finish[t]);
    for (const TaskId s : next[t]) {
      timeline.start[s] = std::max(timeline.start[s], timeline.finish[t]);
      if (--waiting[s] == 0) ready.push_back(s);
    }
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
  std::optional<AnalyticOutcome> out = list_schedule(graph, platform, settings);
  if (out && out->timeline) return std::move(out->timeline);
  for (const Task& task : graph.tasks())
    if (!is_transfer(task.kind) && (task.resource != 0 || task.lane != 0)) return relaxed_longest_path(graph, platform);
  return std::nullopt;
}

}  // namespace pipesim
