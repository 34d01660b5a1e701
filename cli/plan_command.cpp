#include "cli/plan_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "cli/command_line.hpp"
#include "cli/sweep_folder.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/format.hpp"
#include "sim/input_error.hpp"
#include "studies/plan/plan_report.hpp"
#include "studies/plan/plan_search.hpp"
#include "studies/sweep_results.hpp"
#include "studies/sweep_runner.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

// GPUs per box: the smallest node's compute devices (0 when no device names its node).
int node_gpus(const Platform& platform) {
  std::map<std::string, int> nodes;
  for (const Device& d : platform.devices)
    if (!is_host_memory(d) && !d.node.empty()) ++nodes[d.node];
  int smallest = 0;
  for (const auto& [name, n] : nodes) smallest = smallest ? std::min(smallest, n) : n;
  return smallest;
}

// One line, redrawn on a terminal; a line per tenth otherwise.
class Progress {
 public:
  explicit Progress(std::string what) : what_(std::move(what)), tty_(::isatty(STDERR_FILENO) == 1) {}
  void operator()(std::size_t done, std::size_t total) {
    if (tty_) {
      std::cerr << "\rplan: " << what_ << " " << done << "/" << total << "\x1b[K" << (done == total ? "\n" : "")
                << std::flush;
    } else if (done * 10 >= tenth_ * total) {
      std::cerr << "plan: " << what_ << " " << done << "/" << total << "\n";
      ++tenth_;
    }
  }

 private:
  std::string what_;
  bool tty_;
  std::size_t tenth_ = 1;
};

// --launcher's words; its command must be one this machine can start.
std::vector<std::string> launcher_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) {
    if (!text.empty()) throw UsageError("--launcher: expected a command like 'srun -n1 --exact', got '" + text + "'");
    return words;
  }
  if (words.front().find('/') == std::string::npos) {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty() && ::access((dir + "/" + words.front()).c_str(), X_OK) == 0) return words;
  } else if (::access(words.front().c_str(), X_OK) == 0) {
    return words;
  }
  throw UsageError("--launcher: '" + words.front() + "' is not a command this machine can run");
}

}  // namespace

CLI::App* add_plan_command(CLI::App& root, PlanCommandOptions& o) {
  CLI::App* plan = add_command(
      root, "plan",
      "Finds the fastest configuration of WORKLOAD's model on PLATFORM that fits: every\n"
      "TP x PP x DP layout, micro-batch size, pipeline schedule, recompute, memory saving per\n"
      "stage and ZeRO stage, screened by exact bounds and simulated fastest bound first\n"
      "(docs/plan.md).",
      "Exit status: 0 a configuration fits, 1 nothing fits (the report says what is closest), 2 bad input.");
  plan->add_option("PLATFORM", o.platform, "a SimGrid platform or a cluster description")->required();
  plan->add_option("WORKLOAD.yaml", o.workload, "a workload with a model: section (the template)")->required();
  plan->add_option("-o,--output", o.output, "writes DIR/plan.csv, DIR/winner.yaml, DIR/runs/; resumable")
      ->type_name("DIR")
      ->required();
  plan->add_option("--global-batch", o.global_batch,
                   "samples per iteration (default: the workload's\nmicro-batches x micro-batch size x dp)")
      ->type_name("N");
  plan->add_option("--top", o.top, "how many of the fastest to simulate and list (default 10)")->type_name("K");
  plan->add_option("--objective", o.objective,
                   "what ranks the configurations that fit: time (iteration time,\nthe default), memory (peak "
                   "memory per GPU, then time) or cost\n(GPU time per iteration, weighing layouts on the first n\n"
                   "GPUs too, n dividing the platform's)")
      ->type_name("time|memory|cost");
  plan->add_option("--schedules", o.schedules,
                   "the schedules tried on pipelines (default: all but kfkb, pipedream, ilp):\n"
                   "1f1b,gpipe,interleaved-1f1b,kfkb,zb-h1,zb-h2,zbv,dualpipev,pipedream,ilp")
      ->type_name("LIST");
  plan->add_option("--zero", o.zero,
                   "the ZeRO stages tried where dp > 1 (default: 0,1,2);\n"
                   "0 alone keeps replicas foldable (docs/folding.md)")
      ->type_name("LIST");
  plan->add_option("--partitions", o.partitions,
                   "the stage partitions tried where pp > 1 (default: even,balanced,fit;\n"
                   "fit: a twin of each pipeline over memory whose stages fit;\n"
                   "docs/plan.md#partitions)")
      ->type_name("LIST");
  plan->add_option("--memory-saving", o.memory_saving,
                   "remat (the default): a pipeline over memory whose schedule runs\n"
                   "seed 002's programs is also weighed rematerializing on the stages\n"
                   "over capacity (docs/plan.md#memory-saving); both: rematerializing\n"
                   "and offloading to host memory; none: not")
      ->type_name("remat|both|none");
  plan->add_flag("--screen-only", o.screen_only,
                 "the bounds of every candidate, nothing simulated\n(plan.csv and the fastest bounds)");
  plan->add_option("-j,--jobs", o.jobs, "runs at once (default: the machine's cores)")->type_name("N");
  plan->add_option("--launcher", o.launcher,
                   "a command each run starts under, its words split at spaces:\n"
                   "'srun -n1 --exact' runs the -j runs at once as job steps\n"
                   "of the Slurm allocation the plan is in (docs/plan.md#slurm)")
      ->type_name("CMD");
  plan->add_option("--cfg", o.simgrid_config, "a SimGrid setting for every run; repeatable")
      ->type_name("KEY:VALUE")
      ->allow_extra_args(false);
  return plan;
}

int plan_command(const PlanCommandOptions& o) {
  if (o.top < 1) throw UsageError("--top needs a whole number >= 1, got " + std::to_string(o.top));
  if (o.jobs < 0) throw UsageError("-j needs a whole number >= 1, got " + std::to_string(o.jobs));
  if (o.objective != "time" && o.objective != "memory" && o.objective != "cost")
    throw UsageError("--objective: expected time, memory or cost, got '" + o.objective + "'");
  const PlanObjective objective = o.objective == "memory" ? PlanObjective::Memory
                                  : o.objective == "cost" ? PlanObjective::Cost
                                                          : PlanObjective::Time;
  const std::vector<std::string> launcher = launcher_words(o.launcher);
  if (o.global_batch < 0)
    throw UsageError("--global-batch needs a whole number >= 1, got " + std::to_string(o.global_batch));
  const Workload template_workload = load_workload(o.workload);
  if (!template_workload.model)
    throw InputError(o.workload, "model", "a plan needs a model: section (a layer chain does not say how it splits)");
  std::vector<std::pair<std::string, std::string>> inputs = {{"the platform", o.platform},
                                                             {"the workload", o.workload}};
  if (!template_workload.model->config.empty())
    inputs.emplace_back("the model's config", template_workload.model->config);
  if (!template_workload.model->calibration.empty())
    inputs.emplace_back("the calibration file", template_workload.model->calibration);
  check_sweep_folder("-o", o.output, inputs);

  Simulation simulation(o.platform, o.simgrid_config);
  const Platform& platform = simulation.platform();
  PlanScreen screen;
  screen.workload = o.workload;
  // The screening forks here; under a launcher, -j counts the allocation's runs, not this machine's cores.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  screen.jobs = o.jobs <= 0 ? cores : launcher.empty() ? o.jobs : std::min(o.jobs, cores);
  screen.platform = &platform;
  screen.limits.gpus = static_cast<int>(compute_devices(platform).size());
  screen.limits.node_gpus = node_gpus(platform);
  screen.limits.layers = static_cast<int>(template_workload.layers.size());
  screen.limits.part_platforms = objective == PlanObjective::Cost;
  screen.limits.global_batch = o.global_batch > 0 ? o.global_batch
                                                  : template_workload.microbatches * template_workload.microbatch_size *
                                                        template_workload.parallel.dp;
  if (!o.schedules.empty()) {
    screen.limits.schedules.clear();
    std::stringstream list(o.schedules);
    const auto& choices = plan_schedule_choices();
    for (std::string name; std::getline(list, name, ',');) {
      if (std::find(choices.begin(), choices.end(), name) == choices.end()) {
        std::string expected;
        for (const std::string& c : choices) expected += (expected.empty() ? "" : ", ") + c;
        throw UsageError("--schedules: '" + name + "' is not one a plan tries; expected some of " + expected);
      }
      if (std::find(screen.limits.schedules.begin(), screen.limits.schedules.end(), name) ==
          screen.limits.schedules.end())
        screen.limits.schedules.push_back(name);
    }
  }
  if (!o.zero.empty()) {
    screen.limits.zero_stages.clear();
    std::stringstream list(o.zero);
    for (std::string stage; std::getline(list, stage, ',');) {
      if (stage != "0" && stage != "1" && stage != "2")
        throw UsageError("--zero: '" + stage + "' is not a ZeRO stage a plan tries; expected some of 0, 1, 2");
      if (std::find(screen.limits.zero_stages.begin(), screen.limits.zero_stages.end(), std::stoi(stage)) ==
          screen.limits.zero_stages.end())
        screen.limits.zero_stages.push_back(std::stoi(stage));
    }
  }
  if (!o.partitions.empty()) {
    screen.limits.partitions.clear();
    std::stringstream list(o.partitions);
    for (std::string name; std::getline(list, name, ',');) {
      if (name != "even" && name != "balanced" && name != "fit")
        throw UsageError("--partitions: '" + name +
                         "' is not a partition a plan tries; expected some of even, balanced, fit");
      if (std::find(screen.limits.partitions.begin(), screen.limits.partitions.end(), name) ==
          screen.limits.partitions.end())
        screen.limits.partitions.push_back(name);
    }
    if (screen.limits.partitions == std::vector<std::string>{"fit"})
      throw UsageError(
          "--partitions: fit makes twins of the even or balanced pipelines over memory; list one of them "
          "too");
  }
  if (o.memory_saving != "remat" && o.memory_saving != "both" && o.memory_saving != "none")
    throw UsageError("--memory-saving: expected remat, both or none, got '" + o.memory_saving + "'");
  if (o.memory_saving == "both" && host_memory_devices(platform).empty())
    throw UsageError("--memory-saving: both offloads to host memory, but " + o.platform +
                     " has no host of kind host (docs/platform-format.md)");
  screen.memory_saving = o.memory_saving != "none";
  screen.saving_policy = o.memory_saving;
  // By time (or cost, time x GPUs), a twin's plain time bound stands for it until it comes within reach.
  screen.defer_memory_saving = objective != PlanObjective::Memory;
  if (screen.limits.global_batch ==
      template_workload.microbatches * template_workload.microbatch_size * template_workload.parallel.dp)
    screen.given = given_candidate(template_workload, screen.limits.gpus);
  if (plan_space(screen.limits).empty())
    throw InputError(o.workload, "--global-batch",
                     "no layout of the " + std::to_string(screen.limits.gpus) + " GPUs divides the global batch of " +
                         std::to_string(screen.limits.global_batch) +
                         " samples into micro-batches of 1, 2, 4 or 8 on every replica");

  const std::string heading = "plan          " + template_workload.name + " on " + o.platform + ": " +
                              (screen.limits.part_platforms ? "up to " : "") + std::to_string(screen.limits.gpus) +
                              " GPUs, global batch " + std::to_string(screen.limits.global_batch) + "\n";
  const SweepFolderLock lock("-o", o.output);
  const auto started = std::chrono::steady_clock::now();
  Progress screening("screening");
  std::vector<PlanEntry> entries = screen_plan(screen, [&](std::size_t d, std::size_t n) { screening(d, n); });
  const double screen_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cerr << "plan: " << entries.size() << " candidates screened in " << fmt::fixed(screen_seconds, 2) << " s ("
            << fmt::fixed(entries.size() / std::max(screen_seconds, 1e-9), 0) << " per second)\n";

  if (o.screen_only) {
    write_file_atomically(o.output + "/plan.csv", plan_csv(entries, objective));
    std::cout << heading;
    write_plan_summary(std::cout, entries, static_cast<std::size_t>(o.top), objective);
    return 0;
  }
  // Each candidate simulated is a sweep run (the sweep's runner, -j, records in DIR/runs/ for resuming).
  SweepPlan runs;
  runs.name = "plan";
  runs.columns = {"platform", "workload", "candidate"};
  runs.size = entries.size();
  runs.run = [&](std::size_t i) {
    SweepRun r;
    r.id = std::to_string(i);
    r.platform = o.platform;
    r.workload = o.workload;
    r.overrides = entries[i].candidate.overrides();
    r.values = {o.platform, o.workload, entries[i].candidate.label()};
    return r;
  };
  SweepRunOptions run_options;
  run_options.binary = this_binary();
  run_options.dir = o.output;
  run_options.jobs = o.jobs > 0 ? o.jobs : cores;
  run_options.simgrid_config = o.simgrid_config;
  run_options.launcher = launcher;
  // A valid ZeRO 1 run gives its ZeRO 2 twin's (the same pipeline and
  // timeline, each GPU's gradients divided over the replicas): not run.
  std::set<std::size_t> in_batch;  // the entries being run
  run_options.on_report = [&](const RunRecord& record, const std::string& report_json) {
    const std::size_t i = std::stoul(record.id);
    if (record.status != "valid" || entries[i].sharded_twin >= entries.size()) return;
    PlanEntry& twin = entries[entries[i].sharded_twin];
    if (twin.fate != PlanFate::Screened || twin.run || in_batch.count(entries[i].sharded_twin)) return;  // it runs
    const SweepRun run = runs.run(entries[i].sharded_twin);
    twin.run = record_with_divided_part(run, report_json, "gradients", twin.candidate.dp);
    if (twin.run) write_file_atomically(o.output + "/runs/" + run.id + ".json", record_json(*twin.run));
  };
  // Progress after each batch: runs done, how many are still within reach, and their time at the pace so far.
  std::size_t ran = 0, found = 0;
  const auto simulating = std::chrono::steady_clock::now();
  const auto progress = [&](std::size_t done, std::size_t left) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - simulating).count();
    std::cerr << "plan: " << done << " simulated (" << ran << " now, " << found << " found in " << o.output
              << "/runs); at most " << left << " more";
    if (ran > 0) std::cerr << ", ETA " << fmt::fixed(elapsed / ran * left, 0) << " s";
    std::cerr << "\n";
  };
  const auto simulate = [&](const std::vector<std::size_t>& chosen) {
    in_batch = std::set<std::size_t>(chosen.begin(), chosen.end());
    std::vector<RunRecord> records(chosen.size());
    std::vector<std::size_t> todo;
    std::map<std::size_t, std::size_t> slot;
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      const std::optional<RunRecord> record = find_record(o.output, runs.run(chosen[k]));
      if (record && record_complete(*record))
        records[k] = *record, ++found;
      else
        todo.push_back(chosen[k]), slot[chosen[k]] = k;
    }
    run_sweep(runs, todo, run_options,
              [&](const RunRecord& r, std::size_t, std::size_t) { records[slot.at(std::stoul(r.id))] = r; });
    ran += todo.size();
    return records;
  };
  // Two runs chosen per process at a time: while one process runs a long
  // candidate the other takes the next (runs of a 1,024-GPU plan take 1 to
  // 10 s); more would run candidates a tighter K-th time leaves out.
  simulate_plan(entries, static_cast<std::size_t>(o.top), 2 * static_cast<std::size_t>(run_options.jobs), simulate,
                progress, objective,
                [&](const std::vector<std::size_t>& twins) { screen_deferred(screen, entries, twins); });
  write_file_atomically(o.output + "/plan.csv", plan_csv(entries, objective));
  const std::vector<std::size_t> ranked = plan_ranking(entries, objective);
  std::cout << heading;
  write_plan_summary(std::cout, entries, static_cast<std::size_t>(o.top), objective);
  if (ranked.empty()) return 1;
  const PlanEntry& winner = entries[ranked.front()];
  write_file_atomically(o.output + "/winner.yaml",
                        "# pipesim plan's winner: " + winner.candidate.label() + "\n" +
                            workload_yaml_with_overrides(o.workload, winner.candidate.overrides(), o.output));
  std::cout << "\nwinner        " << winner.candidate.label() << " -> " << o.output << "/winner.yaml\n";
  return 0;
}

}  // namespace pipesim
