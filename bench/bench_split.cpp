// Seed 004's Algorithm 2 (schedules/split/split_grouping.hpp) at scale:
// n = 1000 heterogeneous devices with m = 3 resource types (speeds as in
// tests/schedules/split/test_split_grouping.cpp's uniform instances) grouped into q = 4
// workers. Pure computation, no SimGrid. Results: docs/mobile.md.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "schedules/split/split_allocation.hpp"
#include "schedules/split/split_grouping.hpp"
#include "tests/schedules/split/test_split_random.hpp"

namespace {

using pipesim::split::Device;

std::vector<Device> devices(int n, int m) {
  pipesim::split::testing::SplitRng rng(4301);
  std::vector<Device> out;
  for (int v = 0; v < n; ++v) {
    Device d{"d" + std::to_string(v), {}};
    for (int j = 0; j < m; ++j) {
      const double forward = rng.uniform(1e9, 1e10);
      d.resources.push_back({"r" + std::to_string(j), forward, forward * rng.uniform(0.3, 1.5)});
    }
    out.push_back(d);
  }
  return out;
}

void BM_SplitGroupingLocalSearch(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), m = static_cast<int>(state.range(1));
  const pipesim::split::GroupingProblem problem{devices(n, m), static_cast<int>(state.range(2)), 1e12, 2e12};
  double period = 0;
  for (auto _ : state) {
    const pipesim::split::Grouping g =
        pipesim::split::group_devices(problem, pipesim::split::GroupingMethod::LocalSearch);
    // On the object, not on a double: with DoNotOptimize(period) (Google
    // Benchmark 1.7.1's "+m,r" asm operand, GCC 12) the counter read garbage
    // (6.95e-310) although the same code is clean under ASan and UBSan.
    benchmark::DoNotOptimize(g);
    period = g.period;
  }
  state.counters["period_s"] = period;
  state.counters["devices"] = n;
  // No grouping beats q times the period of one worker holding every
  // resource with its own beta (docs/mobile.md): a bound on the gap.
  pipesim::split::StageRates all;
  for (const Device& d : problem.devices)
    for (const pipesim::split::Resource& r : d.resources) {
      all.forward.push_back(r.forward_speed / problem.forward_flops);
      all.backward.push_back(r.backward_speed / problem.backward_flops);
    }
  state.counters["lower_bound_s"] = problem.workers * pipesim::split::optimal_allocation(all).period();
}
BENCHMARK(BM_SplitGroupingLocalSearch)->ArgNames({"n", "m", "q"})->Args({1000, 3, 4})->Unit(benchmark::kMillisecond);

void BM_SplitGroupingSorting(benchmark::State& state) {
  const pipesim::split::GroupingProblem problem{devices(1000, 3), 4, 1e12, 2e12};
  double period = 0;
  for (auto _ : state) {
    const pipesim::split::Grouping g = pipesim::split::group_devices(problem, pipesim::split::GroupingMethod::Sorting);
    benchmark::DoNotOptimize(g);
    period = g.period;
  }
  state.counters["period_s"] = period;
}
BENCHMARK(BM_SplitGroupingSorting)->Unit(benchmark::kMillisecond);

}  // namespace
