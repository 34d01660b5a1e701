#include "cli/sweep_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <thread>

#include "cli/command_line.hpp"
#include "cli/sweep_folder.hpp"
#include "sim/input_error.hpp"
#include "studies/sweep_plan.hpp"
#include "studies/sweep_platforms.hpp"
#include "studies/sweep_results.hpp"
#include "studies/sweep_runner.hpp"

namespace pipesim {
namespace {

namespace fs = std::filesystem;

// Without a terminal, checking is shown only for sweeps this large (seconds of checks).
constexpr std::size_t kQuietChecking = 10000;

std::string duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, s / 60 % 60);
  else
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  return text;
}

// The records of PLAN's runs found in DIRS (the first that has one), in plan order.
std::vector<RunRecord> collect(const SweepPlan& plan, const std::vector<std::string>& dirs, bool all_required) {
  std::vector<RunRecord> records;
  for (std::size_t i = 0; i < plan.size; ++i) {
    const SweepRun run = plan.run(i);
    std::optional<RunRecord> found;
    for (const std::string& dir : dirs)
      if (!found) found = find_record(dir, run);
    if (found)
      records.push_back(*found);
    else if (all_required)
      throw InputError(dirs.front(), "runs",
                       "run " + run.id + " is in none of the folders (a shard missing or unfinished)");
  }
  return records;
}

int merge_command(const SweepCommandOptions& o) {
  std::vector<SweepPlan> plans;
  for (const std::string& dir : o.merge_inputs) plans.push_back(read_plan(dir));
  for (std::size_t i = 1; i < plans.size(); ++i)
    if (plans[i].columns != plans[0].columns || plans[i].size != plans[0].size ||
        plan_json(plans[i]) != plan_json(plans[0]))
      throw InputError(o.merge_inputs[i], "plan.json", "a different sweep than " + o.merge_inputs[0] + "'s");
  const SweepPlan& plan = plans[0];
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const std::string& dir : o.merge_inputs) inputs.emplace_back("the plan of '" + dir + "'", dir + "/plan.json");
  check_sweep_folder("-o", o.merge_output, inputs);
  const std::vector<RunRecord> records = collect(plan, o.merge_inputs, true);
  const SweepFolderLock lock("-o", o.merge_output);
  for (const RunRecord& r : records) write_file_atomically(o.merge_output + "/runs/" + r.id + ".json", record_json(r));
  write_file_atomically(o.merge_output + "/plan.json", plan_json(plan));
  write_file_atomically(o.merge_output + "/results.csv", results_csv(plan, records));
  std::cout << "sweep merge: " << records.size() << " runs from " << o.merge_inputs.size() << " folders -> "
            << o.merge_output << "/results.csv\n";
  return 0;
}

}  // namespace

CLI::App* add_sweep_command(CLI::App& root, SweepCommandOptions& o) {
  CLI::App* sweep = add_command(root, "sweep",
                                "Runs every point of SPEC's grid (platforms, workloads, overrides),\n"
                                "each in its own process, into DIR/results.csv (docs/whatif.md).",
                                "Exit status: 0 every run has its row (failed runs included), 2 bad input.");
  sweep->add_option("SPEC.yaml", o.spec, "a sweep spec (docs/whatif.md)");
  sweep->add_option("-o,--output", o.output, "the output folder: results.csv, plan.json, runs/")->type_name("DIR");
  sweep->add_option("-j,--jobs", o.jobs, "runs at once (default: the machine's cores)")->type_name("N");
  sweep
      ->add_option("--shard", o.shard,
                   "run only the I-th of N disjoint parts (1 <= I <= N);\njoin them with 'sweep merge'")
      ->type_name("I/N");
  sweep->add_option("--cfg", o.simgrid_config, "a SimGrid setting for every run; repeatable")
      ->type_name("KEY:VALUE")
      ->allow_extra_args(false);
  o.merge = add_command(*sweep, "merge", "Joins the output folders of a sweep's shards into one (docs/whatif.md).",
                        "Exit status: 0 merged, 2 bad input (a missing run, folders of different sweeps).");
  o.merge->add_option("DIR", o.merge_inputs, "the shards' output folders")->required();
  o.merge->add_option("-o,--output", o.merge_output, "the merged folder")->required()->type_name("DIR");
  return sweep;
}

int sweep_command(const SweepCommandOptions& o) {
  if (o.merge && o.merge->parsed()) return merge_command(o);
  if (o.spec.empty()) throw UsageError("SPEC.yaml is required");
  if (o.output.empty()) throw UsageError("-o DIR is required");
  if (o.jobs < 0) throw UsageError("-j needs a whole number >= 1, got " + std::to_string(o.jobs));
  std::pair<int, int> shard{1, 1};
  if (!o.shard.empty()) {
    try {
      shard = parse_shard(o.shard);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--shard: ") + e.what());
    }
  }
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  // Every input is checked before anything runs: a million runs take minutes, so it is shown.
  SweepPlan plan = load_sweep_plan(o.spec, [&, tenth = std::size_t(0)](std::size_t checked, std::size_t total) mutable {
    if (tty) {
      std::cerr << "\rsweep: checking " << checked << "/" << total << " runs\x1b[K"
                << (checked == total ? "\r\x1b[K" : "") << std::flush;
    } else if (total >= kQuietChecking && checked * 10 >= tenth * total) {
      std::cerr << "sweep: checking " << checked << "/" << total << " runs\n";
      ++tenth;
    }
  });
  check_sweep_folder("-o", o.output, plan.inputs);
  const std::string clusters = generate_clusters(plan, o.spec);  // "cluster ARGS" platforms, in a temporary folder
  SweepRunOptions run;
  run.binary = this_binary();
  run.dir = o.output;
  run.jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  run.simgrid_config = o.simgrid_config;
  std::optional<SweepFolderLock> lock;  // held until the sweep ends
  try {
    lock.emplace("-o", o.output);
  } catch (const InputError&) {
    if (!clusters.empty()) fs::remove_all(clusters);
    throw;
  }
  install_clusters(plan, clusters, o.output);
  write_file_atomically(o.output + "/plan.json", plan_json(plan));
  const std::vector<std::size_t> mine = shard_runs(plan, shard.first, shard.second);

  // Resuming: what has no record yet, or was killed by a signal (most likely
  // from outside: Ctrl-C, a time limit, the OOM killer), or lost its metrics
  // (a record of an older version), is run (again).
  std::vector<std::size_t> todo;
  for (const std::size_t i : mine) {
    const std::optional<RunRecord> record = find_record(o.output, plan.run(i));
    if (!record || !record_complete(*record)) todo.push_back(i);
  }
  const auto started = std::chrono::steady_clock::now();
  std::size_t failed = 0;
  std::cerr << "sweep: " << todo.size() << " of " << mine.size() << " runs to do (" << mine.size() - todo.size()
            << " done before), " << run.jobs << " at once\n";
  run_sweep(plan, todo, run, [&](const RunRecord& r, std::size_t done, std::size_t total) {
    failed += r.status != "valid" && r.status != "invalid";
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::string eta = duration(elapsed / done * (total - done));
    if (tty) {  // one line, redrawn
      const int width = 30, filled = static_cast<int>(width * done / total);
      std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, ' ') << "] " << done << "/" << total
                << " ETA " << eta << (failed ? " (" + std::to_string(failed) + " failed)" : "") << "\x1b[K"
                << (done == total ? "\n" : "") << std::flush;
    } else {
      std::cerr << "sweep: " << done << "/" << total << " run " << r.id << " " << r.status << ", ETA " << eta << "\n";
    }
  });
  const std::vector<RunRecord> records = collect(plan, {o.output}, false);
  write_file_atomically(o.output + "/results.csv", results_csv(plan, records));
  std::size_t valid = 0, invalid = 0;
  for (const RunRecord& r : records) valid += r.status == "valid", invalid += r.status == "invalid";
  std::cout << "sweep " << plan.name << ": " << records.size() << " runs (" << valid << " valid, " << invalid
            << " invalid, " << records.size() - valid - invalid << " failed) -> " << o.output << "/results.csv\n";
  return 0;
}

}  // namespace pipesim
