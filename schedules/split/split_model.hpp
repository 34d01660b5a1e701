// Seed 004's inputs: devices with several compute resources, a chain of
// layers, and what a worker (a device or a group of devices) spends on each
// layer with each resource. Types the later platform loader and SimGrid
// execution of `split` schedules are meant to fill and read.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pipesim::split {

// One compute resource of a device (CPU, GPU, NPU...): its speed, in flop/s,
// on the forward and on the backward pass. Zero: it cannot run that pass.
struct Resource {
  std::string type;
  double forward_speed = 0;
  double backward_speed = 0;
};

struct Device {
  std::string name;
  std::vector<Resource> resources;  // at most one per type
};

struct Layer {
  double forward_flops = 0;
  double backward_flops = 0;
  double output_bytes = 0;  // activation sent forward; its gradient comes back the same size
};

// §VI's profile: seconds of every layer on one whole resource of a type.
struct LayerTimes {
  std::vector<double> forward;
  std::vector<double> backward;
};
using TimeTable = std::map<std::string, LayerTimes>;  // by resource type

// How a worker's two sends per micro-batch (its activation forward, the
// gradient of its input backward) share its time h (eq. 1). Sum: they take
// turns on one medium (Wi-Fi, or one link both routes cross); Max: each is
// its own operation on links of its own (a full-duplex pair of links, one
// per neighbour), the reading under which Algorithm 1 is within epsilon of
// the optimum (docs/mobile.md, "Communication").
enum class SendOverlap { Sum, Max };

// What partition and allocation need of a homogeneous worker: for each of
// its resources, every layer's seconds on the whole resource (infinite when
// the resource cannot run the pass), plus the chain's tensor sizes and the
// worker's bandwidth for h(p_i, b).
struct WorkerProfile {
  std::vector<std::string> resources;  // type of each resource
  std::vector<LayerTimes> times;       // times[j] for resources[j]
  std::vector<double> output_bytes;    // per layer
  double bandwidth = 0;                // bytes/s; infinity: communication is free
  SendOverlap sends = SendOverlap::Sum;
  int layers() const { return static_cast<int>(output_bytes.size()); }
};

// Layer times from speeds: flops / speed. Throws std::invalid_argument on
// a negative or NaN number, a layer without forward or backward work, or a
// worker none of whose resources can run one of the passes.
WorkerProfile profile_from_speeds(const Device& worker, const std::vector<Layer>& chain, double bandwidth);

// Layer times looked up in a §VI table by each resource's type (the
// speeds of `worker` are not used). Throws std::invalid_argument on an
// unknown type, a table row of the wrong length, or profile_from_speeds' errors.
WorkerProfile profile_from_table(const Device& worker, const TimeTable& table, const std::vector<double>& output_bytes,
                                 double bandwidth);

}  // namespace pipesim::split
