// Seed 003's master scheduler at scale: W = 64 workers, S = 64 stages,
// B = 1024 micro-batches (131,072 jobs), greedy dispatch by priority (no
// device order), every activation, gradient and weight transfer a real
// SimGrid Comm. Counter `jobs_per_second`: F and B jobs simulated per second
// of Simulation::run; run with --benchmark_repetitions=N for the median.
//
// As in bench_engine.cpp, every measured iteration fork()s a child that loads
// the platform and runs the graph (SimGrid allows one engine per process);
// the graph is built once in the parent (timed apart: graph_build_s).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "bench/forked_run.hpp"
#include "schedules/master/master_scheduler_internal.hpp"
#include "sim/task_graph.hpp"

namespace {

using namespace pipesim::bench;

constexpr int kW = 64, kS = 64, kB = 1024;
constexpr double kForwardFlops = 1e12;   // 1 s on the 1 Tf workers
constexpr double kBackwardFlops = 2e12;  // 2 s
constexpr double kTensorBytes = 1e6;     // activations, gradients: ~11 us per hop
constexpr double kWeightBytes = 1e6;     // one stage's weights

// scheme: 0 = LPP, 1 = FSLPP (G = 8, R = 8), 2 = GPipe (G = 1, R = 64 as gpipe).
void BM_Master(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const int priority = static_cast<int>(state.range(1));
  pipesim::MasterSpec spec;
  spec.scheme = which == 0   ? pipesim::MasterScheme::LPP
                : which == 1 ? pipesim::MasterScheme::FSLPP
                             : pipesim::MasterScheme::GPipe;
  spec.priority = priority == 0 ? pipesim::MasterPriority::OneFOneB : pipesim::MasterPriority::BreadthFirst;
  if (which < 2) spec.G = 8, spec.R = 8;
  const std::string& platform = platform_file(kW);

  const auto b0 = Clock::now();
  const pipesim::TaskGraph graph = pipesim::build_master_graph(
      spec, pipesim::uniform_master_stages(kS, kForwardFlops, kBackwardFlops, kTensorBytes, kWeightBytes), kB, kW);
  const double build_seconds = std::chrono::duration<double>(Clock::now() - b0).count();

  double jobs = 0, transfers = 0, fetches = 0;
  for (const pipesim::Task& t : graph.tasks()) {
    if (!pipesim::is_transfer(t.kind))
      jobs += 1;
    else if (t.kind == pipesim::TaskKind::WeightFetch)
      fetches += 1;
    else
      transfers += 1;
  }
  // Every worker runs S B / W jobs of 3 s: a lower bound on the latency.
  const double work_bound = 2.0 * kS * kB / kW / 2 * 3.0;

  double run_total = 0, setup_total = 0, makespan = 0;
  long peak_kib = 0;
  for (auto _ : state) {
    ChildReport r;
    std::string error;
    if (!run_in_child(platform, graph, r, error)) {
      state.SkipWithError(error.c_str());
      return;
    }
    if (!r.completed) {
      state.SkipWithError("the timeline did not complete (deadlock)");
      return;
    }
    if (!(r.makespan >= work_bound)) {
      state.SkipWithError(("makespan " + std::to_string(r.makespan) + " below the work bound").c_str());
      return;
    }
    state.SetIterationTime(r.run_seconds);
    run_total += r.run_seconds;
    setup_total += r.setup_seconds;
    makespan = r.makespan;
    peak_kib = std::max(peak_kib, r.peak_rss_kib);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["jobs_per_second"] = jobs * n / run_total;
  state.counters["activities_per_second"] = (jobs + transfers + fetches) * n / run_total;
  state.counters["jobs"] = jobs;
  state.counters["transfers"] = transfers;
  state.counters["weight_fetches"] = fetches;
  state.counters["graph_build_s"] = build_seconds;
  state.counters["platform_load_s"] = setup_total / n;
  state.counters["peak_rss_MiB"] = peak_kib / 1024.0;
  state.counters["makespan"] = makespan;
  state.SetLabel(std::string(pipesim::to_string(spec.scheme)) + (which < 2 ? " G=8 R=8" : "") + " " +
                 std::string(pipesim::to_string(spec.priority)) + " W=64 S=64 B=1024");
}

BENCHMARK(BM_Master)
    ->ArgNames({"scheme", "priority"})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Iterations(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
