// Seed 004 §IV-B: cutting a chain of layers into stages for identical
// workers whose resources are split between forward and backward (eq. 1).
// A stage's cost is max{f, g, h}: its forward and backward times under its
// optimal allocation (equal, Lemma 1) and its communication time.
#pragma once

#include <vector>

#include "schedules/split/split_allocation.hpp"
#include "schedules/split/split_model.hpp"

namespace pipesim::split {

// Eq. 1's cost of any stage [first, last] (inclusive) of one worker, from
// prefix sums of its layer times: O(m log m) per stage.
class StageCosts {
 public:
  explicit StageCosts(const WorkerProfile& worker);
  int layers() const { return layers_; }
  StageRates rates(int first, int last) const;
  // f = g under the stage's optimal allocation.
  double compute(int first, int last) const;
  // h(p_i, b): the worker's sends per micro-batch (its last layer's
  // activation forward, unless it is the last stage; the gradient of its
  // input backward, unless it is the first) over its bandwidth, summed or
  // the larger one (WorkerProfile::sends).
  double communication(int first, int last) const;
  double cost(int first, int last) const;

 private:
  int layers_ = 0, resources_ = 0;
  // Per resource: prefix sums of finite layer times and prefix counts of
  // layers it cannot run (infinite time).
  std::vector<std::vector<double>> forward_, backward_;
  std::vector<std::vector<int>> forward_inf_, backward_inf_;
  std::vector<double> output_bytes_;
  double bandwidth_ = 0;
  SendOverlap sends_ = SendOverlap::Sum;
  mutable std::vector<double> a_, b_;
  mutable std::vector<int> order_;
};

struct SplitPartition {
  std::vector<int> last_layer;  // inclusive last layer of each stage, one stage per worker used
  double period = 0;            // eq. 1: the largest stage cost
};

// Exact optimum of eq. 1 over contiguous partitions into at most `workers`
// stages (Algorithm 1's feasibility also allows fewer), by dynamic
// programming over the O(L^2) stage costs: O(L^2 m log m + workers L^2).
// Throws std::invalid_argument if workers < 1.
SplitPartition exact_partition(const WorkerProfile& worker, int workers);

// The same for workers that differ (heterogeneous devices, each its own
// profile of the same chain): stage k runs on workers[k], and the first
// k + 1 workers are used. O(q L^2 m log m). Throws std::invalid_argument if
// there is no worker or the profiles' chains differ in length.
SplitPartition exact_partition(const std::vector<WorkerProfile>& workers);

struct Algorithm1Result {
  SplitPartition partition;  // the last feasible greedy partition
  double limit = 0;          // smallest feasible limit found, within epsilon
  int probes = 0;            // feasibility checks made
};

// Algorithm 1: binary search on the limit with granularity epsilon
// (docs/mobile.md: the bounds used, and why it is exact only when stage
// costs grow with the stage). Throws std::invalid_argument if workers < 1
// or epsilon is not > 0.
Algorithm1Result algorithm1_partition(const WorkerProfile& worker, int workers, double epsilon);

}  // namespace pipesim::split
