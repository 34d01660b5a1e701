// What the `split` schedule (seed 004, schedules/split/) decided, for the
// reports: each stage's device, layers, share beta of every resource given
// to the forward pass, and eq. 1's times. Plain data, no SimGrid.
#pragma once

#include <string>
#include <vector>

namespace pipesim {

struct SplitStagePlan {
  int device = 0;  // index into Platform::devices
  int first_layer = 0, last_layer = 0;
  std::vector<double> beta;  // per resource of the device (Device::resources order)
  double forward_seconds = 0;        // f(p_i, sum beta_j r_j)
  double backward_seconds = 0;       // g(p_i, sum (1 - beta_j) r_j)
  double communication_seconds = 0;  // h(p_i, b)
  int in_flight = 1;                 // micro-batches between forward and backward at most: weight versions stashed
  double period() const {
    double p = forward_seconds > backward_seconds ? forward_seconds : backward_seconds;
    return p > communication_seconds ? p : communication_seconds;
  }
};

struct SplitPlan {
  std::string partition;   // "exact" or "algorithm1"
  std::string allocation;  // "optimal" or "none"
  std::vector<SplitStagePlan> stages;
  double period = 0;  // eq. 1: the largest stage period
};

}  // namespace pipesim
