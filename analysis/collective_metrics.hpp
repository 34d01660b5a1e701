// What the collectives of a run cost: per purpose (tp forward, dp
// gradients, ...) how many calls, bytes, the time they took and the part of
// it no compute hid (docs/parallelism.md, "Outputs").
#pragma once

#include <string>
#include <vector>

#include "sim/folding.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

struct CollectiveMetrics {
  std::string purpose;    // "tp forward", "dp gradients", ...
  std::string operation;  // "all-reduce"; "mixed" when the calls differ
  std::string algorithm;  // "ring"; "mixed" when the calls differ
  int group_size = 0;     // the largest group
  long long calls = 0;
  double bytes = 0;  // summed over calls: each call's buffer
  double time = 0;   // summed over calls: first step's start to last step's finish
  // Summed over calls: the call's time when its ranks computed nothing,
  // averaged over its ranks (the time the collective added to them).
  double exposed_time = 0;
};

// One entry per purpose, in the order purposes first appear. Empty without collectives.
// With a folding, each call stands for its images in every replica: a call
// inside one replica counts once per replica, one across replicas once.
std::vector<CollectiveMetrics> collective_metrics(const TaskGraph& graph, const Timeline& timeline,
                                                  const Folding* folding = nullptr);

}  // namespace pipesim
