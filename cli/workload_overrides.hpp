// --set KEY=VALUE: one workload file serves a study (docs/workload-format.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "workloads/workload_yaml.hpp"

namespace pipesim {

// Adds the repeatable --set option to COMMAND, filling TEXTS.
void add_set_option(CLI::App* command, std::vector<std::string>& texts);

// The parsed overrides; a malformed one throws UsageError.
std::vector<WorkloadOverride> parse_overrides(const std::vector<std::string>& texts);

}  // namespace pipesim
