// Runs a sweep's runs, each `pipesim run` in its own process (one SimGrid
// engine per process), JOBS at a time, and records each in DIR/runs/ID.json
// as soon as it ends, so a killed sweep resumes where it stopped.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "studies/sweep_plan.hpp"
#include "studies/sweep_results.hpp"

namespace pipesim {

struct SweepRunOptions {
  std::string binary;  // the pipesim executable
  std::string dir;     // the output folder (DIR/runs must exist)
  int jobs = 1;
  std::vector<std::string> simgrid_config;  // passed to every run as --cfg
  // Words each run starts under, before the binary: e.g. {"srun", "-n1",
  // "--exact"} runs each as a job step of the Slurm allocation it is in.
  std::vector<std::string> launcher;
  // Hears each finished run's --json report (empty when it wrote none)
  // before the report file is removed: a plan derives a twin's record from it.
  std::function<void(const RunRecord& record, const std::string& report_json)> on_report;
};

// Called after each finished run with how many are done of how many.
using SweepProgress = std::function<void(const RunRecord& record, std::size_t done, std::size_t total)>;

// Runs the plan's runs TODO (indices). A run that fails is a record
// (status, exit code, error line), never an exception; only a failure of
// the sweep itself (fork, writing DIR) throws. Each record goes to its file
// and to `progress`, and is not kept: a million of them would not fit.
void run_sweep(const SweepPlan& plan, const std::vector<std::size_t>& todo, const SweepRunOptions& options,
               const SweepProgress& progress);

}  // namespace pipesim
