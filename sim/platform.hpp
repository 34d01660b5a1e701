// The platform as schedule generators and analysis see it: devices and the
// end-to-end paths between them. Filled from SimGrid by the engine layer.
#pragma once

#include <string>
#include <vector>

namespace pipesim {

struct Device {
  std::string name;
  double speed = 0;   // flop/s
  double memory = 0;  // bytes; the host property "memory"
  std::string kind;   // host property "kind": gpu (default), cpu, mobile, ...
};

// End-to-end route between two devices: sum of latencies, bottleneck bandwidth.
struct Path {
  bool exists = false;
  double latency = 0;    // seconds
  double bandwidth = 0;  // bytes per second
  int hops = 0;          // links on the route
};

struct Platform {
  std::string file;
  std::vector<Device> devices;
  std::vector<Path> paths;  // devices.size()^2, row-major by (from, to)

  int size() const { return static_cast<int>(devices.size()); }
  const Path& path(int from, int to) const { return paths[from * devices.size() + to]; }
  // Uncontended time to move bytes between two devices; 0 on the same device.
  double transfer_time(int from, int to, double bytes) const;
  int find(const std::string& name) const;  // -1 when absent
};

}  // namespace pipesim
