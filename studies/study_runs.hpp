// The runs of seed 000 §7's study: PipeDream's planner configurations and
// the ILP's patterns, each simulated in a forked child of a process that
// has loaded the platform once. Progress goes to stderr.
#pragma once

#include <vector>

#include "patterns/pattern.hpp"
#include "sim/engine/simulation.hpp"
#include "studies/study.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

struct StudySettings {
  std::vector<int> noams;  // PipeDream's in-flight counts tried (empty: 1..stages)
  int microbatches = 8;    // per simulated run
  bool ilp = true;
  double ilp_time_limit = 0;
  int ilp_threads = 0;
  double ilp_allocation_search = 0;  // IlpOptions::allocation_search
  bool ilp_log = false;
  bool keep_patterns = false;  // StudyPoint::pattern for every point that has one (--export-patterns)
  WeightPolicy ilp_weights = WeightPolicy::Stashing;
};

// One point per PipeDream configuration (the planner's partitions for every
// memory target that changes them and every limit, with and without its
// communication term, NOAM values: pipedream_configurations), simulated.
std::vector<StudyPoint> pipedream_points(Simulation& simulation, const Workload& workload,
                                         const std::vector<double>& limits, const StudySettings& settings);
// One point per limit: the ILP's pattern with every device limited to it,
// unrolled and simulated; without a pattern, the solver's status.
std::vector<StudyPoint> ilp_points(Simulation& simulation, const Workload& workload, const std::vector<double>& limits,
                                   const StudySettings& settings);

}  // namespace pipesim
