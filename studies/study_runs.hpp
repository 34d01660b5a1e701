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
  // Partitions per plan (BaselineOptions::ties): 1, the planner's own; more,
  // also the tied ones PipeDream may return, screened by their patterns.
  std::size_t pipedream_ties = 1;
  int microbatches = 8;  // per simulated run
  bool ilp = true;
  double ilp_time_limit = 0;
  int ilp_threads = 0;
  double ilp_allocation_search = 0;  // IlpOptions::allocation_search
  bool ilp_log = false;
  bool keep_patterns = false;  // ILP points keep their pattern too; written out (--export-patterns)
  WeightPolicy ilp_weights = WeightPolicy::Stashing;
};

// One point per PipeDream configuration (the planner's partitions for every
// memory target that changes them and every limit, with and without its
// communication term, NOAM values: pipedream_configurations), simulated.
// With pipedream_ties > 1, the configurations of the other tied partitions
// are evaluated by their steady-state patterns (exact period, analytic
// peak: what their simulation gives) and those that no other configuration
// beats on both are simulated too (config "... tied"); one that has no
// pattern is simulated anyway. Every point keeps its pattern, if it has one.
std::vector<StudyPoint> pipedream_points(Simulation& simulation, const Workload& workload,
                                         const std::vector<double>& limits, const StudySettings& settings);
// One point per limit: the ILP's pattern with every device limited to it,
// unrolled and simulated; without a pattern, the solver's status. The
// fastest of `baseline`'s points within the limit that has a pattern is
// one of the solver's candidates (IlpOptions::candidates).
std::vector<StudyPoint> ilp_points(Simulation& simulation, const Workload& workload, const std::vector<double>& limits,
                                   const StudySettings& settings, const std::vector<StudyPoint>& baseline = {});

}  // namespace pipesim
