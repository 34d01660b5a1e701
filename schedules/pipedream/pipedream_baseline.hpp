// Seed 000 §7's PipeDream baseline: PipeDream's own planner
// (pipedream_planner.hpp) on the chain, for every memory target that
// changes its answer, with and without its communication term, each
// partition run as the eager 1F1B schedule for NOAM 1..P. Engine-free: this
// builds the configurations and their task graphs; measuring them is the
// caller's (studies/study_runs.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "patterns/allocation.hpp"
#include "schedules/pipedream/pipedream_planner.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// The optimizer's flags as the study sets them on a platform: P = its
// device count, the transfer term with compression ratio 1 and the
// narrowest bandwidth between consecutive devices.
struct PipeDreamFlags {
  double memory_target = 0;     // --use_memory_constraint -s; <= 0: none (PipeDream's default)
  bool communication = false;   // the transfer term (PipeDream's default: off)
  bool fewer_machines = false;  // --use_fewer_machines (PipeDream's default: off)
};
PipeDreamSettings pipedream_settings(const Platform& platform, const PipeDreamFlags& flags);

struct PipeDreamPlan {
  bool feasible = false;
  Allocation allocation;         // stage index (= device index) of each layer
  std::vector<int> last_layer;   // inclusive last layer of each stage
  double bottleneck = 0;         // the DP's objective (its time per stage), seconds
  std::vector<double> estimate;  // PipeDream's memory estimate of each stage, bytes
};

struct BaselineConfig {
  double memory_target = 0;  // the smallest target (of those tried) giving this partition
  int noam = 1;
  PipeDreamPlan plan;
  bool communication = false;  // the setting that first gave it
  bool fewer_machines = false;
};

struct BaselineOptions {
  std::vector<double> memory_targets;                // tried besides every threshold
  std::vector<int> noams;                            // empty: 1 .. P
  std::vector<bool> communication = {false, true};   // the transfer term off, on
  std::vector<bool> fewer_machines = {false, true};  // --use_fewer_machines off, on
  // Partitions per plan: 1, the planner's (ties to the earliest split); more,
  // also that many of the others PipeDream may return (pipedream_tied_partitions).
  std::size_t ties = 1;
};

// The union, over every memory target that can change the planner's answer
// (pipedream_memory_thresholds, plus the given ones, plus none), every
// communication and fewer-machines setting given and every NOAM, of the
// distinct (partition, NOAM) pairs: every partition PipeDream's optimizer
// returns on the chain for some memory size and these flags. In order of
// target, then communication off before on, fewer machines off before on,
// then NOAM. Infeasible targets give nothing.
// With options.ties > 1, `capped` (when given) says whether some plan had
// more tied partitions than that, so that not all of them are in the answer.
std::vector<BaselineConfig> pipedream_configurations(const Workload& workload, const Platform& platform,
                                                     const BaselineOptions& options, bool* capped = nullptr);

// "noam=3 stages=0-5|6-12|13-25" (layer ranges, 0-based inclusive).
std::string describe(const BaselineConfig& config);
// "0-5|6-12|13-25".
std::string describe_stages(const std::vector<int>& last_layer);

}  // namespace pipesim
