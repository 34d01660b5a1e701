// A job simulated once for a group of identical data-parallel replicas (and
// tensor-parallel ranks): the task graph holds one replica's tasks (one TP
// rank's), each standing for its image in every other, and its transfers cross one link of each orbit of links,
// weighted by how many flows of the whole job cross each link of that orbit
// (Path::weights). Analysis gives every image the figures of the device or
// link it copies. What is folded, when, and why it is exact: docs/folding.md.
#pragma once

#include <string>
#include <vector>

namespace pipesim {

struct Folding {
  // The devices (and flows) each simulated one stands for, itself included:
  // the order of the group of relabellings; 1 = nothing folded.
  int copies = 1;
  // The relabellings that generate the group (replica d -> d + k; TP rank
  // t -> t + 1), each as every platform device's image; a device outside
  // the job is its own.
  std::vector<std::vector<int>> shifts;
  // Per platform device: the simulated device whose figures it has (itself if simulated or outside the job).
  std::vector<int> device_image;
  // Per Platform::links entry: the link its orbit is simulated on, and the orbit's size.
  std::vector<int> link_canonical;
  std::vector<int> link_orbit;
  std::string what;  // one line: what was folded ("16 data-parallel replicas simulated as one")

  bool folded() const { return copies > 1; }
  // The flows of the whole job that one simulated crossing of canonical link c stands for, on each link of c's orbit.
  double link_weight(int c) const { return static_cast<double>(copies) / link_orbit[c]; }
};

}  // namespace pipesim
