// `pipesim import TRACE.json` (the whole command, as a process) against a
// bare program that only parses the same trace with nlohmann-json
// (bench/bare/bare_json.cpp), on the shipped H200 trace repeated COPIES
// times (each copy one more profiled step, 3.5 MB); and the import with the
// same step's execution trace beside the bare parse of both files. See
// bench/README.md.
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/command_run.hpp"
#include "tests/support/fixtures.hpp"

namespace {

// The shipped trace with its events repeated COPIES times, each copy shifted
// past the one before and its ProfilerStep renumbered; written once, by a
// child process, so that the benchmark's own memory (which the commands it
// forks would inherit in their peak RSS) stays small.
std::string repeated_trace(int copies) {
  const std::string path = pipesim::testing::temp_path("trace-x" + std::to_string(copies) + ".json");
  if (std::ifstream(path).good()) return path;
  const pid_t child = fork();
  if (child == 0) {
    std::ifstream in(std::string(PIPESIM_BENCH_SOURCE_DIR) + "/workloads/traces/h200-small-gpt/trace_single_gpu.json");
    const nlohmann::json trace = nlohmann::json::parse(in);
    double first = 1e300, last = 0;
    for (const auto& e : trace["traceEvents"])
      if (e.contains("ts") && e["ts"].is_number()) {
        first = std::min(first, e["ts"].get<double>());
        last = std::max(last, e["ts"].get<double>() + e.value("dur", 0.0));
      }
    nlohmann::json out = trace;
    out["traceEvents"] = nlohmann::json::array();
    for (int k = 0; k < copies; ++k)
      for (nlohmann::json e : trace["traceEvents"]) {
        if (e.contains("ts") && e["ts"].is_number()) e["ts"] = e["ts"].get<double>() + k * (last - first);
        if (e.value("name", "") == "ProfilerStep#2") e["name"] = "ProfilerStep#" + std::to_string(2 + k);
        out["traceEvents"].push_back(std::move(e));
      }
    std::ofstream(path) << out.dump();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return path;
}

void BM_ImportTrace(benchmark::State& state) {
  const int copies = static_cast<int>(state.range(0));
  const std::string trace = repeated_trace(copies);
  const std::string calibration = pipesim::testing::temp_path("trace-x" + std::to_string(copies) + ".yaml");
  const std::string out = pipesim::testing::temp_path("trace.out");
  double pipesim_s = 0, bare_s = 0, pipesim_rss = 0, bare_rss = 0;
  for (auto _ : state) {
    const auto bare = pipesim::bench::run_command({PIPESIM_BARE_JSON_BINARY, trace}, out);
    const auto run = pipesim::bench::run_command({PIPESIM_RUN_BINARY, "import", trace, "-o", calibration}, out);
    if (bare.exit_code != 0 || run.exit_code != 0) {
      state.SkipWithError("a command failed");
      return;
    }
    state.SetIterationTime(run.seconds);
    pipesim_s += run.seconds;
    bare_s += bare.seconds;
    pipesim_rss = std::max(pipesim_rss, run.peak_rss_kib / 1024.0);
    bare_rss = std::max(bare_rss, bare.peak_rss_kib / 1024.0);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["pipesim_s"] = pipesim_s / n;
  state.counters["bare_s"] = bare_s / n;
  state.counters["pipesim_rss_MiB"] = pipesim_rss;
  state.counters["bare_rss_MiB"] = bare_rss;
  state.counters["trace_MB"] =
      static_cast<double>(std::ifstream(trace, std::ios::ate | std::ios::binary).tellg()) / 1e6;
}

// `pipesim import TRACE --execution-trace ET` on the shipped H200 pair
// (3.5 MB and 6.0 MB) against the bare parse of the two files.
void BM_ImportExecutionTrace(benchmark::State& state) {
  const std::string folder = std::string(PIPESIM_BENCH_SOURCE_DIR) + "/workloads/traces/h200-small-gpt/";
  const std::string trace = folder + "trace_single_gpu.json", et = folder + "execution_trace_single_gpu.json";
  const std::string calibration = pipesim::testing::temp_path("trace-et.yaml");
  const std::string out = pipesim::testing::temp_path("trace-et.out");
  double pipesim_s = 0, bare_s = 0, pipesim_rss = 0, bare_rss = 0;
  for (auto _ : state) {
    const auto bare_trace = pipesim::bench::run_command({PIPESIM_BARE_JSON_BINARY, trace}, out);
    const auto bare_et = pipesim::bench::run_command({PIPESIM_BARE_JSON_BINARY, et}, out);
    const auto run = pipesim::bench::run_command(
        {PIPESIM_RUN_BINARY, "import", trace, "--execution-trace", et, "-o", calibration}, out);
    if (bare_trace.exit_code != 0 || bare_et.exit_code != 0 || run.exit_code != 0) {
      state.SkipWithError("a command failed");
      return;
    }
    state.SetIterationTime(run.seconds);
    pipesim_s += run.seconds;
    bare_s += bare_trace.seconds + bare_et.seconds;
    pipesim_rss = std::max(pipesim_rss, run.peak_rss_kib / 1024.0);
    bare_rss = std::max({bare_rss, bare_trace.peak_rss_kib / 1024.0, bare_et.peak_rss_kib / 1024.0});
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["pipesim_s"] = pipesim_s / n;
  state.counters["bare_s"] = bare_s / n;
  state.counters["pipesim_rss_MiB"] = pipesim_rss;
  state.counters["bare_rss_MiB"] = bare_rss;
}

}  // namespace

BENCHMARK(BM_ImportExecutionTrace)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_ImportTrace)->Arg(1)->Arg(8)->Arg(32)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
