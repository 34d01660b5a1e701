// pipesim run PLATFORM WORKLOAD: inputs -> schedule -> task graph -> SimGrid
// -> timeline -> analysis -> reports.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace pipesim {

struct RunOptions {
  std::string platform, workload, json, trace, memory_trace, export_pattern;
  std::vector<std::string> simgrid_config;
  std::vector<std::string> overrides;  // --set KEY=VALUE on the workload
  // Seed 003 (master scheduler) additions.
  std::vector<std::string> schedule_params;  // KEY=VALUE, checked by run_command
  std::string diagram, workers, export_orders;
  std::string max_memory;       // SIZE for RunLimits, empty: the default
  std::string engine = "auto";  // simgrid, analytic or auto (cli/engine_choice.hpp)
  bool no_fold = false;         // simulate every replica (docs/folding.md)
  bool quiet = false;
};

// Adds "run" to ROOT, filling OPTIONS when parsed.
CLI::App* add_run_command(CLI::App& root, RunOptions& options);

// Returns 0 for a valid run, 1 for an invalid one (memory exceeded,
// deadlock). A bad --schedule-param throws UsageError; bad input or an
// unwritable output throws (InputError or another std::exception) before
// anything is printed or written.
int run_command(const RunOptions& options);

}  // namespace pipesim
