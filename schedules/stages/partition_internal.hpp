// Exposed for tests only: partition_chain's pieces, checked on their own. Product code includes partition.hpp.
#pragma once

#include <vector>

#include "schedules/stages/partition.hpp"

namespace pipesim {

// The load of a given partition (max over stages and boundaries).
double partition_load(const PartitionProblem& problem, const std::vector<int>& last_layer);

// Enumerates every partition; exponential, the oracle for partition_chain.
Partition partition_brute_force(const PartitionProblem& problem);

}  // namespace pipesim
