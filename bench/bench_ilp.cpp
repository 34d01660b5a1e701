// The ILP (schedules/ilp) on ResNet-18: PipeDream's profile imported as a
// 26-layer chain (workloads/profiles/resnet18, batch 256), seed 000's
// 4-device platform (complete graph, 12.5 GB/s links, 100 Tf devices, as
// platforms/complete-4.xml) with 8 GB per device, where memory binds (the
// unconstrained optimum 0.0649 s is then out of reach). Measured: building
// the model; the time to the first feasible pattern with the heuristic warm
// start (kFkB patterns over the contiguous allocations) and with CBC alone.
// docs/ilp.md has the numbers.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "schedules/ilp/ilp.hpp"
#include "schedules/ilp/ilp_formulation.hpp"
#include "workloads/pipedream_profile.hpp"

namespace {

using namespace pipesim;

std::string source_dir() {
  std::string here = __FILE__;  // .../bench/bench_ilp.cpp
  return here.substr(0, here.rfind("/bench/"));
}

const Workload& resnet18() {
  static const Workload w = import_pipedream(source_dir() + "/workloads/profiles/resnet18/graph.txt").workload;
  return w;
}

Platform four_devices(double memory) {
  Platform p;
  for (int i = 0; i < 4; ++i) p.devices.push_back({"gpu" + std::to_string(i), 100e12, memory, "gpu"});
  p.paths.assign(16, Path{true, 0, 12.5e9, 1});
  for (int i = 0; i < 4; ++i) p.paths[i * 4 + i] = Path{true, 0, 0, 0};
  return p;
}

// Model construction alone (variables and constraints (1)-(36)), k copies.
void BM_IlpBuildResNet18(benchmark::State& state) {
  const Platform platform = four_devices(8e9);
  IlpOptions options;
  options.copies = static_cast<int>(state.range(0));
  int variables = 0, integers = 0, rows = 0;
  for (auto _ : state) {
    const ilp::Formulation f(ilp::make_instance(resnet18(), platform, options, 0));
    variables = static_cast<int>(f.model().variables().size());
    integers = f.model().integer_count();
    rows = static_cast<int>(f.model().rows().size());
    benchmark::DoNotOptimize(variables);
  }
  state.counters["variables"] = variables;
  state.counters["integers"] = integers;
  state.counters["constraints"] = rows;
}
BENCHMARK(BM_IlpBuildResNet18)->ArgNames({"k"})->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// Time to the first feasible pattern (manual time: IlpResult::first_solution_seconds).
// warm = 1: heuristic warm start, CBC then runs 1 s; warm = 0: CBC alone,
// for PIPESIM_BENCH_ILP_SECONDS (default 120) at most.
void BM_IlpFirstSolutionResNet18(benchmark::State& state) {
  const bool warm = state.range(0) != 0;
  const Platform platform = four_devices(8e9);
  IlpOptions options;
  options.heuristic = warm;
  const char* limit = std::getenv("PIPESIM_BENCH_ILP_SECONDS");
  options.time_limit = warm ? 1 : (limit ? std::atof(limit) : 120);
  double found = 0, period = 0, seconds = 0;
  for (auto _ : state) {
    const IlpResult r = solve_optimal_pattern(resnet18(), platform, options);
    found = r.first_solution_seconds >= 0;
    period = r.period;
    seconds = r.seconds;
    state.SetIterationTime(found ? r.first_solution_seconds : r.seconds);
  }
  state.counters["found"] = found;
  state.counters["period_s"] = period;
  state.counters["solve_s"] = seconds;
}
BENCHMARK(BM_IlpFirstSolutionResNet18)
    ->ArgNames({"warm"})
    ->Arg(1)
    ->Iterations(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IlpFirstSolutionResNet18)
    ->ArgNames({"warm"})
    ->Arg(0)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
