// Unrolled patterns on SimGrid: the simulated steady state equals the exact
// period of the pattern's event graph, and the simulated per-device peak
// memory equals the analytic one under both buffer policies. One process per case.
#include <gtest/gtest.h>

#include "tests/support/fixtures.hpp"
#include "tests/patterns/pattern_simulation_check.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

class RandomPatterns : public ::testing::TestWithParam<int> {};

TEST_P(RandomPatterns, SimulationMatchesExactPeriodAndAnalyticMemory) {
  const int seed = GetParam();
  Simulation sim(complete_platform(random_devices(seed), "1GBps", "1ms"));
  const RandomCase rc = random_case(seed, sim.platform());
  ASSERT_EQ(find_overlap(rc.pattern, pattern_timing(rc.pattern, rc.workload, sim.platform()), sim.platform()), "");
  check_against_simulation(sim, rc.pattern, rc.workload, rc.tight ? rc.pattern.period : 0);
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
