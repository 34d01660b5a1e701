// Periodic patterns: the exact period of a 2L = 200-task pattern (Howard's
// maximum cycle ratio on its event graph), and unrolling a pattern for
// 10,000 periods plus simulating it on SimGrid (forked, as in bench_engine).
#include <benchmark/benchmark.h>

#include <numeric>

#include "bench/forked_run.hpp"
#include "patterns/pattern.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "sim/exact_period.hpp"

namespace {

using namespace pipesim;
using namespace pipesim::bench;

// Mirrors complete_platform_xml(P, "100GBps", "1us", "1Tf", "1TiB").
Platform complete_platform_view(int P) {
  Platform p;
  for (int i = 0; i < P; ++i) p.devices.push_back({"gpu" + std::to_string(i), 1e12, 1024.0 * (1ull << 30), "gpu"});
  p.paths.assign(P * P, Path{true, 1e-6, 100e9, 1});
  for (int i = 0; i < P; ++i) p.paths[i * P + i] = Path{true, 0, 0, 0};
  return p;
}

// L layers of varied cost (F 1-2 s, B twice that), 100 MB activations.
Workload chain(int L) {
  Workload w;
  w.file = "bench.yaml";
  w.reference_speed = 1e12;
  for (int l = 0; l < L; ++l) {
    const double f = 1.0 + (l * 37 % 11) / 10.0;
    w.layers.push_back({"l" + std::to_string(l), {f, false}, {2 * f, false}, 1e8, 1e8});
  }
  return w;
}

// Layer l on device device_of(l); each device runs its forwards in chain
// order then its backwards in reverse order, back to back; period = the
// largest load; transfers and shifts placed by assign_minimal_shifts.
Pattern packed_pattern(const Workload& w, const Platform& platform, int devices, bool round_robin) {
  const int L = static_cast<int>(w.layers.size());
  auto device_of = [&](int l) { return round_robin ? l % devices : l * devices / L; };
  Pattern p;
  p.layers = L;
  p.period = 1;
  for (int l = 0; l < L; ++l) p.ops.push_back({TaskKind::Forward, l, 0, device_of(l), 0, 0});
  for (int l = L - 1; l >= 0; --l) p.ops.push_back({TaskKind::Backward, l, 0, device_of(l), 0, 0});
  const PatternTiming timing = pattern_timing(p, w, platform);
  std::vector<double> load(devices, 0);
  for (size_t i = 0; i < p.ops.size(); ++i) {
    p.ops[i].start = load[p.ops[i].device];
    load[p.ops[i].device] += timing.duration[i];
  }
  p.period = *std::max_element(load.begin(), load.end());
  assign_minimal_shifts(p, timing);
  return p;
}

void BM_ExactPeriod200Tasks(benchmark::State& state) {
  const Platform platform = complete_platform_view(8);
  const Workload w = chain(100);
  const Pattern p = packed_pattern(w, platform, 8, true);
  const PatternTiming timing = pattern_timing(p, w, platform);
  double period = 0;
  for (auto _ : state) {
    period = exact_period(pattern_event_graph(p, timing)).period;
    benchmark::DoNotOptimize(period);
  }
  state.counters["tasks"] = static_cast<double>(p.ops.size());
  state.counters["transfers"] = static_cast<double>(p.transfers.size());
  state.counters["exact_period"] = period;
  state.counters["pattern_period"] = p.period;
}
BENCHMARK(BM_ExactPeriod200Tasks)->Unit(benchmark::kMillisecond);

void BM_UnrollAndSimulate10kPeriods(benchmark::State& state) {
  constexpr int kDevices = 4, kPeriods = 10000;
  const Platform platform = complete_platform_view(kDevices);
  const Workload w = chain(8);
  const Pattern p = packed_pattern(w, platform, kDevices, false);
  const PatternTiming timing = pattern_timing(p, w, platform);
  const double exact = exact_period(pattern_event_graph(p, timing)).period;
  double unroll_total = 0, run_total = 0, makespan = 0;
  size_t tasks = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const TaskGraph graph = unroll_pattern(p, timing, kDevices, kPeriods * p.copies);
    const double unroll = std::chrono::duration<double>(Clock::now() - t0).count();
    ChildReport r;
    std::string error;
    if (!run_in_child(platform_file(kDevices), graph, r, error) || !r.completed) {
      state.SkipWithError(error.empty() ? "deadlock" : error.c_str());
      return;
    }
    state.SetIterationTime(unroll + r.run_seconds);
    unroll_total += unroll;
    run_total += r.run_seconds;
    makespan = r.makespan;
    tasks = graph.size();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["unroll_s"] = unroll_total / n;
  state.counters["simulate_s"] = run_total / n;
  state.counters["tasks"] = static_cast<double>(tasks);
  state.counters["activities_per_second"] = tasks * n / run_total;
  // Steady state: makespan / periods approaches the exact period.
  state.counters["makespan_per_period"] = makespan / kPeriods;
  state.counters["exact_period"] = exact;
}
BENCHMARK(BM_UnrollAndSimulate10kPeriods)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
