// pipesim import GRAPH.txt: a PipeDream profile as a chain workload (docs/import.md).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace pipesim {

struct ImportCommandOptions {
  std::string graph, output;                        // output empty or "-": standard output
  std::string microbatches, microbatch_size, name;  // as given; checked by import_command
};

// Adds "import" to ROOT, filling OPTIONS when parsed.
CLI::App* add_import_command(CLI::App& root, ImportCommandOptions& options);

// Returns 0 when written. A bad option value throws UsageError; a malformed
// profile or an unwritable output throws InputError before anything is
// written; main reports it.
int import_command(const ImportCommandOptions& options);

}  // namespace pipesim
