#include "sim/engine/analytic_support.hpp"

#include <algorithm>

#include "sim/format.hpp"

namespace pipesim::analytic {

Route make_route(const Task& task, const Path& path, const Platform& platform,
                 std::vector<std::string>& private_names) {
  Route r;
  r.latency = path.latency;
  r.bandwidth = path.bandwidth;
  r.links.assign(path.links.begin(), path.links.end());
  r.weights = path.weights;
  r.alone_bandwidth = path.bandwidth;
  if (path.links.empty()) {
    if (!platform.links.empty())
      r.other = "(none: the route from " + platform.devices.at(task.device).name + " to " +
                platform.devices.at(task.peer).name + " has no link)";
    r.shared.push_back(static_cast<std::uint32_t>(platform.links.size() + private_names.size()));
    r.shared_weights.push_back(1);
    private_names.push_back(platform.devices.at(task.device).name + "->" + platform.devices.at(task.peer).name);
    return r;
  }
  for (std::size_t i = 0; i < path.links.size(); ++i) {
    const int l = path.links[i];
    const NetworkLink& link = platform.links.at(l);
    if (link.sharing == LinkSharing::Shared) {
      const double weight = path.weights.empty() ? 1 : path.weights[i];
      r.shared.push_back(static_cast<std::uint32_t>(l));
      r.shared_weights.push_back(weight);
      if (weight != 1) r.alone_bandwidth = std::min(r.alone_bandwidth, link.bandwidth / weight);
    } else if (link.sharing == LinkSharing::Other && r.other.empty())
      r.other = link.name;
  }
  return r;
}

void append_route(Timeline& timeline, const Route& route) {
  std::vector<double>& weights = timeline.route_weights;
  const bool weighted = !weights.empty() || !route.weights.empty();
  if (weighted) weights.resize(timeline.route_links.size(), 1);
  timeline.route_links.insert(timeline.route_links.end(), route.links.begin(), route.links.end());
  if (!weighted) return;
  if (route.weights.empty())
    weights.resize(timeline.route_links.size(), 1);
  else
    weights.insert(weights.end(), route.weights.begin(), route.weights.end());
}

std::string link_name(std::uint32_t occupancy, const Platform& platform,
                      const std::vector<std::string>& private_names) {
  return occupancy < platform.links.size() ? platform.links[occupancy].name
                                           : private_names.at(occupancy - platform.links.size());
}

std::string quoted(const TaskGraph& graph, TaskId t) { return "'" + graph.describe(t) + "'"; }

std::string contention(const TaskGraph& graph, TaskId first, TaskId second, const std::string& link, double at) {
  return "transfers " + quoted(graph, first) + " and " + quoted(graph, second) + " both use link " + link +
         " at t = " + fmt::number(at) + " s (they would share its bandwidth)";
}

}  // namespace pipesim::analytic
