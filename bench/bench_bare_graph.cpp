// Issue 14 for every family: `pipesim run` (the whole command, as a
// process) against the bare SimGrid program (bench/bare/bare_graph.cpp)
// running the task graph pipesim's own generator builds for the same
// workload and platform. Each iteration runs both, alternated; the
// benchmark's (manual) time is pipesim's. See bench/README.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bare/graph_dump.hpp"
#include "bench/bare/pipeline_inputs.hpp"
#include "bench/whole_command.hpp"
#include "tests/support/fixtures.hpp"

namespace {

using pipesim::bench::slurp;

struct Family {
  const char* name;
  std::string (*schedule)(int P);  // as written after `schedule:` in the workload
  // The workload; null: P uniform layers (pipeline_inputs.hpp).
  std::string (*workload)(const std::string& schedule, int P, int M) = nullptr;
};

// A training job as users write it: GPT-3 175B (98 layers: embedding, 96
// blocks, head) with Adam, its stashes, workspaces and optimizer steps (the
// training-state pass), on P GPUs.
std::string model_job(const std::string& schedule, int, int M) {
  return "name: bench\nmodel: {preset: gpt3-175b}\nmicrobatches: " + std::to_string(M) + "\nschedule: " + schedule +
         "\n";
}

const Family kFamilies[] = {
    {"1f1b", [](int) { return std::string("1f1b"); }},
    {"gpipe", [](int) { return std::string("gpipe"); }},
    {"kfkb", [](int) { return std::string("{name: kfkb, k: 2}"); }},
    {"pipedream", [](int P) { return "{name: pipedream, noam: " + std::to_string(P) + "}"; }},
    // Seed 003's looped pipeline: W = G R = P workers, P one-layer stages, greedy by 1F1B priority.
    {"master", [](int P) { return "{name: master, scheme: lpp, G: " + std::to_string(P / 8) + ", R: 8}"; }},
    {"model", [](int) { return std::string("1f1b"); }, model_job},
};

// Extra arguments of `pipesim run` (space-separated), e.g.
// PIPESIM_BENCH_RUN_ARGS="--engine simgrid"; they show in the label.
std::vector<std::string> extra_run_args() {
  std::vector<std::string> args;
  if (const char* env = std::getenv("PIPESIM_BENCH_RUN_ARGS")) {
    std::istringstream words(env);
    for (std::string w; words >> w;) args.push_back(w);
  }
  return args;
}

// The graph's dump, written once per case and process (repetitions reuse
// it) and removed at exit: 89 MB at 2.54 M tasks.
std::size_t dump_once(const std::string& platform, const std::string& workload, const std::string& dump) {
  static struct Dumps {
    std::map<std::string, std::size_t> tasks;
    ~Dumps() {
      for (const auto& entry : tasks) std::remove(entry.first.c_str());
    }
  } dumps;
  auto it = dumps.tasks.find(dump);
  if (it == dumps.tasks.end())
    it = dumps.tasks.emplace(dump, pipesim::bench::dump_workload_graph(platform, workload, dump)).first;
  return it->second;
}

void BM_BareGraph(benchmark::State& state) {
  const Family& family = kFamilies[state.range(0)];
  const int P = static_cast<int>(state.range(1)), M = static_cast<int>(state.range(2));
  const std::string tag = std::string(family.name) + "-" + std::to_string(P) + "-" + std::to_string(M);
  std::string platform_xml = pipesim::bench::star_platform_xml(P);
  if (family.workload) {  // a model's passes are timed by a device type, its optimizer step needs one
    const std::string memory = "<prop id=\"memory\" value=\"64TiB\"/>";
    for (std::size_t at = platform_xml.find(memory); at != std::string::npos; at = platform_xml.find(memory, at + 1))
      platform_xml.insert(at + memory.size(), "<prop id=\"device\" value=\"a100-80gb\"/>");
  }
  const std::string platform = pipesim::testing::write_file("graph-" + tag + ".xml", platform_xml);
  const std::string workload = pipesim::testing::write_file(
      "graph-" + tag + ".yaml", family.workload ? family.workload(family.schedule(P), P, M)
                                                : pipesim::bench::uniform_workload_yaml(family.schedule(P), P, M));
  const std::string dump = pipesim::testing::temp_path("graph-" + tag + ".bin");
  const std::string json = pipesim::testing::temp_path("graph-" + tag + ".json");
  const std::string out = pipesim::testing::temp_path("graph-" + tag + ".out");
  const std::string err = pipesim::testing::temp_path("graph-" + tag + ".err");
  std::size_t tasks = 0;
  try {
    tasks = dump_once(platform, workload, dump);
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("dump: ") + e.what()).c_str());
    return;
  }
  std::vector<std::string> pipesim_args = {PIPESIM_RUN_BINARY, "run", platform, workload, "--json", json, "--quiet"};
  std::string label = family.name;
  for (const std::string& a : extra_run_args()) {
    pipesim_args.push_back(a);
    label += " " + a;
  }
  const std::vector<std::string> bare_args = {PIPESIM_BARE_GRAPH_BINARY, dump, platform};
  pipesim::bench::PairTotals totals;
  double read_s = 0;
  for (auto _ : state) {
    pipesim::bench::PairRun pair;
    if (const std::string why = pipesim::bench::run_pair(bare_args, pipesim_args, out, err, json, pair); !why.empty()) {
      state.SkipWithError(why.c_str());
      return;
    }
    totals.add(state, pair);
    const std::string read_line = slurp(err);  // "read_seconds S"
    if (read_line.rfind("read_seconds ", 0) == 0) read_s += std::stod(read_line.substr(13));
  }
  totals.report(state);
  state.counters["bare_read_s"] = read_s / static_cast<double>(state.iterations());  // part of bare_s
  state.counters["activities"] = static_cast<double>(tasks);
  state.SetLabel(label);
}

}  // namespace

// family: 0 = 1f1b, 1 = gpipe, 2 = kfkb (k = 2), 3 = pipedream (noam = P), 4 = master (LPP, G = P/8, R = 8),
// 5 = model (GPT-3 175B with Adam, 1F1B).
BENCHMARK(BM_BareGraph)
    ->ArgNames({"family", "P", "M"})
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {64}, {1000, 10000}})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
