// The workload's memory_saving option on a pattern schedule (1f1b-pattern,
// kfkb, pattern): seed 002's rematerialization program for each stage (a
// maximal run of consecutive layers on one device), its forwards in place
// of the stage's F ops, its recomputes folded into the B op they precede,
// so that the pattern is built around the programs and its exact period
// and analytic memory stay the run's (docs/memory-saving.md, "Pattern
// schedules").
#pragma once

#include <vector>

#include "patterns/pattern.hpp"
#include "patterns/pattern_timing.hpp"
#include "schedules/memory_saving/stage_programs.hpp"
#include "sim/memory_saving_summary.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim::memory_saving {

struct PatternStage {
  int first_layer = 0, last_layer = 0;  // pattern layers, inclusive
  int device = 0;
};

struct PatternPrograms {
  std::vector<PatternStage> stages;
  std::vector<StageProgram> programs;  // one per stage
  // The workload whose layers' backward also do the recomputes folded into
  // them: the pattern to unroll is built on it.
  Workload folded;
  std::vector<double> forward_flops, backward_flops;  // per layer, of the plain passes
};

// From the pattern built on the workload as given (its stages, in-flight
// counts and static memory set the budgets). Throws InputError for a
// policy other than remat or none, or copies placed differently;
// InfeasibleRun as plan_stage_programs.
PatternPrograms plan_pattern_programs(const Workload& workload, const Platform& platform, const Pattern& plain,
                                      const PatternTiming& plain_timing);

// Fills timing.steps (and sets each programmed op's duration to its steps'
// sum) for a pattern built on programs.folded with the same stages.
void attach_programs(const PatternPrograms& programs, const Pattern& pattern, const Platform& platform,
                     PatternTiming& timing);

std::vector<StageMemorySaving> summaries(const PatternPrograms& programs);

}  // namespace pipesim::memory_saving
