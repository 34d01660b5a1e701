#include "sim/engine/platform_reader.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>

#include <simgrid/s4u/Link.hpp>

#include "sim/engine/simgrid_guard.hpp"
#include "sim/input_error.hpp"
#include "sim/units.hpp"

namespace pipesim {
namespace {

// "gpu2" < "gpu10": compare digit runs by value.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      const std::string na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie, j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

Path route_between(simgrid::s4u::Host* from, simgrid::s4u::Host* to) {
  Path path;
  std::vector<simgrid::s4u::Link*> links;
  double latency = 0;
  try {
    from->route_to(to, links, &latency);
  } catch (const std::exception&) {
    return path;  // Floyd zones throw when there is no route
  }
  if (links.empty()) return path;  // Full zones give an empty route
  path.exists = true;
  path.latency = latency;
  path.hops = static_cast<int>(links.size());
  path.bandwidth = std::numeric_limits<double>::infinity();
  for (const auto* link : links) path.bandwidth = std::min(path.bandwidth, link->get_bandwidth());
  return path;
}

}  // namespace

std::vector<simgrid::s4u::Host*> device_hosts(const simgrid::s4u::Engine& engine, const std::string& file) {
  std::vector<simgrid::s4u::Host*> hosts;
  for (auto* host : engine.get_all_hosts())
    if (host->get_property("memory") != nullptr) hosts.push_back(host);
  if (hosts.empty())
    throw InputError(file, "host properties",
                     "no device found: mark each GPU host with <prop id=\"memory\" value=\"80GiB\"/>");
  std::sort(hosts.begin(), hosts.end(),
            [](auto* a, auto* b) { return natural_less(a->get_name(), b->get_name()); });
  return hosts;
}

Platform read_platform(const std::vector<simgrid::s4u::Host*>& hosts, const std::string& file) {
  Platform platform;
  platform.file = file;
  for (auto* host : hosts) {
    Device device;
    device.name = host->get_name();
    device.speed = host->get_speed();
    const char* kind = host->get_property("kind");
    device.kind = kind != nullptr ? kind : "gpu";
    try {
      device.memory = parse_bytes(host->get_property("memory"));
    } catch (const std::invalid_argument& e) {
      throw InputError(file, "host '" + device.name + "' property memory", e.what());
    }
    if (device.memory <= 0)
      throw InputError(file, "host '" + device.name + "' property memory", "expected a positive size like '80GiB'");
    platform.devices.push_back(device);
  }
  return platform;
}

SimGridPathSource::SimGridPathSource(std::vector<simgrid::s4u::Host*> hosts, std::string file)
    : hosts_(std::move(hosts)), count_(hosts_.size()), file_(std::move(file)) {}

const Path& SimGridPathSource::path(int from, int to) const {
  const std::size_t key = static_cast<std::size_t>(from) * count_ + static_cast<std::size_t>(to);
  if (const auto it = found_.find(key); it != found_.end()) return it->second;
  if (hosts_.empty()) throw std::logic_error("Platform::path: the Simulation that found the paths is gone");
  SimGridGuard guard(file_);  // some zones abort on a route query ("There can't be route in an Empty zone")
  return found_.emplace(key, route_between(hosts_.at(from), hosts_.at(to))).first->second;
}

}  // namespace pipesim
