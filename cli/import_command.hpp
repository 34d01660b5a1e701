// pipesim import GRAPH.txt: a PipeDream profile as a chain workload (docs/import.md).
#pragma once

#include <string>
#include <vector>

namespace pipesim {

extern const char* const kImportUsage;

// args: what follows "import". Returns 0 when written, 2 on a usage error
// (already printed). A malformed profile throws InputError before anything
// is written; main reports it.
int import_command(const std::vector<std::string>& args);

}  // namespace pipesim
