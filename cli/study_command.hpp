// pipesim study PLATFORM PROFILE_OR_WORKLOAD --memory LIMITS -o DIR: seed
// 000 §7's memory-period comparison, PipeDream's configurations against the
// ILP's patterns (docs/study.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pipesim {

// The options as given; study_command checks the values.
struct StudyCommandOptions {
  std::string platform, input, output, title, memory, export_patterns;
  // Defaults. Stashing weights: the accounting of the PipeDream runs the ILP is compared with.
  std::string ilp_time_limit = "300", ilp_threads = "2", ilp_weights = "stashing", microbatches = "500",
              ilp_allocation_search = "0.8", pipedream_ties = "1000";
  std::vector<std::string> noams, simgrid_config;
  bool no_ilp = false, ilp_log = false;
};

// Adds "study" to ROOT, filling OPTIONS when parsed.
CLI::App* add_study_command(CLI::App& root, StudyCommandOptions& options);

// Returns 0 when the outputs are written. A bad option value throws
// UsageError; bad input or an unwritable -o throws InputError before
// anything is written; main reports it.
int study_command(const StudyCommandOptions& options);

}  // namespace pipesim
