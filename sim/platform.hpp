// The platform as schedule generators and analysis see it: devices and the
// end-to-end paths between them. Filled from SimGrid by the engine layer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pipesim {

// One compute resource of a device (seed 004: a phone's CPU, GPU, NPU...).
// Resource 0 is the device's own host; the others are hosts with the
// property resource_of (docs/platform-format.md, "Devices with several
// compute resources"). A task on resource r runs on its host, whose SimGrid
// speed is `speed`; a pass whose own speed differs is converted by the
// generator (flops x speed / pass speed).
struct ComputeResource {
  std::string type;           // property "resource"; default: the device's kind
  std::string host;           // its SimGrid host
  double speed = 0;           // flop/s of the host
  double forward_speed = 0;   // property "forward_speed", default speed; 0: cannot run forward
  double backward_speed = 0;  // property "backward_speed", default speed; 0: cannot run backward
};

struct Device {
  std::string name;
  double speed = 0;   // flop/s
  double memory = 0;  // bytes; the host property "memory"
  std::string kind;   // host property "kind": gpu (default), cpu, mobile, host, ...
  // Host property "device": a device type of devices/device_presets ("h100-sxm"),
  // whose compute model times the ops of a model workload; "" for none.
  std::string type{};
  // Host property "memory_bandwidth" (bytes/s), for memory-bound ops such as
  // the optimizer step; 0: the device type's, if any.
  double memory_bandwidth = 0;
  // Host property "node": the box (server) the device sits in. Devices of one
  // node talk over its fast fabric; hierarchical collectives and the rank
  // order of a parallel layout group by it. "" when not given.
  std::string node{};
  std::vector<ComputeResource> resources{};  // at least one when read from a file: [0] is the device's own host
};

// Host memory (kind "host"): CPU memory that devices offload activations to
// over their link to it. It stores bytes and never runs a stage.
inline constexpr const char* kHostMemoryKind = "host";
bool is_host_memory(const Device& device);

// How SimGrid shares one link between the flows that cross it (its
// sharing_policy). A SPLITDUPLEX link is two Shared links, NAME_UP and
// NAME_DOWN, one per direction, so its directions never slow each other.
enum class LinkSharing : std::uint8_t {
  Shared,   // concurrent flows split the bandwidth
  FatPipe,  // every flow gets the full bandwidth
  Other,    // WIFI, NONLINEAR: rates depend on more than the flows' count
};

struct NetworkLink {
  std::string name;
  double bandwidth = 0;  // bytes per second
  double latency = 0;    // seconds
  LinkSharing sharing = LinkSharing::Shared;
};

// End-to-end route between two devices: sum of latencies, bottleneck bandwidth.
struct Path {
  bool exists = false;
  double latency = 0;    // seconds
  double bandwidth = 0;  // bytes per second
  int hops = 0;          // links on the route
  // The route's links, indices into Platform::links, in route order. Empty
  // when unknown (path tables filled by hand): the pattern model then treats
  // the unordered device pair as one resource, as seed 000 does
  // (patterns/link_resources.hpp).
  std::vector<int> links{};
  // Per entry of `links`: how many flows of the whole job one flow on this
  // route stands for on that link (a folded job simulates one replica for
  // all: sim/folding.hpp). Empty: 1 each. Read on Shared links only; a
  // FatPipe link bounds each flow alone, however many there are.
  std::vector<double> weights{};
};

// Finds paths on demand, for platforms too large to tabulate (every pair of
// 10,000 hosts took 22 s and 5 GB): the engine installs one that asks SimGrid
// for a pair's route the first time it is needed. Not thread-safe.
class PathSource {
 public:
  virtual ~PathSource() = default;
  // from != to; the reference stays valid as long as the source lives.
  virtual const Path& path(int from, int to) const = 0;
};

struct Platform {
  std::string file;
  std::vector<Device> devices;
  // Either a table, devices.size()^2, row-major by (from, to) (tests and
  // benchmarks fill it), or, when it is empty, a source that finds them.
  std::vector<Path> paths;
  std::shared_ptr<const PathSource> path_source;
  // Every link of the platform but SimGrid's internal loopback, by name (the
  // order of Timeline::links). Empty for hand-filled path tables.
  std::vector<NetworkLink> links;
  // A host or link follows a profile (availability_file, bandwidth_file,
  // state_file, ...): its speed or bandwidth changes over time, so times
  // depend on more than sizes and rates.
  bool time_varying = false;

  int size() const { return static_cast<int>(devices.size()); }
  const Path& path(int from, int to) const;
  // Uncontended time to move bytes between two devices; 0 on the same device.
  double transfer_time(int from, int to, double bytes) const;
  int find(const std::string& name) const;  // -1 when absent
};

// Indices of the devices that can run stages (all but host memory), in order.
std::vector<int> compute_devices(const Platform& platform);
// Indices of the host-memory devices, in order.
std::vector<int> host_memory_devices(const Platform& platform);
// The host memory DEVICE offloads to: the one with the widest path both
// ways (the first of equals); -1 if none is routed.
int host_memory_of(const Platform& platform, int device);

}  // namespace pipesim
