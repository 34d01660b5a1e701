// Exposed for tests only: Algorithm 1's pieces and its gap to the optimum
// (docs/mobile.md). Product code includes split_partition.hpp.
#pragma once

#include <vector>

#include "schedules/split/split_partition.hpp"

namespace pipesim::split {

// The period of a given partition.
double partition_period(const StageCosts& costs, const std::vector<int>& last_layer);

// Algorithm 1's feasibility check: stage after stage, the longest run of
// layers whose cost is <= limit. Empty when more than `workers` stages
// would be needed (or a single layer exceeds the limit).
std::vector<int> greedy_partition(const StageCosts& costs, int workers, double limit);

struct EpsilonGap {
  double epsilon = 0;
  double limit = 0;    // Algorithm 1's limit
  double period = 0;   // its partition's period
  double optimum = 0;  // exact_partition's period
  int probes = 0;
  double gap() const { return period - optimum; }
};

// How far Algorithm 1 lands from the optimum for each epsilon.
std::vector<EpsilonGap> algorithm1_gap(const WorkerProfile& worker, int workers, const std::vector<double>& epsilons);

}  // namespace pipesim::split
