// Seed 000 §7's PipeDream baseline: PipeDream's planner (contiguous
// partitions by dynamic programming under its own memory estimate) for a
// grid of memory targets, each partition run as the eager 1F1B schedule for
// a range of NOAM values. Engine-free: this builds the configurations and
// their task graphs; measuring them is the caller's (cli/study_command.cpp).
#pragma once

#include <string>
#include <vector>

#include "patterns/allocation.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// PipeDream's estimate of the memory of stage s (0-based) holding layers
// [first, last] with P = `machines` devices (optimizer_graph_hierarchical.py,
// straight pipeline): (sum of the layers' output activations a_l + sum of
// their weights W_l) x (P - 1 - s). Stage 0 counts P - 1 copies, the last
// stage of a P-stage pipeline none: the over-simplified model seed 000 §7
// criticises.
double pipedream_memory_estimate(const Workload& workload, int first, int last, int stage, int machines);

struct PipeDreamPlan {
  bool feasible = false;
  Allocation allocation;         // stage index (= device index) of each layer
  std::vector<int> last_layer;   // inclusive last layer of each stage
  double bottleneck = 0;         // the DP's objective, seconds
  std::vector<double> estimate;  // pipedream_memory_estimate of each stage, bytes
};

// PipeDream's dynamic program: stage s on device s (platform order), at most
// P = platform.size() stages (fewer allowed, as with --use_fewer_machines:
// ties go to fewer stages), every stage's estimate <= memory_target (<= 0:
// unconstrained); minimises the bottleneck, the largest of each stage's
// forward + backward seconds on its device and each boundary's
// 2 x transfer time of a_last (activation one way, gradient the other).
// Not feasible when no partition fits the target.
PipeDreamPlan pipedream_plan(const Workload& workload, const Platform& platform, double memory_target);

// The smallest target any plan fits, and the largest estimate of the
// unconstrained plan (above it, the plan no longer changes).
std::pair<double, double> memory_target_range(const Workload& workload, const Platform& platform);
// `count` targets spaced geometrically over memory_target_range, ascending.
std::vector<double> memory_target_grid(const Workload& workload, const Platform& platform, int count);

struct BaselineConfig {
  double memory_target = 0;  // the smallest target (of those tried) giving this plan
  int noam = 1;
  PipeDreamPlan plan;
};

struct BaselineOptions {
  std::vector<double> memory_targets;  // tried besides the grid
  int grid = 48;                       // memory_target_grid points (0: none)
  std::vector<int> noams;              // empty: 1 .. P
};

// Every distinct (partition, NOAM) over the targets (grid + given), in
// order of target, then NOAM. Infeasible targets give nothing.
std::vector<BaselineConfig> pipedream_configurations(const Workload& workload, const Platform& platform,
                                                     const BaselineOptions& options);

// The eager 1F1B task graph of a configuration (pipedream_schedule) for
// `microbatches` micro-batches (seed 000 §7: 500).
TaskGraph baseline_graph(const BaselineConfig& config, const Workload& workload, const Platform& platform,
                         int microbatches = 500);

// "noam=3 stages=0-5|6-12|13-25" (layer ranges, 0-based inclusive).
std::string describe(const BaselineConfig& config);

}  // namespace pipesim
