#include "cli/import_command.hpp"

#include <iostream>

#include "cli/command_line.hpp"
#include "cli/output_files.hpp"
#include "workloads/pipedream_profile.hpp"
#include "workloads/yaml_fields.hpp"

namespace pipesim {
namespace {

int positive(const std::string& option, const std::string& text) {
  long long v = 0;
  if (!YamlFields::parse_integer(text, v) || v < 1 || v > 1000000000)
    throw UsageError(option + " needs a whole number >= 1, got '" + text + "'");
  return static_cast<int>(v);
}

}  // namespace

CLI::App* add_import_command(CLI::App& root, ImportCommandOptions& o) {
  CLI::App* import = add_command(root, "import",
                                 "Turns a PipeDream profile (graph.txt) into a chain workload by seed 000 section 7's\n"
                                 "linearization (docs/import.md).",
                                 "Exit status: 0 written, 2 bad input.");
  const ImportOptions defaults;
  o.microbatches = std::to_string(defaults.microbatches);
  o.microbatch_size = std::to_string(defaults.microbatch_size);
  import->add_option("GRAPH.txt", o.graph, "a PipeDream profile")->required();
  import->add_option("-o,--output", o.output, "where to write the workload (default, or '-': standard output)")
      ->type_name("FILE");
  import->add_option("--microbatches", o.microbatches, "micro-batches per iteration (default 500)")->type_name("N");
  import->add_option("--microbatch-size", o.microbatch_size, "samples per micro-batch, for throughput (default 1)")
      ->type_name("N");
  import->add_option("--name", o.name, "workload name (default: the profile's folder name)")->type_name("NAME");
  return import;
}

int import_command(const ImportCommandOptions& o) {
  ImportOptions options;
  options.microbatches = positive("--microbatches", o.microbatches);
  options.microbatch_size = positive("--microbatch-size", o.microbatch_size);
  options.name = o.name;
  const bool to_stdout = o.output.empty() || o.output == "-";
  OutputFiles files;
  files.declare_input("the profile", o.graph);
  if (!to_stdout) files.declare("-o", o.output);

  const ImportedProfile imported = import_pipedream(o.graph, options);
  const std::string yaml = imported_workload_yaml(imported);
  if (to_stdout) {
    std::cout << yaml;
    return 0;
  }
  files.set(o.output, yaml);
  files.commit();
  std::size_t operators = 0;
  for (const auto& group : imported.groups) operators += group.size();
  std::cout << imported.workload.name << ": " << operators << " operators -> " << imported.workload.layers.size()
            << " layers, written to " << o.output << "\n";
  return 0;
}

}  // namespace pipesim
