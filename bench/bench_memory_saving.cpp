// Seed 002's dynamic programs (schedules/memory_saving), rematerialization
// alone, with offloading, and offloading alone, at L = 100 layers and N memory slots (500, and
// less for offloading), on a heterogeneous chain whose limit binds (half of
// what keeping every tape needs). docs/memory-saving.md has the numbers.
#include <benchmark/benchmark.h>

#include "schedules/memory_saving/offload_only.hpp"
#include "schedules/memory_saving/offloading.hpp"
#include "schedules/memory_saving/rematerialization.hpp"

namespace {

using namespace pipesim::memory_saving;

Chain hundred_layers() {
  Chain c;
  c.input_size = 1;
  c.input_gradient_size = 1;
  for (int i = 0; i < 100; ++i) {
    const double a = 1 + (i * 7) % 5;  // 1..5, deterministic
    c.layers.push_back({1.0 + (i % 3), 2.0 + (i % 4), a, 2 * a + (i % 2), a, 0.5, 0.5});
  }
  return c;
}

double all_tapes(const Chain& c) {
  double sum = c.input_size;
  for (const ChainLayer& l : c.layers) sum += l.tape_size;
  return sum;
}

void BM_MemorySavingRemat(benchmark::State& state) {
  const Chain chain = hundred_layers();
  const double limit = 0.5 * all_tapes(chain);
  for (auto _ : state) {
    const Solution s = solve_rematerialization(chain, limit, 500);
    if (!s.feasible) state.SkipWithError("infeasible");
    benchmark::DoNotOptimize(s.makespan);
  }
}
BENCHMARK(BM_MemorySavingRemat)->Unit(benchmark::kMillisecond);

// Bandwidth: a^i (1..5) moves in 1..5 times u_f (1..3): offloading can hide
// part of the transfers, not all.
void BM_MemorySavingOffload(benchmark::State& state) {
  const Chain chain = hundred_layers();
  const double limit = 0.5 * all_tapes(chain);
  const int slots = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const Solution s = solve_offloading(chain, limit, slots, 1.0);
    if (!s.feasible) state.SkipWithError("infeasible");
    benchmark::DoNotOptimize(s.makespan);
  }
}
BENCHMARK(BM_MemorySavingOffload)->Arg(100)->Arg(200)->Arg(500)->Unit(benchmark::kMillisecond);

// Offloading alone (tapes, no recomputation), the same chain, limit and β.
void BM_MemorySavingOffloadAlone(benchmark::State& state) {
  const Chain chain = hundred_layers();
  const double limit = 0.5 * all_tapes(chain);
  for (auto _ : state) {
    const Solution s = solve_offload_only(chain, limit, 500, 1.0);
    if (!s.feasible) state.SkipWithError("infeasible");
    benchmark::DoNotOptimize(s.makespan);
  }
}
BENCHMARK(BM_MemorySavingOffloadAlone)->Unit(benchmark::kMillisecond);

}  // namespace
