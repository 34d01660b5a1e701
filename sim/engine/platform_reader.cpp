#include "sim/engine/platform_reader.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <stdexcept>

#include <simgrid/s4u/Link.hpp>
#include <xbt/parse_units.hpp>

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

Path route_between(simgrid::s4u::Host* from, simgrid::s4u::Host* to,
                   const std::unordered_map<const simgrid::s4u::Link*, int>& link_index) {
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
  for (const auto* link : links) {
    path.bandwidth = std::min(path.bandwidth, link->get_bandwidth());
    path.links.push_back(link_index.at(link));
  }
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
  std::sort(hosts.begin(), hosts.end(), [](auto* a, auto* b) { return natural_less(a->get_name(), b->get_name()); });
  return hosts;
}

std::vector<std::vector<simgrid::s4u::Host*>> resource_hosts(const simgrid::s4u::Engine& engine,
                                                             const std::vector<simgrid::s4u::Host*>& devices,
                                                             const std::string& file) {
  std::vector<std::vector<simgrid::s4u::Host*>> hosts;
  std::map<std::string, std::size_t> index;
  for (auto* device : devices) {
    index[device->get_name()] = hosts.size();
    hosts.push_back({device});
  }
  std::vector<simgrid::s4u::Host*> resources;
  for (auto* host : engine.get_all_hosts())
    if (host->get_property("resource_of") != nullptr) resources.push_back(host);
  std::sort(resources.begin(), resources.end(),
            [](auto* a, auto* b) { return natural_less(a->get_name(), b->get_name()); });
  for (auto* host : resources) {
    const std::string field = "host '" + host->get_name() + "' property resource_of";
    const std::string owner = host->get_property("resource_of");
    if (host->get_property("memory") != nullptr)
      throw InputError(file, field, "a resource host has no memory of its own: remove its memory property");
    const auto it = index.find(owner);
    if (it == index.end())
      throw InputError(file, field,
                       "expected the name of a device (a host with a memory property), got '" + owner + "'");
    hosts[it->second].push_back(host);
  }
  return hosts;
}

namespace {

// A pass speed property: flop/s >= 0 (0: the resource cannot run that pass).
double pass_speed(simgrid::s4u::Host* host, const char* property, const std::string& file) {
  const char* text = host->get_property(property);
  if (text == nullptr) return host->get_speed();
  const std::string field = "host '" + host->get_name() + "' property " + property;
  double value = 0;
  try {
    value = parse_flops(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(file, field, e.what());
  }
  if (!(value >= 0) || value > 1e100)
    throw InputError(file, field,
                     std::string("expected a speed >= 0 and at most 1e100f like '100Gf', got '") + text + "'");
  return value;
}

// The resource types a platform may name (seed 004's devices: CPUs, GPUs,
// NPUs...); a closed list, so that a misspelt type is an error rather than a
// resource that groups with nothing.
const char* const kResourceTypes[] = {"cpu", "gpu", "npu", "dsp", "tpu", "fpga"};

ComputeResource read_resource(simgrid::s4u::Host* host, const std::string& default_type, const std::string& file) {
  ComputeResource r;
  const char* type = host->get_property("resource");
  const std::string field = "host '" + host->get_name() + "' property resource";
  if (type != nullptr &&
      std::find(std::begin(kResourceTypes), std::end(kResourceTypes), std::string(type)) == std::end(kResourceTypes))
    throw InputError(
        file, field,
        std::string("unknown resource type '") + type + "' (expected one of: cpu, gpu, npu, dsp, tpu, fpga)");
  r.type = type != nullptr ? type : default_type;
  if (r.type.empty()) throw InputError(file, field, "expected a resource type like 'cpu' or 'gpu'");
  r.host = host->get_name();
  r.speed = host->get_speed();
  r.forward_speed = pass_speed(host, "forward_speed", file);
  r.backward_speed = pass_speed(host, "backward_speed", file);
  return r;
}

// The host property memory_bandwidth ("3.35TBps"), 0 when absent: SimGrid's
// bandwidth units, as for links (docs/platform-format.md).
double memory_bandwidth(simgrid::s4u::Host* host, const std::string& file) {
  const char* text = host->get_property("memory_bandwidth");
  if (text == nullptr) return 0;
  double bandwidth = 0;
  std::string complaint;
  try {
    bandwidth = xbt_parse_get_bandwidth("", 0, text, "memory_bandwidth");
  } catch (const std::exception& e) {
    complaint = std::string(" (") + e.what() + ")";
  }
  if (!complaint.empty() || !(bandwidth > 0) || bandwidth > 1e100)
    throw InputError(
        file, "host '" + host->get_name() + "' property memory_bandwidth",
        single_line("expected a positive bandwidth like '3.35TBps', got '" + std::string(text) + "'" + complaint));
  return bandwidth;
}

}  // namespace

Platform read_platform(const std::vector<std::vector<simgrid::s4u::Host*>>& hosts, const std::string& file) {
  Platform platform;
  platform.file = file;
  for (const auto& resources : hosts) {
    auto* host = resources.at(0);
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
    if (const char* type = host->get_property("device")) device.type = type;
    if (const char* node = host->get_property("node")) device.node = node;
    device.memory_bandwidth = memory_bandwidth(host, file);
    for (auto* r : resources) {
      device.resources.push_back(read_resource(r, device.kind, file));
      for (std::size_t j = 0; j + 1 < device.resources.size(); ++j)
        if (device.resources[j].type == device.resources.back().type)
          throw InputError(file, "host '" + r->get_name() + "' property resource",
                           "device '" + device.name + "' already has a resource of type '" +
                               device.resources.back().type + "' (one per type)");
    }
    platform.devices.push_back(device);
  }
  return platform;
}

LinkTable read_links(const simgrid::s4u::Engine& engine) {
  auto all = engine.get_all_links();
  std::sort(all.begin(), all.end(), [](auto* a, auto* b) { return a->get_name() < b->get_name(); });
  LinkTable table;
  for (const auto* link : all) {
    if (link->get_name() == "__loopback__") continue;  // SimGrid's internal self-route
    NetworkLink l;
    l.name = link->get_name();
    l.bandwidth = link->get_bandwidth();
    l.latency = link->get_latency();
    using Policy = simgrid::s4u::Link::SharingPolicy;
    const Policy policy = link->get_sharing_policy();
    l.sharing = policy == Policy::SHARED    ? LinkSharing::Shared
                : policy == Policy::FATPIPE ? LinkSharing::FatPipe
                                            : LinkSharing::Other;
    table.index.emplace(link, static_cast<int>(table.links.size()));
    table.links.push_back(std::move(l));
  }
  return table;
}

SimGridPathSource::SimGridPathSource(std::vector<simgrid::s4u::Host*> hosts, std::string file,
                                     std::unordered_map<const simgrid::s4u::Link*, int> link_index)
    : hosts_(std::move(hosts)), count_(hosts_.size()), file_(std::move(file)), link_index_(std::move(link_index)) {}

const Path& SimGridPathSource::path(int from, int to) const {
  const std::size_t key = static_cast<std::size_t>(from) * count_ + static_cast<std::size_t>(to);
  if (const auto it = found_.find(key); it != found_.end()) return it->second;
  if (hosts_.empty()) throw std::logic_error("Platform::path: the Simulation that found the paths is gone");
  SimGridGuard guard(file_);  // some zones abort on a route query ("There can't be route in an Empty zone")
  return found_.emplace(key, route_between(hosts_.at(from), hosts_.at(to), link_index_)).first->second;
}

}  // namespace pipesim
