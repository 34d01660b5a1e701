#include "cli/import_command.hpp"

#include <iostream>
#include <stdexcept>

#include "cli/output_files.hpp"
#include "workloads/pipedream_profile.hpp"
#include "workloads/yaml_fields.hpp"

namespace pipesim {

const char* const kImportUsage =
    "usage: pipesim import GRAPH.txt [-o WORKLOAD.yaml] [--microbatches N] [--microbatch-size N] [--name NAME]\n"
    "Turns a PipeDream profile (graph.txt) into a chain workload by seed 000 section 7's\n"
    "linearization (docs/import.md).\n"
    "  -o, --output FILE    where to write the workload (default: standard output)\n"
    "  --microbatches N     micro-batches per iteration (default 500)\n"
    "  --microbatch-size N  samples per micro-batch, for throughput (default 1)\n"
    "  --name NAME          workload name (default: the profile's folder name)\n"
    "Exit status: 0 written, 2 bad input.\n";

namespace {

class ImportUsageError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

int positive(const std::string& option, const std::string& text) {
  long long v = 0;
  if (!YamlFields::parse_integer(text, v) || v < 1 || v > 1000000000)
    throw ImportUsageError(option + " needs a whole number >= 1, got '" + text + "'");
  return static_cast<int>(v);
}

}  // namespace

int import_command(const std::vector<std::string>& args) {
  std::string graph, output;
  ImportOptions options;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size()) throw ImportUsageError(a + " needs a value");
        return args[++i];
      };
      if (a == "--help" || a == "-h") {
        std::cout << kImportUsage;
        return 0;
      }
      if (a == "-o" || a == "--output")
        output = value();
      else if (a == "--microbatches")
        options.microbatches = positive(a, value());
      else if (a == "--microbatch-size")
        options.microbatch_size = positive(a, value());
      else if (a == "--name")
        options.name = value();
      else if (a.size() > 1 && a[0] == '-')
        throw ImportUsageError("unknown option " + a);
      else if (graph.empty())
        graph = a;
      else
        throw ImportUsageError("import takes one profile file");
    }
    if (graph.empty()) throw ImportUsageError("import takes one profile file");
  } catch (const ImportUsageError& e) {
    std::cerr << "pipesim: " << e.what() << "\n" << kImportUsage;
    return 2;
  }
  const ImportedProfile imported = import_pipedream(graph, options);
  const std::string yaml = imported_workload_yaml(imported);
  if (output.empty() || output == "-") {
    std::cout << yaml;
    return 0;
  }
  OutputFiles files;
  files.stage(output, yaml);
  files.commit();
  std::size_t operators = 0;
  for (const auto& group : imported.groups) operators += group.size();
  std::cout << imported.workload.name << ": " << operators << " operators -> " << imported.workload.layers.size()
            << " layers, written to " << output << "\n";
  return 0;
}

}  // namespace pipesim
