// How much memory a simulation may use, and how much a run needs: the limit
// is shared by the run's estimate (below, from what the schedule counts it
// will build: schedules/registry.hpp) and the platform's
// (sim/engine/platform_size), so that one --max-memory bounds both.
#pragma once

namespace pipesim {

// The peak resident set of `pipesim run`, measured (wait4's ru_maxrss:
// tests/bench/test_measured_memory.cpp) at P = 64 on the benchmarks' star (bench/):
// 59-66 MiB at 0.25 M tasks and 183-253 MiB at 2.54 M (every family, the
// GPT-3 job, either engine), 81 MiB for 0.41 M tasks on 512 stages, 38 MiB
// for the tiny example. A task costs 55-110 bytes (graph, timeline,
// engine), the program and its libraries under 48 MiB; a pattern item about
// 400 (event graph, summary). Rounded up, so the estimate stays above what
// was measured and within 1.5 times it on the benchmark runs. 2026-11-27: a
// layer's passes carry their TP GEMMs (devices/op_work.hpp), and pipedream's
// 0.25 M-task run peaked at 73.2 MiB against 69.9 estimated: 52 MiB base.
constexpr double kBaseBytes = 52.0 * (1 << 20);
constexpr double kBytesPerTask = 90;
constexpr double kBytesPerPatternItem = 480;

// The memory a run of TASKS tasks (transfers included) and a pattern of
// PATTERN_ITEMS ops and transfers needs to simulate.
inline double estimated_memory_bytes(double tasks, double pattern_items = 0) {
  return kBaseBytes + kBytesPerTask * tasks + kBytesPerPatternItem * pattern_items;
}

// The limit when none is given: 3/4 of the physical memory, at most 16 GiB
// (a simulation should leave the machine usable, and CI runners have ~16 GiB).
double default_memory_limit();

// LIMIT if positive, else default_memory_limit().
inline double memory_limit_or_default(double limit) { return limit > 0 ? limit : default_memory_limit(); }

}  // namespace pipesim
