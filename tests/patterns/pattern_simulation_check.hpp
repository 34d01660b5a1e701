// Checks an unrolled pattern on SimGrid against its pattern: the simulated
// steady state equals the exact period of its event graph, and under both
// buffer policies the simulated peak of every device equals pattern_memory's
// to the byte (seed000: over the whole run; lifetime: over the steady-state
// window of pattern_steady_memory.hpp). One engine run per process.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_steady_memory.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim::testing {

inline constexpr int kFirstPeriod = 100;  // measure after the warm-up ...
inline constexpr int kWindow = 120;       // ... over a multiple of every cycle length up to 6

inline double total_bytes(const MemoryBreakdown& b) {
  double sum = 0;
  for (double v : b) sum += v;
  return sum;
}

// The simulated peak of every device over the steady-state window of
// pattern_memory (periods kSteadyFirstPeriod.. of the same unrolled graph),
// by analysis/memory's replay of the engine's timeline: the level carried
// into the window and every reading in it.
inline std::vector<DevicePeak> steady_peaks(const TimedUnroll& u, const Timeline& tl, const SteadyRange& range) {
  const auto [from, to] = steady_window(u, tl.start, range);
  const int devices = u.graph.device_count();
  std::vector<DevicePeak> peaks(devices);
  std::vector<MemoryBreakdown> before(devices, MemoryBreakdown{});
  std::vector<char> seen(devices, 0);
  auto note = [&](double time, int d, const MemoryBreakdown& level) {
    if (seen[d] && !(total_bytes(level) > peaks[d].total)) return;
    seen[d] = 1;
    peaks[d].total = total_bytes(level);
    peaks[d].breakdown = level;
    peaks[d].time = time;
  };
  bool entered = false;
  const std::vector<MemorySample> trace = memory_trace(u.graph, tl);
  for_each_memory_instant(trace, devices, [&](double time, int d, const MemoryBreakdown& level) {
    if (time >= to) return;
    if (time < from) {
      before[d] = level;
      return;
    }
    if (!entered) {
      entered = true;
      for (int e = 0; e < devices; ++e) note(from, e, before[e]);
    }
    note(time, d, level);
  });
  return peaks;
}

// Simulates enough periods of the pattern and checks period and memory
// under both buffer policies: they change memory effects only, so one
// engine run (one per process) times both graphs.
inline void check_against_simulation(Simulation& sim, Pattern p, const Workload& w, double expected_period) {
  const Platform& platform = sim.platform();
  const PatternTiming t = pattern_timing(p, w, platform);
  const ExactPeriod exact = exact_period(pattern_event_graph(p, t));
  if (expected_period > 0) {
    EXPECT_NEAR(exact.period / expected_period, 1, 1e-9);
  }
  const int k = p.copies;
  p.buffers = BufferPolicy::Lifetime;
  const SteadyRange range = steady_range(p);
  const int microbatches = std::max(steady_microbatches(p, range), steady_state_microbatches(p, kFirstPeriod, kWindow));
  const TimedUnroll u = unroll_pattern_timed(p, t, platform.size(), microbatches);
  const Timeline tl = sim.run(u.graph);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const double simulated =
      k * steady_time_per_microbatch(u.graph, tl, 0, k * kFirstPeriod, k * (kFirstPeriod + kWindow));
  EXPECT_NEAR(simulated / exact.period, 1, 1e-6) << "exact " << exact.period << " simulated " << simulated;

  for (BufferPolicy policy : {BufferPolicy::Lifetime, BufferPolicy::Seed000}) {
    p.buffers = policy;
    const TimedUnroll v = unroll_pattern_timed(p, t, platform.size(), microbatches);
    ASSERT_EQ(v.graph.size(), u.graph.size());
    // Seed 000's static buffers: the peak of the whole run; lifetime: of the steady state.
    const std::vector<DevicePeak> peaks =
        policy == BufferPolicy::Seed000 ? peak_memory(v.graph, tl) : steady_peaks(v, tl, range);
    const PatternMemory analytic = pattern_memory(p, t, w, platform.size());
    for (int d = 0; d < platform.size(); ++d) {
      EXPECT_DOUBLE_EQ(peaks[d].total, analytic.devices[d].peak) << "device " << d << ", " << to_string(policy);
      if (analytic.devices[d].peak_op < 0) continue;
      // Several ops may reach the peak with different breakdowns: the
      // simulation reports the first in time, which must be one of them.
      bool found = false;
      for (std::size_t x = 0; x < p.ops.size(); ++x)
        found |= p.ops[x].device == d && t.duration[x] > 0 &&
                 total_bytes(analytic.during[x]) == analytic.devices[d].peak &&
                 analytic.during[x] == peaks[d].breakdown;
      EXPECT_TRUE(found) << "device " << d << ", " << to_string(policy)
                         << ": no op has the simulated breakdown at the peak";
    }
  }
}

}  // namespace pipesim::testing
