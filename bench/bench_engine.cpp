// Engine throughput: simulated activities per second for 1F1B (with flush,
// one iteration) on P devices and M micro-batches.
//
// SimGrid 3.32 allows one engine per process, so every measured iteration
// fork()s: the child loads the platform (Simulation), runs the task graph and
// writes back through a pipe the wall time of Simulation::run alone, its
// peak RSS and what the timeline says. The graph is built once per
// benchmark run in the parent (timed apart, counter graph_build_s) and
// reaches the child copy-on-write. See bench/README.md.
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/forked_run.hpp"
#include "schedules/flush/flush_sequences.hpp"
#include "schedules/stages/pipeline_builder.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/task_graph.hpp"

namespace {

using namespace pipesim::bench;

// The workload: one layer per stage, stage s on device s. On 1 Tf devices a
// forward takes 1 s and a backward 2 s; every boundary sends 1 MB of
// activations forward and 1 MB of gradients backward over a dedicated
// 100 GB/s, 1 us link: ~11 us per hop, so every transfer is a real SimGrid
// Comm, yet the makespan stays within a hair of (M + P - 1)(F + B).
constexpr double kSpeed = 1e12;          // flop/s ("1Tf")
constexpr double kForwardFlops = 1e12;   // F = 1 s
constexpr double kBackwardFlops = 2e12;  // B = 2 s
constexpr double kTensorBytes = 1e6;     // 1 MB each way
constexpr double kBandwidth = 100e9;     // bytes/s ("100GBps")
constexpr double kLatency = 1e-6;        // s ("1us")

pipesim::StagePlan uniform_plan(int P) {
  pipesim::StagePlan plan;
  for (int s = 0; s < P; ++s) {
    pipesim::Stage st;
    st.first_layer = st.last_layer = s;
    st.device = s;
    st.forward_flops = kForwardFlops;
    st.backward_flops = kBackwardFlops;
    st.forward_seconds = kForwardFlops / kSpeed;
    st.backward_seconds = kBackwardFlops / kSpeed;
    st.output_bytes = kTensorBytes;
    st.input_bytes = kTensorBytes;
    st.stash_bytes = kTensorBytes;
    st.weight_bytes = kTensorBytes;
    plan.stages.push_back(st);
  }
  return plan;
}

// analytic: the analytic engine (Simulation::run_analytic) on the same graph.
void one_f_one_b(benchmark::State& state, bool analytic) {
  const int P = static_cast<int>(state.range(0));
  const int M = static_cast<int>(state.range(1));
  const std::string& platform = platform_file(P);

  const auto b0 = Clock::now();
  const pipesim::TaskGraph graph = pipesim::build_pipeline(uniform_plan(P), pipesim::one_f_one_b_sequences(P, M), 1, P);
  const double build_seconds = std::chrono::duration<double>(Clock::now() - b0).count();

  double compute = 0, transfers = 0;
  for (const pipesim::Task& t : graph.tasks()) (pipesim::is_transfer(t.kind) ? transfers : compute) += 1;
  const double activities = compute + transfers;

  const double F = kForwardFlops / kSpeed, B = kBackwardFlops / kSpeed;
  const double ideal = (M + P - 1) * (F + B);  // free transfers
  const double hop = kLatency + kTensorBytes / kBandwidth;
  const double bound = (M + P - 1) * (F + B + 2 * hop);  // every step pays both hops: loose upper bound

  double run_total = 0, setup_total = 0, makespan = 0, cpu_total = 0;
  long peak_kib = 0, before_kib = 0;
  for (auto _ : state) {
    ChildReport r;
    std::string error;
    if (!run_in_child(platform, graph, r, error, analytic)) {
      state.SkipWithError(error.c_str());
      return;
    }
    if (!r.completed) {
      state.SkipWithError("the timeline did not complete (deadlock)");
      return;
    }
    if (!(r.makespan >= ideal * (1 - 1e-12) && r.makespan <= bound * (1 + 1e-12))) {
      const std::string msg = "makespan " + std::to_string(r.makespan) + " outside [" + std::to_string(ideal) + ", " +
                              std::to_string(bound) + "]";
      state.SkipWithError(msg.c_str());
      return;
    }
    state.SetIterationTime(r.run_seconds);
    run_total += r.run_seconds;
    cpu_total += r.run_cpu_seconds;
    setup_total += r.setup_seconds;
    makespan = r.makespan;
    peak_kib = std::max(peak_kib, r.peak_rss_kib);
    before_kib = std::max(before_kib, r.rss_before_run_kib);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["activities_per_second"] = activities * n / run_total;
  state.counters["activities"] = activities;
  state.counters["run_cpu_s"] = cpu_total / n;
  state.counters["compute_tasks"] = compute;
  state.counters["transfers"] = transfers;
  state.counters["graph_build_s"] = build_seconds;
  state.counters["platform_load_s"] = setup_total / n;
  state.counters["rss_before_run_MiB"] = before_kib / 1024.0;
  state.counters["peak_rss_MiB"] = peak_kib / 1024.0;
  state.counters["makespan"] = makespan;
  state.counters["makespan_free_transfers"] = ideal;
  std::string label =
      std::string(analytic ? "analytic " : "") + "1F1B P=" + std::to_string(P) + " M=" + std::to_string(M);
  for (const std::string& c : extra_simgrid_config()) label += " --cfg=" + c;
  state.SetLabel(label);
}

void BM_OneFOneB(benchmark::State& state) { one_f_one_b(state, false); }
void BM_OneFOneBAnalytic(benchmark::State& state) { one_f_one_b(state, true); }

// Fixed iteration counts keep a full run of the binary short on 2 cores
// (each iteration is one fork + platform load + run).
BENCHMARK(BM_OneFOneB)
    ->ArgNames({"P", "M"})
    ->Args({4, 1000})
    ->Iterations(20)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneFOneB)
    ->ArgNames({"P", "M"})
    ->Args({4, 10000})
    ->Iterations(5)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneFOneB)
    ->ArgNames({"P", "M"})
    ->Args({8, 1000})
    ->Iterations(10)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneFOneB)
    ->ArgNames({"P", "M"})
    ->Args({8, 10000})
    ->Iterations(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneFOneB)
    ->ArgNames({"P", "M"})
    ->Args({64, 1000})
    ->Iterations(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneFOneB)
    ->ArgNames({"P", "M"})
    ->Args({64, 10000})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
// The analytic engine on the same graphs (its reason to exist: at least 20x SimGrid at P = 64, M = 10^4).
BENCHMARK(BM_OneFOneBAnalytic)
    ->ArgNames({"P", "M"})
    ->Args({4, 10000})
    ->Iterations(5)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneFOneBAnalytic)
    ->ArgNames({"P", "M"})
    ->Args({64, 1000})
    ->Iterations(5)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneFOneBAnalytic)
    ->ArgNames({"P", "M"})
    ->Args({64, 10000})
    ->Iterations(5)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
