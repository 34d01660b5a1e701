#include "cli/run_command.hpp"

#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "analysis/pattern_summary.hpp"
#include "analysis/training_figures.hpp"
#include "analysis/worker_metrics.hpp"
#include "cli/command_line.hpp"
#include "cli/engine_choice.hpp"
#include "cli/output_files.hpp"
#include "cli/workload_overrides.hpp"
#include "parallelism/job.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_yaml.hpp"
#include "reports/chrome_trace.hpp"
#include "reports/json_report.hpp"
#include "reports/memory_csv.hpp"
#include "reports/orders_csv.hpp"
#include "reports/pipeline_diagram.hpp"
#include "reports/summary.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "sim/units.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {

CLI::App* add_run_command(CLI::App& root, RunOptions& o) {
  CLI::App* run = add_command(root, "run", "Simulates pipelined training of WORKLOAD on PLATFORM and prints a summary.",
                              "Exit status: 0 valid run, 1 invalid run (memory exceeded or deadlock), 2 bad input.");
  run->add_option("PLATFORM.xml", o.platform, "a SimGrid platform (docs/platform-format.md)")->required();
  run->add_option("WORKLOAD.yaml", o.workload, "a workload (docs/workload-format.md)")->required();
  run->add_option("--json", o.json, "every metric as JSON")->type_name("FILE");
  run->add_option("--trace", o.trace, "Chrome/Perfetto trace (one track per device and link)")->type_name("FILE");
  run->add_option("--memory-trace", o.memory_trace, "CSV of time,device,category,bytes")->type_name("FILE");
  run->add_option("--export-pattern", o.export_pattern,
                  "the schedule as a periodic pattern (YAML),\nto run or validate")
      ->type_name("FILE");
  run->add_option("--export-orders", o.export_orders,
                  "per-device orders as a PyTorch pipelining compute CSV,\nto run with schedule csv or in PyTorch")
      ->type_name("FILE");
  run->add_option("--diagram", o.diagram, "pipeline diagram: SVG if FILE ends in .svg,\nelse tab-separated text")
      ->type_name("FILE");
  run->add_option("--workers", o.workers, "per-worker table: receives, stashes, weight copies,\nrho (seed 003)")
      ->type_name("FILE");
  run->add_option("--schedule-param", o.schedule_params,
                  "set (or with an empty VALUE, remove) a schedule parameter\n"
                  "of the workload, e.g. scheme=ddp for schedule master; repeatable")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  add_set_option(run, o.overrides);
  run->add_option("--cfg", o.simgrid_config, "a SimGrid setting (default network/model:CM02,\nsee docs); repeatable")
      ->type_name("KEY:VALUE")
      ->allow_extra_args(false);
  run->add_option("--max-memory", o.max_memory,
                  "memory the simulation itself may use, e.g. 32GiB (default:\n3/4 of this machine's, at most 16 GiB)")
      ->type_name("SIZE");
  run->add_option("--engine", o.engine,
                  "simgrid, analytic (exact without SimGrid, refused where\nit cannot be: lanes sharing a device, WIFI "
                  "links...) or auto "
                  "(default: analytic\nwhen exact, else simgrid)")
      ->type_name("ENGINE")
      ->check(CLI::IsMember({"simgrid", "analytic", "auto"}));
  run->add_flag("--no-fold", o.no_fold,
                "simulate every data-parallel replica and TP rank, even where\nthey are alike (default: one for all, "
                "docs/folding.md)");
  run->add_flag("--quiet", o.quiet, "no summary on stdout");
  return run;
}

int run_command(const RunOptions& options) {
  std::vector<std::pair<std::string, std::string>> schedule_params;
  for (const std::string& kv : options.schedule_params) {
    const std::size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--schedule-param needs KEY=VALUE, got '" + kv + "'");
    schedule_params.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  const std::vector<WorkloadOverride> overrides = parse_overrides(options.overrides);
  RunLimits limits;
  if (!options.max_memory.empty()) {
    try {
      limits.max_memory_bytes = parse_bytes(options.max_memory);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--max-memory: '" + options.max_memory + "': " + e.what());
    }
    if (!(limits.max_memory_bytes > 0))
      throw UsageError("--max-memory: '" + options.max_memory + "': must be positive");
  }
  limits.export_pattern = !options.export_pattern.empty();
  OutputFiles outputs;
  outputs.declare_input("the platform", options.platform);
  outputs.declare_input("the workload", options.workload);
  const std::pair<const char*, const std::string*> files[] = {{"--json", &options.json},
                                                              {"--trace", &options.trace},
                                                              {"--memory-trace", &options.memory_trace},
                                                              {"--export-pattern", &options.export_pattern},
                                                              {"--export-orders", &options.export_orders},
                                                              {"--diagram", &options.diagram},
                                                              {"--workers", &options.workers}};
  for (const auto& [option, path] : files)
    if (!path->empty()) outputs.declare(option, *path);

  Workload workload = load_workload(options.workload, overrides);
  for (const auto& [key, value] : schedule_params) {
    if (value.empty())
      workload.schedule_params.erase(key);
    else
      workload.schedule_params[key] = value;
  }
  // The pattern or CSV the workload's schedule reads is an input too, and so are a model's files.
  if (const std::string file = schedule_file_path(workload); !file.empty())
    outputs.declare_input("the schedule file", file);
  if (workload.model && !workload.model->config.empty())
    outputs.declare_input("the model's config", workload.model->config);
  if (workload.model && !workload.model->calibration.empty())
    outputs.declare_input("the calibration file", workload.model->calibration);
  Simulation simulation(options.platform, options.simgrid_config, limits.max_memory_bytes);
  const Platform& platform = simulation.platform();
  workload = time_model_layers(workload, platform);  // a model's passes on the platform's device type
  // Alike replicas are simulated once, unless an output lists every task or the engine is SimGrid.
  const bool fold = !options.no_fold && options.engine != "simgrid" && options.trace.empty() &&
                    options.memory_trace.empty() && options.export_orders.empty() && options.export_pattern.empty() &&
                    options.diagram.empty() && options.workers.empty();
  GeneratedSchedule schedule = generate_job(workload, platform, limits, fold);
  // What the schedule's pattern promises (exact period, analytic memory), beside what was simulated.
  // Summarized before the run: its event graph is gone before the engine's memory is taken.
  std::optional<PatternSummary> pattern;
  if (schedule.pattern)
    pattern = summarize_pattern(
        *schedule.pattern,
        schedule.pattern_timing ? *schedule.pattern_timing : pattern_timing(*schedule.pattern, workload, platform),
        workload, platform.size());
  std::string not_folded = schedule.folding.what;
  std::optional<EngineRun> folded;
  if (schedule.folding.folded()) {
    folded = run_folded(simulation, schedule.graph, schedule.folding, not_folded);
    if (!folded) schedule = generate_job(workload, platform, limits, false);
  }
  const TaskGraph& graph = schedule.graph;
  EngineRun engine = folded ? std::move(*folded) : run_engine(simulation, graph, options.engine);
  if (!folded && fold && (workload.parallel.dp > 1 || workload.parallel.tp > 1))
    engine.description += ", not folded: " + not_folded;
  const Timeline& timeline = engine.timeline;
  const Folding* folding = schedule.folding.folded() ? &schedule.folding : nullptr;
  // Every data-parallel replica trains its own micro-batches.
  const Metrics metrics =
      compute_metrics(graph, timeline, platform, workload.microbatch_size * workload.parallel.dp, folding);
  const std::optional<TrainingFigures> training = training_figures(workload, platform, metrics, graph, folding);
  const TrainingFigures* job = training ? &*training : nullptr;
  if (pattern) pattern->simulated_period = simulated_period(*pattern, metrics, graph, timeline);
  const PatternSummary* promised = pattern ? &*pattern : nullptr;
  const std::string schedule_name = canonical_schedule_name(workload.schedule);  // an alias reports its schedule

  if (!options.json.empty())
    outputs.set(options.json, [&](std::ostream& text) {
      write_json_report(text, metrics, platform, schedule_name, promised, schedule.split ? &*schedule.split : nullptr,
                        &schedule.memory_saving, &engine.engine, job);
    });
  if (!options.trace.empty())
    outputs.set(options.trace, [&](std::ostream& text) { write_chrome_trace(text, graph, timeline, platform); });
  if (!options.memory_trace.empty())
    outputs.set(options.memory_trace,
                [&](std::ostream& text) { write_memory_csv(text, memory_trace(graph, timeline), platform); });
  if (!options.export_orders.empty())
    outputs.set(options.export_orders, [&](std::ostream& text) {
      try {
        write_orders_csv(text, graph, timeline);
      } catch (const std::invalid_argument& e) {
        throw InputError(options.workload, "schedule",
                         "schedule '" + workload.schedule + "' cannot be exported as PyTorch orders: " + e.what());
      }
    });
  if (!options.export_pattern.empty()) {
    if (!schedule.pattern && !schedule.iteration_pattern)
      throw InputError(options.workload, "schedule",
                       "schedule '" + workload.schedule + "' has no periodic pattern to export");
    outputs.set(options.export_pattern, [&](std::ostream& text) {
      write_pattern_yaml(text, schedule.pattern ? *schedule.pattern : schedule.iteration_pattern(), platform);
    });
  }
  if (!options.diagram.empty()) {
    DiagramOptions diagram;
    diagram.title = workload.name;
    const bool svg = options.diagram.size() >= 4 && options.diagram.compare(options.diagram.size() - 4, 4, ".svg") == 0;
    diagram.batch_ids = !svg;  // text has no colours: cells say "f2b5"
    try {
      outputs.set(options.diagram, [&](std::ostream& text) {
        text << (svg ? pipeline_diagram_svg(graph, timeline, platform, diagram)
                     : pipeline_diagram_text(graph, timeline, platform, diagram));
      });
    } catch (const std::length_error& e) {
      throw InputError(options.diagram, "--diagram", e.what());
    }
  }
  if (!options.workers.empty())
    outputs.set(options.workers, [&](std::ostream& text) {
      write_worker_report(text, compute_worker_metrics(graph, timeline, platform));
    });
  outputs.commit();
  if (!options.quiet)
    write_summary(std::cout, metrics, platform, schedule_name, promised, schedule.split ? &*schedule.split : nullptr,
                  &schedule.memory_saving, &engine.description, job);
  return metrics.valid ? 0 : 1;
}

}  // namespace pipesim
