// What the `split` schedule (seed 004, schedules/split/) decided, for the
// reports: each stage's device, layers, share beta of every resource given
// to the forward pass, and eq. 1's times. Plain data, no SimGrid.
#pragma once

#include <string>
#include <vector>

namespace pipesim {

struct SplitStagePlan {
  int device = 0;            // index into Platform::devices: the worker's first device (memory, transfers)
  std::vector<int> devices;  // the worker's devices, devices[0] == device (one without grouping)
  int first_layer = 0, last_layer = 0;
  // beta[i][j]: share of resource j of devices[i] (Device::resources order)
  // given to the forward pass; within a group one beta per resource type.
  std::vector<std::vector<double>> beta;
  // resource_forward_seconds[i][j]: seconds the whole resource j of
  // devices[i] would take on the stage's forward pass (from flops / speed or
  // the workload's time table; infinite: it cannot run it). The execution
  // gives each resource the work that ends with the others' (Definition 1).
  std::vector<std::vector<double>> resource_forward_seconds;
  std::vector<std::vector<double>> resource_backward_seconds;
  double forward_seconds = 0;        // f(p_i, sum beta_j r_j)
  double backward_seconds = 0;       // g(p_i, sum (1 - beta_j) r_j)
  double communication_seconds = 0;  // h(p_i, b)
  // How h counts the worker's two sends: "sum" (they take turns on a link
  // both routes cross) or "max" (each on links of its own).
  std::string sends = "sum";
  int in_flight = 1;  // micro-batches between forward and backward at most: weight versions stashed
  double period() const {
    double p = forward_seconds > backward_seconds ? forward_seconds : backward_seconds;
    return p > communication_seconds ? p : communication_seconds;
  }
};

struct SplitPlan {
  std::string partition;                 // "exact" or "algorithm1"
  std::string allocation;                // "optimal" or "none"
  std::string grouping = "none";         // "none", "algorithm2", "brute-force" or "sorting"
  std::vector<std::vector<int>> groups;  // every worker's devices (stage s runs on groups[s])
  double grouping_period = 0;  // the grouping's objective (the whole chain on each worker); 0 without grouping
  std::vector<SplitStagePlan> stages;
  double period = 0;  // eq. 1: the largest stage period
};

}  // namespace pipesim
