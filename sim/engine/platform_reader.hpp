// Builds the generator-facing Platform from a loaded SimGrid platform.
#pragma once

#include <string>
#include <vector>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/platform.hpp"

namespace pipesim {

// Devices are the hosts with a "memory" property, in natural name order
// (gpu2 before gpu10). Throws InputError when there are none or a property is bad.
std::vector<simgrid::s4u::Host*> device_hosts(const simgrid::s4u::Engine& engine, const std::string& file);
Platform read_platform(const std::vector<simgrid::s4u::Host*>& hosts, const std::string& file);

}  // namespace pipesim
