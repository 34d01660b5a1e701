// Builds the generator-facing Platform from a loaded SimGrid platform.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/platform.hpp"

namespace pipesim {

// Devices are the hosts with a "memory" property, in natural name order
// (gpu2 before gpu10). Throws InputError when there are none or a property is bad.
std::vector<simgrid::s4u::Host*> device_hosts(const simgrid::s4u::Engine& engine, const std::string& file);
// Each device's compute resources: [d][0] is devices[d] itself, then the
// hosts whose property resource_of names it, in natural name order. Throws
// InputError when resource_of names no device or a resource host has memory.
std::vector<std::vector<simgrid::s4u::Host*>> resource_hosts(const simgrid::s4u::Engine& engine,
                                                             const std::vector<simgrid::s4u::Host*>& devices,
                                                             const std::string& file);
// Devices and their resources; Simulation installs a SimGridPathSource for the paths.
Platform read_platform(const std::vector<std::vector<simgrid::s4u::Host*>>& hosts, const std::string& file);

// Every link but SimGrid's internal loopback, by name (Platform::links), and
// each one's index in that list.
struct LinkTable {
  std::vector<NetworkLink> links;
  std::unordered_map<const simgrid::s4u::Link*, int> index;
};
LinkTable read_links(const simgrid::s4u::Engine& engine);

// Asks SimGrid for the route of a device pair the first time it is needed and
// keeps it. A SimGrid abort while routing becomes pipesim's error line.
class SimGridPathSource : public PathSource {
 public:
  SimGridPathSource(std::vector<simgrid::s4u::Host*> hosts, std::string file,
                    std::unordered_map<const simgrid::s4u::Link*, int> link_index);
  const Path& path(int from, int to) const override;
  // The engine is being destroyed: pairs not yet found can no longer be.
  void detach() { hosts_.clear(); }
  // How many pairs were asked of SimGrid so far.
  std::size_t found() const { return found_.size(); }

 private:
  std::vector<simgrid::s4u::Host*> hosts_;
  std::size_t count_;
  std::string file_;
  std::unordered_map<const simgrid::s4u::Link*, int> link_index_;
  mutable std::unordered_map<std::size_t, Path> found_;  // by from * count + to
};

}  // namespace pipesim
