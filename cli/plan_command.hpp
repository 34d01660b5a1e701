// pipesim plan PLATFORM WORKLOAD -o DIR: the fastest configuration of the
// workload's model on the platform that fits (docs/plan.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pipesim {

struct PlanCommandOptions {
  std::string platform, workload, output;
  int global_batch = 0;  // 0: the workload's micro-batches x micro-batch size x dp
  int top = 10;
  int jobs = 0;  // 0: the machine's cores
  bool screen_only = false;
  std::string schedules;                // comma-separated; "": default_plan_schedules()
  std::string zero;                     // comma-separated ZeRO stages; "": 0, 1 and 2
  std::string partitions;               // comma-separated partitions; "": even and balanced
  std::string memory_saving = "remat";  // remat or both: pipelines over memory also weighed with seed 002's; none
  std::string objective = "time";       // time, memory or cost
  std::string launcher;                 // words each run starts under ("srun -n1 --exact"); "": none
  std::vector<std::string> simgrid_config;
};

CLI::App* add_plan_command(CLI::App& root, PlanCommandOptions& options);

// Returns 0 with a winner, 1 when nothing fits (the report says the
// smallest memory any candidate needs); bad input throws before anything is
// simulated or written.
int plan_command(const PlanCommandOptions& options);

}  // namespace pipesim
