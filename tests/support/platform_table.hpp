// In-memory platforms for tests that need no SimGrid: devices gpu0.. and a
// path table filled by hand, one hop per pair (the SimGrid XML ones are in
// fixtures.hpp).
#pragma once

#include <string>

#include "sim/platform.hpp"

namespace pipesim::testing {

struct TableSpec {
  double speed = 1e12;     // flop/s, every device
  double memory = 16e9;    // bytes, every device
  double latency = 0;      // seconds, every path between two devices
  double bandwidth = 1e9;  // bytes per second, likewise
  bool routed = true;      // false: those paths are there but do not exist (an unrouted platform)
  bool self_paths = true;  // a device to itself: an existing empty path, or none (Path{})
  bool paths = true;       // false: devices only, no path table
  std::string file = "plat.xml";
};

// n devices gpu0.. of kind gpu, as SPEC says.
inline Platform table_platform(int n, const TableSpec& spec = {}) {
  Platform p;
  p.file = spec.file;
  for (int i = 0; i < n; ++i) p.devices.push_back({"gpu" + std::to_string(i), spec.speed, spec.memory, "gpu"});
  if (!spec.paths) return p;
  p.paths.assign(static_cast<std::size_t>(n) * n, Path{});
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      p.paths[i * n + j] = i != j            ? Path{spec.routed, spec.latency, spec.bandwidth, 1}
                           : spec.self_paths ? Path{true, 0, 0, 0}
                                             : Path{};
  return p;
}

// Devices only, no path table, no file: what tests of orders and memory accounting read.
inline Platform devices_only_platform(int n, double memory = 1e12) {
  TableSpec spec;
  spec.memory = memory;
  spec.paths = false;
  spec.file = "";
  return table_platform(n, spec);
}

}  // namespace pipesim::testing
