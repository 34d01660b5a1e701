// pipesim validate PLATFORM WORKLOAD SCHEDULE: every violation of a
// periodic pattern (*.yaml, *.yml) or of explicit per-device orders (*.csv),
// one line each, then a verdict (docs/validate.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pipesim {

struct ValidateOptions {
  std::string platform, workload, schedule, json;
  std::string memory_policy = "lifetime";  // a pattern's buffers: lifetime | seed000
  std::vector<std::string> simgrid_config;
  std::vector<std::string> overrides;  // --set KEY=VALUE on the workload
};

// Adds "validate" to ROOT, filling OPTIONS when parsed.
CLI::App* add_validate_command(CLI::App& root, ValidateOptions& options);

// Returns the exit status: 0 valid, 1 invalid. Bad input or an unwritable
// output throws (InputError or another std::exception) before anything is
// printed or written; main reports it.
int validate_command(const ValidateOptions& options);

}  // namespace pipesim
