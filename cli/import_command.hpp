// pipesim import PROFILE: a PipeDream profile (graph.txt) as a chain
// workload, or a PyTorch profiler trace (.json) as a calibration file
// (docs/import.md).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace pipesim {

struct ImportCommandOptions {
  std::string profile, output;                      // output empty or "-": standard output
  std::string microbatches, microbatch_size, name;  // graph.txt only; as given, checked by import_command
  std::string embedding, block, head;               // a trace only: label patterns; empty: the defaults
  bool device_time = false;                         // a trace only: the kernels' time alone
  std::string execution_trace;                      // a trace only: the step's execution trace, for stash bytes
};

// Adds "import" to ROOT, filling OPTIONS when parsed.
CLI::App* add_import_command(CLI::App& root, ImportCommandOptions& options);

// Returns 0 when written. A bad option value throws UsageError; a malformed
// profile or trace or an unwritable output throws InputError before anything
// is written; main reports it.
int import_command(const ImportCommandOptions& options);

}  // namespace pipesim
