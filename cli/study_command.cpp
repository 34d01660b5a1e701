#include "cli/study_command.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "cli/command_line.hpp"
#include "cli/output_files.hpp"
#include "patterns/pattern_yaml.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/format.hpp"
#include "sim/input_error.hpp"
#include "sim/units.hpp"
#include "sim/yaml_fields.hpp"
#include "studies/study.hpp"
#include "studies/study_runs.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/pipedream_profile.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {

namespace {

// The options checked and converted (defaults in StudyCommandOptions).
struct StudyOptions {
  std::string platform, input, output, title;
  std::vector<double> limits;
  std::vector<std::string> simgrid_config;
  StudySettings runs;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> items;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  return items;
}

int whole(const std::string& option, const std::string& text, int min) {
  long long v = 0;
  if (!YamlFields::parse_integer(text, v) || v < min || v > 100000000)
    throw UsageError(option + " needs a whole number >= " + std::to_string(min) + ", got '" + text + "'");
  return static_cast<int>(v);
}

WeightPolicy weight_policy(const std::string& option, const std::string& text) {
  for (WeightPolicy w : {WeightPolicy::Flush, WeightPolicy::TwoBW, WeightPolicy::Stashing})
    if (text == to_string(w)) return w;
  throw UsageError(option + " needs flush, 2bw or stashing, got '" + text + "'");
}

std::vector<double> byte_list(const std::string& option, const std::string& text) {
  std::vector<double> bytes;
  for (const std::string& item : split_list(text)) {
    try {
      bytes.push_back(parse_bytes(item));
    } catch (const std::invalid_argument& e) {
      throw UsageError(option + ": '" + item + "': " + e.what());
    }
    if (!(bytes.back() > 0)) throw UsageError(option + ": '" + item + "': must be positive");
  }
  return bytes;
}

// A share of something, 0 to 1.
double share(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0 && v <= 1))
    throw UsageError(option + " needs a number from 0 to 1, got '" + text + "'");
  return v;
}

// The option values as numbers, lists and a weight policy.
StudyOptions study_options(const StudyCommandOptions& c) {
  StudyOptions o;
  o.platform = c.platform;
  o.input = c.input;
  o.output = c.output;
  o.title = c.title;
  o.limits = byte_list("--memory", c.memory);
  std::sort(o.limits.begin(), o.limits.end());
  o.limits.erase(std::unique(o.limits.begin(), o.limits.end()), o.limits.end());
  for (const std::string& list : c.noams)
    for (const std::string& item : split_list(list)) o.runs.noams.push_back(whole("--noam", item, 1));
  o.simgrid_config = c.simgrid_config;
  try {
    o.runs.ilp_time_limit = parse_seconds(c.ilp_time_limit);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--ilp-time-limit: " + std::string(e.what()));
  }
  o.runs.ilp_threads = whole("--ilp-threads", c.ilp_threads, 1);
  o.runs.pipedream_ties = static_cast<std::size_t>(whole("--pipedream-ties", c.pipedream_ties, 1));
  o.runs.ilp_allocation_search = share("--ilp-allocation-search", c.ilp_allocation_search);
  o.runs.ilp = !c.no_ilp;
  o.runs.ilp_log = c.ilp_log;
  o.runs.keep_patterns = !c.export_patterns.empty();
  o.runs.ilp_weights = weight_policy("--ilp-weights", c.ilp_weights);
  o.runs.microbatches = whole("--microbatches", c.microbatches, 8);
  return o;
}

bool is_yaml(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

}  // namespace

CLI::App* add_study_command(CLI::App& root, StudyCommandOptions& o) {
  CLI::App* study =
      add_command(root, "study",
                  "Seed 000 section 7's memory-period study: PipeDream's partitions for every memory target\n"
                  "that changes them, with and without its communication term, and NOAM values, each\n"
                  "simulated as the eager 1F1B schedule, against the ILP's pattern for each memory limit\n"
                  "(docs/study.md).",
                  "Exit status: 0 written, 2 bad input.");
  study->add_option("PLATFORM.xml", o.platform, "a SimGrid platform")->required();
  study
      ->add_option("PROFILE|WORKLOAD", o.input,
                   "a PipeDream graph.txt (imported as by pipesim import)\nor a .yaml workload")
      ->required();
  study
      ->add_option("-o,--output", o.output,
                   "writes DIR/points.csv, DIR/table.md, DIR/plot.svg\n(and DIR/workload.yaml); "
                   "DIR is created if needed")
      ->type_name("DIR")
      ->required();
  study->add_option("--memory", o.memory, "per-device memory limits for the ILP and the table,\ne.g. 2GiB,4GiB")
      ->type_name("LIMIT[,LIMIT...]");
  study
      ->add_option("--ilp-time-limit", o.ilp_time_limit,
                   "seconds per ILP solve (default 300; 0: the heuristic\nwarm start only)")
      ->type_name("S");
  study->add_option("--ilp-threads", o.ilp_threads, "CBC threads (default 2)")->type_name("N");
  study
      ->add_option("--ilp-allocation-search", o.ilp_allocation_search,
                   "share of each ILP solve's time for the fixed-allocation\nimprovement loop (default 0.8; 0: none)")
      ->type_name("SHARE");
  study->add_flag("--no-ilp", o.no_ilp, "PipeDream points only");
  study->add_flag("--ilp-log", o.ilp_log, "the solver's progress lines on standard error");
  study
      ->add_option("--ilp-weights", o.ilp_weights,
                   "the ILP's weight versions: stashing (as PipeDream's\nruns, default), 2bw (seed 000), flush")
      ->type_name("POLICY");
  study->add_option("--noam", o.noams, "NOAM values (default 1..number of devices); repeatable")
      ->type_name("N[,N...]")
      ->allow_extra_args(false);
  study
      ->add_option("--pipedream-ties", o.pipedream_ties,
                   "tied partitions PipeDream may return, per plan (default\n1000; 1: the planner's own only)")
      ->type_name("N");
  study->add_option("--microbatches", o.microbatches, "micro-batches per simulated run (default 500)")->type_name("N");
  study
      ->add_option(
          "--export-patterns", o.export_patterns,
          "writes every point's periodic pattern (pattern format) as\nDIR/NNN-SOURCE.yaml, NNN its row in points.csv")
      ->type_name("DIR");
  study->add_option("--title", o.title, "plot title (default: workload and device count)")->type_name("TEXT");
  study->add_option("--cfg", o.simgrid_config, "a SimGrid setting; repeatable")
      ->type_name("KEY:VALUE")
      ->allow_extra_args(false);
  return study;
}

int study_command(const StudyCommandOptions& options) {
  StudyOptions o = study_options(options);
  // The outputs are checked now, the directory created only when they are written.
  check_output_directory("-o", o.output);
  if (!options.export_patterns.empty()) check_output_directory("--export-patterns", options.export_patterns);
  const std::filesystem::path dir(o.output);
  const std::string points_csv = (dir / "points.csv").string(), table_md = (dir / "table.md").string(),
                    plot_svg = (dir / "plot.svg").string(), workload_yaml = (dir / "workload.yaml").string();
  OutputFiles files;
  files.declare_input("the platform", o.platform);
  files.declare_input(is_yaml(o.input) ? "the workload" : "the profile", o.input);
  for (const std::string& path : {points_csv, table_md, plot_svg})
    files.declare("-o", path, OutputFiles::Parent::Create);
  if (!is_yaml(o.input)) files.declare("-o", workload_yaml, OutputFiles::Parent::Create);

  std::optional<ImportedProfile> imported;
  Workload workload;
  if (is_yaml(o.input)) {
    workload = load_workload(o.input);
  } else {
    imported = import_pipedream(o.input);
    workload = imported->workload;
  }
  Simulation simulation(o.platform, o.simgrid_config);  // loaded once; every run forks
  const Platform& platform = simulation.platform();
  workload = time_model_layers(workload, platform);  // a model's passes on the platform's device type
  if (o.title.empty()) o.title = workload.name + " on " + std::to_string(platform.size()) + " devices";

  std::vector<StudyPoint> points = pipedream_points(simulation, workload, o.limits, o.runs);
  if (o.runs.ilp) {
    const std::vector<StudyPoint> ilp = ilp_points(simulation, workload, o.limits, o.runs, points);
    points.insert(points.end(), ilp.begin(), ilp.end());
  }

  std::ostringstream table;  // also printed
  table.exceptions(std::ios::badbit);
  write_study_table(table, points, o.limits);
  files.set(points_csv, [&](std::ostream& text) { write_study_csv(text, points); });
  files.set(table_md, table.str());
  files.set(plot_svg, [&](std::ostream& text) { text << study_svg(points, {o.title, o.limits}); });
  for (std::size_t i = 0; i < points.size() && o.runs.keep_patterns; ++i) {
    if (!points[i].pattern) continue;
    char name[32];
    std::snprintf(name, sizeof(name), "%03zu-", i);
    const std::string path =
        (std::filesystem::path(options.export_patterns) / (name + points[i].source + ".yaml")).string();
    files.declare("--export-patterns", path, OutputFiles::Parent::Create);
    files.set(path, [&](std::ostream& text) { write_pattern_yaml(text, *points[i].pattern, platform); });
  }
  if (imported) files.set(workload_yaml, imported_workload_yaml(*imported));
  files.commit();

  const std::vector<StudyPoint> front = pareto_front(points, "pipedream");
  std::cout << o.title << ": " << workload.layers.size() << " layers, " << points.size() << " points, " << front.size()
            << " on PipeDream's front; written to " << o.output << "\n"
            << table.str();
  return 0;
}

}  // namespace pipesim
