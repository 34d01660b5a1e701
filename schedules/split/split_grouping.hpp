// Seed 004 §V: grouping heterogeneous devices into q workers. A worker's
// resource vector is the sum, type by type, of its devices' (one beta per
// type for the whole group), and every worker runs the same stage p_i; the
// objective is the slowest worker's period under its optimal allocation.
#pragma once

#include <string>
#include <vector>

#include "schedules/split/split_model.hpp"

namespace pipesim::split {

struct GroupingProblem {
  std::vector<Device> devices;  // speeds in flop/s; a missing type counts as speed 0
  int workers = 0;              // q, the pipeline depth
  double forward_flops = 0;     // each worker's stage p_i
  double backward_flops = 0;
};

enum class GroupingMethod {
  LocalSearch,  // Algorithm 2, O(n^2 m log m)
  BruteForce,   // the optimum, by dynamic programming over subsets (n <= 16)
  Sorting,      // §VI's baseline: ascending power, fill up to the average
};

struct Grouping {
  std::vector<std::vector<int>> groups;  // device indices of each worker, ascending
  double period = 0;                     // the slowest worker's period
};

// Throws std::invalid_argument on bad input: fewer devices than workers,
// workers < 1, non-positive flops, negative, infinite or NaN speeds, a
// device listing a type twice, a device whose speeds are all zero, or
// (BruteForce) n > 16. A device that runs one pass only is allowed.
Grouping group_devices(const GroupingProblem& problem, GroupingMethod method);

// The period of given groups (an empty group has an infinite period).
double grouping_period(const GroupingProblem& problem, const std::vector<std::vector<int>>& groups);

GroupingMethod grouping_method(const std::string& name);  // "local-search", "brute-force", "sorting"

}  // namespace pipesim::split
