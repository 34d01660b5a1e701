// `pipesim plan` as a user waits for it (docs/plan.md): the whole command on
// the shipped examples. BM_PlanScreen bounds every candidate and simulates
// none (--screen-only): candidates per second. BM_Plan is the whole search,
// bounds then simulations; case 2 is issue 26's GPT-3 175B on 1,024 A100s
// (docs/plan.md: without ZeRO 1 and 2, and GPipe), case 3 the same with
// every ZeRO stage. No bare SimGrid program does this work: a plan
// is many runs, each of which bench_whole_command compares with SimGrid.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/command_run.hpp"
#include "tests/support/fixtures.hpp"

namespace {

const std::string kSource = PIPESIM_BENCH_SOURCE_DIR;

struct Case {
  const char* platform;
  const char* workload;
  double candidates;
  std::vector<std::string> options;
};
const Case kCases[] = {
    {"platforms/h100-4x8-rail-400g.yaml", "workloads/examples/llama2-70b.yaml", 8992, {}},
    {"platforms/a100-4x8-rail-200g.yaml", "workloads/examples/megatron-1.7b.yaml", 7184, {}},
    {"platforms/a100-128x8-rail-200g.yaml",
     "workloads/examples/gpt3-175b-plan.yaml",
     3863,
     {"--zero", "0", "--schedules", "1f1b,interleaved-1f1b,zb-h1,zb-h2,zbv,dualpipev", "--top", "5"}},
    {"platforms/a100-128x8-rail-200g.yaml",
     "workloads/examples/gpt3-175b-plan.yaml",
     12470,
     {"--schedules", "1f1b,interleaved-1f1b,zb-h1,zb-h2,zbv,dualpipev", "--top", "5"}},
};

void run_plan(benchmark::State& state, bool screen_only) {
  const Case& c = kCases[state.range(0)];
  double seconds = 0;
  long rss = 0;
  static int run = 0;     // across repetitions too: a folder used before would resume
  for (auto _ : state) {  // a fresh folder each time: a plan resumes from its records
    const std::string out = pipesim::testing::temp_path(std::string(screen_only ? "screen-" : "plan-") +
                                                        std::to_string(state.range(0)) + "-" + std::to_string(run++));
    std::vector<std::string> args = {
        PIPESIM_RUN_BINARY, "plan", kSource + "/" + c.platform, kSource + "/" + c.workload, "-o", out, "-j", "2"};
    args.insert(args.end(), c.options.begin(), c.options.end());
    if (screen_only) args.push_back("--screen-only");
    const pipesim::bench::CommandRun r = pipesim::bench::run_command(args, "/dev/null");
    if (r.exit_code != 0) {
      state.SkipWithError("pipesim plan failed");
      return;
    }
    state.SetIterationTime(r.seconds);
    seconds += r.seconds;
    rss = std::max(rss, r.peak_rss_kib);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["candidates"] = c.candidates;
  state.counters["pipesim_s"] = seconds / n;
  state.counters["candidates_per_s"] = c.candidates * n / seconds;
  state.counters["rss_MiB"] = rss / 1024.0;
}

void BM_PlanScreen(benchmark::State& state) { run_plan(state, true); }
void BM_Plan(benchmark::State& state) { run_plan(state, false); }

}  // namespace

BENCHMARK(BM_PlanScreen)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(5);
BENCHMARK(BM_Plan)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);
