#include "cli/import_command.hpp"

#include <iostream>
#include <regex>

#include "cli/command_line.hpp"
#include "cli/output_files.hpp"
#include "sim/yaml_fields.hpp"
#include "traces/execution_trace.hpp"
#include "traces/trace_calibration.hpp"
#include "workloads/pipedream_profile.hpp"

namespace pipesim {
namespace {

int positive(const std::string& option, const std::string& text) {
  long long v = 0;
  if (!YamlFields::parse_integer(text, v) || v < 1 || v > 1000000000)
    throw UsageError(option + " needs a whole number >= 1, got '" + text + "'");
  return static_cast<int>(v);
}

bool is_trace(const std::string& path) { return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0; }

// The label pattern of OPTION, or FALLBACK when not given.
std::string pattern(const std::string& option, const std::string& given, const std::string& fallback) {
  if (given.empty()) return fallback;
  try {
    std::regex check(given);
  } catch (const std::regex_error&) {
    throw UsageError(option + " needs a regular expression, got '" + given + "'");
  }
  return given;
}

// What an import writes, and the line that says so.
struct Imported {
  std::string text, summary;
};

Imported import_trace(const ImportCommandOptions& o) {
  for (const auto& [option, value] :
       {std::pair{"--microbatches", o.microbatches}, {"--microbatch-size", o.microbatch_size}, {"--name", o.name}})
    if (!value.empty()) throw UsageError(std::string(option) + " is for a PipeDream graph.txt, not a trace");
  const TraceLabels defaults;
  const TraceLabels labels{pattern("--embedding", o.embedding, defaults.embedding),
                           pattern("--block", o.block, defaults.block), pattern("--head", o.head, defaults.head)};
  const StepCosts costs = attribute_step(read_kineto_trace(o.profile), labels);
  TraceCalibration calibration = calibration_from_step(costs);
  if (!o.execution_trace.empty())
    add_saved_bytes(calibration, saved_bytes(read_execution_trace(o.execution_trace), labels), o.execution_trace);
  return {calibration_yaml(calibration, costs, o.profile, o.device_time),
          o.profile + ": " + costs.step + " (" + std::to_string(calibration.microbatches) + " micro-batches, " +
              std::to_string(calibration.blocks) + " blocks) -> " + std::to_string(calibration.step.seconds.size()) +
              " op times" +
              (calibration.stash_bytes.empty()
                   ? ""
                   : ", " + std::to_string(calibration.stash_bytes.size()) + " stash sizes from " + o.execution_trace)};
}

Imported import_graph(const ImportCommandOptions& o) {
  for (const auto& [option, value] : {std::pair{"--embedding", o.embedding}, {"--block", o.block}, {"--head", o.head}})
    if (!value.empty()) throw UsageError(std::string(option) + " is for a profiler trace (.json), not a graph.txt");
  if (o.device_time) throw UsageError("--device-time is for a profiler trace (.json), not a graph.txt");
  if (!o.execution_trace.empty())
    throw UsageError("--execution-trace is for a profiler trace (.json), not a graph.txt");
  const ImportOptions defaults;
  ImportOptions options;
  options.microbatches = o.microbatches.empty() ? defaults.microbatches : positive("--microbatches", o.microbatches);
  options.microbatch_size =
      o.microbatch_size.empty() ? defaults.microbatch_size : positive("--microbatch-size", o.microbatch_size);
  options.name = o.name;
  const ImportedProfile imported = import_pipedream(o.profile, options);
  std::size_t operators = 0;
  for (const auto& group : imported.groups) operators += group.size();
  return {imported_workload_yaml(imported), imported.workload.name + ": " + std::to_string(operators) +
                                                " operators -> " + std::to_string(imported.workload.layers.size()) +
                                                " layers"};
}

}  // namespace

CLI::App* add_import_command(CLI::App& root, ImportCommandOptions& o) {
  CLI::App* import = add_command(root, "import",
                                 "Turns a PipeDream profile (graph.txt) into a chain workload by seed 000 section 7's\n"
                                 "linearization, or a PyTorch profiler trace (.json) of one training step into a\n"
                                 "calibration file for a model workload (docs/import.md).",
                                 "Exit status: 0 written, 2 bad input.");
  import->add_option("PROFILE", o.profile, "a PipeDream graph.txt, or a PyTorch profiler trace (.json)")->required();
  import->add_option("-o,--output", o.output, "where to write (default, or '-': standard output)")->type_name("FILE");
  import->add_option("--microbatches", o.microbatches, "graph.txt: micro-batches per iteration (default 500)")
      ->type_name("N");
  import->add_option("--microbatch-size", o.microbatch_size, "graph.txt: samples per micro-batch (default 1)")
      ->type_name("N");
  import->add_option("--name", o.name, "graph.txt: workload name (default: the profile's folder name)")
      ->type_name("NAME");
  const TraceLabels labels;
  import
      ->add_option("--embedding", o.embedding,
                   "trace: the embedding's record_function labels (" + labels.embedding + ")")
      ->type_name("REGEX");
  import->add_option("--block", o.block, "trace: a block's labels (" + labels.block + ")")->type_name("REGEX");
  import->add_option("--head", o.head, "trace: the head's labels (" + labels.head + ")")->type_name("REGEX");
  import->add_flag("--device-time", o.device_time,
                   "trace: write the kernels' time alone (the step if the host kept ahead of the GPU)");
  import
      ->add_option("--execution-trace", o.execution_trace,
                   "trace: the same step's PyTorch execution trace, for the bytes each part keeps for its backward")
      ->type_name("FILE");
  return import;
}

int import_command(const ImportCommandOptions& o) {
  const bool trace = is_trace(o.profile), to_stdout = o.output.empty() || o.output == "-";
  OutputFiles files;
  files.declare_input(trace ? "the trace" : "the profile", o.profile);
  if (!o.execution_trace.empty()) files.declare_input("the execution trace", o.execution_trace);
  if (!to_stdout) files.declare("-o", o.output);
  const Imported imported = trace ? import_trace(o) : import_graph(o);
  if (to_stdout) {
    std::cout << imported.text;
    return 0;
  }
  files.set(o.output, imported.text);
  files.commit();
  std::cout << imported.summary << ", written to " << o.output << "\n";
  return 0;
}

}  // namespace pipesim
