// Unrolled patterns on SimGrid: the simulated steady state equals the exact
// period of the pattern's event graph, and the simulated per-device peak
// memory equals the analytic one (seed 000 §6.2). One process per case.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/exact_period.hpp"
#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/fixtures.hpp"
#include "tests/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

constexpr int kFirstPeriod = 100;  // measure after the warm-up ...
constexpr int kWindow = 120;      // ... over a multiple of every cycle length up to 6

double total(const MemoryBreakdown& b) {
  double sum = 0;
  for (double v : b) sum += v;
  return sum;
}

// Simulates enough periods of the pattern and checks period and memory.
void check_against_simulation(Simulation& sim, const Pattern& p, const Workload& w, double expected_period) {
  const Platform& platform = sim.platform();
  const PatternTiming t = pattern_timing(p, w, platform);
  const ExactPeriod exact = exact_period(pattern_event_graph(p, t));
  if (expected_period > 0) {
    EXPECT_NEAR(exact.period / expected_period, 1, 1e-9);
  }
  const int k = p.copies;
  const TaskGraph g = unroll_pattern(p, t, platform.size(), steady_state_microbatches(p, kFirstPeriod, kWindow));
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const double simulated = k * steady_time_per_microbatch(g, tl, 0, k * kFirstPeriod, k * (kFirstPeriod + kWindow));
  EXPECT_NEAR(simulated / exact.period, 1, 1e-6) << "exact " << exact.period << " simulated " << simulated;

  const std::vector<DevicePeak> peaks = peak_memory(g, tl);
  const PatternMemory analytic = pattern_memory(p, t, w, platform.size());
  for (int d = 0; d < platform.size(); ++d) {
    EXPECT_DOUBLE_EQ(peaks[d].total, analytic.devices[d].peak) << "device " << d;
    if (analytic.devices[d].peak_op < 0) continue;
    // Several ops may reach the peak with different breakdowns: the
    // simulation reports the first in time, which must be one of them.
    bool found = false;
    for (std::size_t x = 0; x < p.ops.size(); ++x)
      found |= p.ops[x].device == d && t.duration[x] > 0 && total(analytic.during[x]) == analytic.devices[d].peak &&
               analytic.during[x] == peaks[d].breakdown;
    EXPECT_TRUE(found) << "device " << d << ": no op has the simulated breakdown at the peak";
  }
}

class RandomPatterns : public ::testing::TestWithParam<int> {};

TEST_P(RandomPatterns, SimulationMatchesExactPeriodAndAnalyticMemory) {
  const int seed = GetParam();
  Simulation sim(complete_platform(random_devices(seed), "1GBps", "1ms"));
  const RandomCase rc = random_case(seed, sim.platform());
  ASSERT_EQ(find_overlap(rc.pattern, pattern_timing(rc.pattern, rc.workload, sim.platform()), sim.platform()), "");
  if (rc.tight) {
    check_against_simulation(sim, rc.pattern, rc.workload, rc.pattern.period);
  } else {
    check_against_simulation(sim, rc.pattern, rc.workload, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomPatterns, ::testing::Range(0, 120));

// The hand-checked two-device pattern of test_pattern_analysis.cpp, with 1 ms
// latency, under seed 000's link model (both directions of the pair one
// resource, serialized in the unrolled graph too): exact period 3 + 2 x 0.101.
TEST(PatternSimulation, TwoDevicesByHand) {
  Simulation sim(complete_platform(2, "1kBps", "1ms"));
  const Workload w = chain_workload({1, 1}, {2, 2}, {100, 10}, 1000, {5, 7});
  Pattern p = make_pattern(2, 1, 3.5, {F(0, 0, 0), B(0, 0, 1.2), F(1, 1, 1.2), B(1, 1, 2.2)});
  p.links = LinkModel::Pair;
  assign_minimal_shifts(p, pattern_timing(p, w, sim.platform()));
  check_against_simulation(sim, p, w, 3.202);
}

// The same on the platform's links (SPLITDUPLEX: one resource per
// direction): the two transfers no longer wait for each other, and the
// critical cycle has one transfer: 3 + 0.101.
TEST(PatternSimulation, TwoDevicesByHandFullDuplex) {
  Simulation sim(complete_platform(2, "1kBps", "1ms"));
  const Workload w = chain_workload({1, 1}, {2, 2}, {100, 10}, 1000, {5, 7});
  Pattern p = make_pattern(2, 1, 3.5, {F(0, 0, 0), B(0, 0, 1.2), F(1, 1, 1.2), B(1, 1, 2.2)});
  assign_minimal_shifts(p, pattern_timing(p, w, sim.platform()));
  check_against_simulation(sim, p, w, 3.101);
}

}  // namespace
}  // namespace pipesim
