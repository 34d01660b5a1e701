// pipesim sweep SPEC.yaml -o DIR: a grid of runs, each in its own process,
// into DIR/results.csv; pipesim sweep merge DIR... -o DIR joins shards
// (docs/whatif.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pipesim {

struct SweepCommandOptions {
  std::string spec, output, shard;
  int jobs = 0;  // 0: the machine's cores
  std::vector<std::string> simgrid_config;
  std::vector<std::string> merge_inputs;
  std::string merge_output;
  CLI::App* merge = nullptr;
};

// Adds "sweep" (and its "merge") to ROOT, filling OPTIONS when parsed.
CLI::App* add_sweep_command(CLI::App& root, SweepCommandOptions& options);

// Returns 0 once every run of the sweep (or shard) has a row; a bad spec,
// shard or folder throws before anything runs or is written.
int sweep_command(const SweepCommandOptions& options);

}  // namespace pipesim
