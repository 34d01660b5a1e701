// Issue 14: `pipesim run` (the whole command, as a process) against the bare
// SimGrid reference (bench/bare/bare_pipeline.cpp) on the same inputs.
// Each iteration runs both, alternated; the benchmark's (manual) time is
// pipesim's. See bench/README.md.
#include <benchmark/benchmark.h>
#include <fcntl.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/bare/pipeline_inputs.hpp"
#include "bench/whole_command.hpp"
#include "tests/support/fixtures.hpp"

namespace {

const char* const kSchedules[] = {"1f1b", "gpipe"};

void BM_WholeCommand(benchmark::State& state) {
  const std::string schedule = kSchedules[state.range(0)];
  const int P = static_cast<int>(state.range(1)), M = static_cast<int>(state.range(2));
  const std::string tag = schedule + "-" + std::to_string(P) + "-" + std::to_string(M);
  const std::string platform =
      pipesim::testing::write_file("whole-" + tag + ".xml", pipesim::bench::star_platform_xml(P));
  const std::string workload =
      pipesim::testing::write_file("whole-" + tag + ".yaml", pipesim::bench::uniform_workload_yaml(schedule, P, M));
  const std::string json = pipesim::testing::temp_path("whole-" + tag + ".json");
  const std::string out = pipesim::testing::temp_path("whole-" + tag + ".out");
  auto number = pipesim::bench::exact_number;
  const std::vector<std::string> pipesim_args = {PIPESIM_RUN_BINARY, "run", platform, workload,
                                                 "--json",           json,  "--quiet"};
  const std::vector<std::string> bare_args = {PIPESIM_BARE_BINARY,
                                              platform,
                                              schedule,
                                              std::to_string(P),
                                              std::to_string(M),
                                              number(pipesim::bench::kForwardFlops),
                                              number(pipesim::bench::kBackwardFlops),
                                              number(pipesim::bench::kActivationBytes)};
  pipesim::bench::PairTotals totals;
  for (auto _ : state) {
    pipesim::bench::PairRun pair;
    if (const std::string why = pipesim::bench::run_pair(bare_args, pipesim_args, out, "/dev/null", json, pair);
        !why.empty()) {
      state.SkipWithError(why.c_str());
      return;
    }
    totals.add(state, pair);
  }
  totals.report(state);
  state.counters["activities"] = 2.0 * P * M + 2.0 * (P - 1) * M;
  state.SetLabel(schedule);
}

}  // namespace

// schedule: 0 = 1f1b, 1 = gpipe.
BENCHMARK(BM_WholeCommand)
    ->ArgNames({"schedule", "P", "M"})
    ->Args({0, 64, 1000})
    ->Args({0, 64, 10000})
    ->Args({0, 64, 40000})
    ->Args({1, 64, 10000})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
