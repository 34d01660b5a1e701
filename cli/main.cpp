// pipesim run PLATFORM WORKLOAD: inputs -> schedule -> task graph -> SimGrid
// -> timeline -> analysis -> reports.
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "reports/chrome_trace.hpp"
#include "reports/json_report.hpp"
#include "analysis/memory.hpp"
#include "reports/memory_csv.hpp"
#include "analysis/metrics.hpp"
#include "analysis/pattern_summary.hpp"
#include "reports/pipeline_diagram.hpp"
#include "analysis/worker_metrics.hpp"
#include "reports/summary.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_yaml.hpp"
#include "schedules/registry.hpp"
#include "cli/output_files.hpp"
#include "cli/import_command.hpp"
#include "cli/study_command.hpp"
#include "cli/validate_command.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

constexpr const char* kUsage =
    "usage: pipesim run PLATFORM.xml WORKLOAD.yaml [--json FILE] [--trace FILE]\n"
    "                   [--memory-trace FILE] [--export-pattern FILE] [--cfg KEY:VALUE]... [--quiet]\n"
    "                   [--schedule-param KEY=VALUE]... [--diagram FILE] [--workers FILE]\n"
    "Simulates pipelined training of WORKLOAD on PLATFORM and prints a summary.\n"
    "  --json FILE          every metric as JSON\n"
    "  --trace FILE         Chrome/Perfetto trace (one track per device and link)\n"
    "  --memory-trace FILE  CSV of time,device,category,bytes\n"
    "  --export-pattern FILE  the schedule as a periodic pattern (YAML), to run or validate\n"
    "  --cfg KEY:VALUE      a SimGrid setting (default network/model:CM02, see docs)\n"
    "  --quiet              no summary on stdout\n"
    "  --schedule-param KEY=VALUE  set (or with an empty VALUE, remove) a schedule parameter\n"
    "                       of the workload, e.g. scheme=ddp for schedule master\n"
    "  --diagram FILE       pipeline diagram: SVG if FILE ends in .svg, else tab-separated text\n"
    "  --workers FILE       per-worker table: receives, stashes, weight copies, rho (seed 003)\n"
    "Exit status: 0 valid run, 1 invalid run (memory exceeded or deadlock), 2 bad input.\n"
    "Also: pipesim validate PLATFORM.xml WORKLOAD.yaml SCHEDULE, pipesim import GRAPH.txt,\n"
    "      pipesim study PLATFORM.xml PROFILE (each with --help).\n";

struct RunOptions {
  std::string platform, workload, json, trace, memory_trace, export_pattern;
  std::vector<std::string> simgrid_config;
  // Seed 003 (master scheduler) additions.
  std::vector<std::pair<std::string, std::string>> schedule_params;
  std::string diagram, workers;
  bool quiet = false;
};

class UsageError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

RunOptions parse_run_options(const std::vector<std::string>& args) {
  RunOptions options;
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--json") options.json = value();
    else if (a == "--trace") options.trace = value();
    else if (a == "--memory-trace") options.memory_trace = value();
    else if (a == "--export-pattern") options.export_pattern = value();
    else if (a == "--cfg") options.simgrid_config.push_back(value());
    else if (a.rfind("--cfg=", 0) == 0) options.simgrid_config.push_back(a.substr(6));
    else if (a == "--quiet") options.quiet = true;
    else if (a == "--schedule-param") {
      const std::string& kv = value();
      const size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw UsageError("--schedule-param needs KEY=VALUE, got '" + kv + "'");
      options.schedule_params.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else if (a == "--diagram") options.diagram = value();
    else if (a == "--workers") options.workers = value();
    else if (a.rfind("--", 0) == 0) throw UsageError("unknown option " + a);
    else positional.push_back(a);
  }
  if (positional.size() != 2) throw UsageError("run takes a platform file and a workload file");
  options.platform = positional[0];
  options.workload = positional[1];
  return options;
}

int run(const RunOptions& options) {
  Workload workload = load_workload(options.workload);
  for (const auto& [key, value] : options.schedule_params) {
    if (value.empty())
      workload.schedule_params.erase(key);
    else
      workload.schedule_params[key] = value;
  }
  Simulation simulation(options.platform, options.simgrid_config);
  const Platform& platform = simulation.platform();
  const GeneratedSchedule schedule = generate(workload, platform);
  const TaskGraph& graph = schedule.graph;
  const Timeline timeline = simulation.run(graph);
  const Metrics metrics = compute_metrics(graph, timeline, platform, workload.microbatch_size);
  // What the schedule's pattern promises (exact period, analytic memory), beside what was simulated.
  std::optional<PatternSummary> pattern;
  if (schedule.pattern) {
    pattern = summarize_pattern(*schedule.pattern, pattern_timing(*schedule.pattern, workload, platform), workload,
                                platform.size());
    pattern->simulated_period = simulated_period(*pattern, metrics, graph, timeline);
  }
  const PatternSummary* promised = pattern ? &*pattern : nullptr;

  OutputFiles outputs;
  if (!options.json.empty()) {
    std::ostringstream text;
    write_json_report(text, metrics, platform, workload.schedule, promised);
    outputs.stage(options.json, text.str());
  }
  if (!options.trace.empty()) {
    std::ostringstream text;
    write_chrome_trace(text, graph, timeline, platform);
    outputs.stage(options.trace, text.str());
  }
  if (!options.memory_trace.empty()) {
    std::ostringstream text;
    write_memory_csv(text, memory_trace(graph, timeline), platform);
    outputs.stage(options.memory_trace, text.str());
  }
  if (!options.export_pattern.empty()) {
    if (!schedule.pattern)
      throw InputError(options.workload, "schedule", "schedule '" + workload.schedule + "' has no periodic pattern to export");
    std::ostringstream text;
    write_pattern_yaml(text, *schedule.pattern, platform);
    outputs.stage(options.export_pattern, text.str());
  }
  if (!options.diagram.empty()) {
    DiagramOptions diagram;
    diagram.title = workload.name;
    const bool svg = options.diagram.size() >= 4 && options.diagram.compare(options.diagram.size() - 4, 4, ".svg") == 0;
    diagram.batch_ids = !svg;  // text has no colours: cells say "f2b5"
    outputs.stage(options.diagram, svg ? pipeline_diagram_svg(graph, timeline, platform, diagram)
                                       : pipeline_diagram_text(graph, timeline, diagram));
  }
  if (!options.workers.empty()) {
    std::ostringstream text;
    write_worker_report(text, compute_worker_metrics(graph, timeline, platform));
    outputs.stage(options.workers, text.str());
  }
  outputs.commit();
  if (!options.quiet) write_summary(std::cout, metrics, platform, workload.schedule, promised);
  return metrics.valid ? 0 : 1;
}

}  // namespace
}  // namespace pipesim

int main(int argc, char** argv) {
  using namespace pipesim;
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  try {
    if (args[0] == "validate") return validate_command({args.begin() + 1, args.end()});
    if (args[0] == "import") return import_command({args.begin() + 1, args.end()});
    if (args[0] == "study") return study_command({args.begin() + 1, args.end()});
    if (args[0] != "run") throw UsageError("unknown command '" + args[0] + "'");
    return run(parse_run_options({args.begin() + 1, args.end()}));
  } catch (const UsageError& e) {
    std::cerr << "pipesim: " << e.what() << "\n" << kUsage;
  } catch (const InputError& e) {
    std::cerr << "pipesim: error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "pipesim: error: " << e.what() << "\n";
  }
  return 2;
}
