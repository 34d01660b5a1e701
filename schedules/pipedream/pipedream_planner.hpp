// PipeDream's planner as PipeDream runs it on a straight pipeline: the
// dynamic program of optimizer/optimizer_graph_hierarchical.py
// (msr-fiddle/pipedream 7db6a1c, compute_partitioning and
// analyze_partitioning with --straight_pipeline, one level), on the chain
// that seed 000 §7's linearization gives (docs/study.md, "PipeDream").
// Engine-free and platform-free: numbers in, partition out.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// What PipeDream's optimizer reads of each layer of the chain.
struct PipeDreamChain {
  std::vector<double> compute;      // seconds: forward + backward
  std::vector<double> activations;  // bytes: every operator's activation_size (Layer operator_activations)
  std::vector<double> outputs;      // bytes crossing the cut after the layer (Layer activation)
  std::vector<double> parameters;   // bytes: weights
};

// The chain of a workload: times in seconds on the platform's slowest device
// (PipeDream assumes identical machines; on those, the times as given).
PipeDreamChain pipedream_chain(const Workload& workload, const Platform& platform);

// The optimizer's command-line settings, with its defaults.
struct PipeDreamSettings {
  int machines = 1;                 // -n
  double memory_size = 0;           // --use_memory_constraint -s BYTES; <= 0: no constraint (the default)
  bool use_fewer_machines = false;  // --use_fewer_machines
  double compression_ratio = 0;     // --activation_compression_ratio R: > 0 adds the transfer term (default: none)
  double bandwidth = 1e9;           // -b, bytes per second (only the transfer term uses it)
};

struct PipeDreamPartition {
  bool feasible = false;         // the optimizer fails (a TypeError) when nothing fits
  std::vector<int> last_layer;   // inclusive last layer of each stage
  std::vector<int> slot;         // the machine index m of each stage in the DP (with fewer machines, some are skipped)
  double time_per_stage = 0;     // the optimum, its "Time per stage in pipeline", seconds
  std::vector<double> estimate;  // each stage's stashed-data estimate, bytes (checked against memory_size)
};

// PipeDream's recursion. Stage (k, j] (layers k+1..j) in machine slot m
// (0-based) stashes (Σ activations + Σ parameters) × (machines − 1 − m)
// bytes; the last slot nothing. A[j][m], the best time per stage for
// layers 0..j on m + 1 slots: slot 0 alone for m = 0; otherwise, with
// use_fewer_machines, A[j][m − 1] first, then every split k = 0..j−1 in
// order, max(A[k][m − 1], time of (k, j]) and, with the transfer term,
// 2 × outputs[k] / bandwidth / ratio and (unless j is the last layer)
// 2 × outputs[j] / bandwidth / ratio; a split replaces the incumbent only
// when strictly better. The answer is A[L − 1][machines − 1].
//
// Ties: the optimizer scans k in the order its Python set of predecessor
// states iterates, which follows memory addresses and changes from run to
// run, so among equally good splits it returns any one. Here k ascends:
// what it returns when that set iterates in chain order.
PipeDreamPartition pipedream_partition(const PipeDreamChain& chain, const PipeDreamSettings& settings);

// Every partition the optimizer may return, whatever order it scans the
// splits in: at each entry, any split of the entry's time (a copy of
// A[j][m − 1] is never replaced by an equal split). pipedream_partition's
// first, at most `cap`, distinct.
std::vector<PipeDreamPartition> pipedream_tied_partitions(const PipeDreamChain& chain,
                                                          const PipeDreamSettings& settings, std::size_t cap = 1000);

// Every memory size at which some stage's estimate changes from fitting to
// not fitting: the plan for any memory size is the plan for the largest of
// these at or below it (none: infeasible), so planning at each of them
// yields every partition the optimizer can return for some memory size.
// Ascending, distinct.
std::vector<double> pipedream_memory_thresholds(const PipeDreamChain& chain, int machines);

}  // namespace pipesim
