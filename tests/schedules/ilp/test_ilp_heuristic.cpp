// The ILP's heuristic warm start (schedules/ilp/ilp_heuristic.hpp): when the
// kFkB pattern of an allocation does not fit, PipeDream's eager patterns with
// fewer micro-batches in flight are tried, so the warm start is never worse
// than a PipeDream run the pattern model expresses (seed 000 §7's baseline).
#include <gtest/gtest.h>

#include <algorithm>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "schedules/ilp/ilp_heuristic.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

struct Measured {
  double period = 0, worst_peak = 0;
};

Measured measure(const Pattern& p, const Workload& w, const Platform& platform) {
  const PatternTiming t = pattern_timing(p, w, platform);
  Measured m{exact_period(pattern_event_graph(p, t)).period, 0};
  for (const PatternDeviceMemory& d : pattern_memory(p, t, w, platform.size()).devices)
    m.worst_peak = std::max(m.worst_peak, d.peak);
  return m;
}

Platform with_memory(int devices, double memory) {
  Platform p = pattern_platform(devices, 0, 1e9);
  for (Device& d : p.devices) d.memory = memory;
  return p;
}

// Four layers on two devices {0, 0, 1, 1}, big activations early: 1F1B at
// the load bound keeps two micro-batches in flight on device 0, NOAM = 1 only one.
class IlpHeuristic : public ::testing::Test {
 protected:
  IlpHeuristic() { o.allocation = Allocation{0, 0, 1, 1}; }
  const Workload w = chain_workload({1, 1, 1, 1}, {2, 2, 2, 2}, {8e6, 8e6, 1e6, 1e6}, 8e6, {1, 1, 1, 1});
  const Platform roomy = with_memory(2, 1e15);
  IlpOptions o;
  Measured kfkb_pattern_measured() const {
    return measure(kfkb_pattern(1, *o.allocation, w, roomy, o.weights), w, roomy);
  }
};

TEST_F(IlpHeuristic, FallsBackOnPipeDreamsEagerPatternsWhenKfkbDoesNotFit) {
  const Measured kfkb = kfkb_pattern_measured();
  Pattern one_in_flight = pipedream_pattern(*o.allocation, 1, w, roomy);
  one_in_flight.weights = o.weights;
  const Measured eager = measure(one_in_flight, w, roomy);
  ASSERT_LT(eager.worst_peak, kfkb.worst_peak);  // the workload does what it is meant to
  ASSERT_GT(eager.period, kfkb.period);

  const ilp::HeuristicResult tight = ilp::best_heuristic_pattern(w, with_memory(2, eager.worst_peak), o);
  ASSERT_TRUE(tight.best);
  const Measured found = measure(*tight.best, w, roomy);
  EXPECT_LE(found.worst_peak, eager.worst_peak);
  EXPECT_LE(found.period, eager.period * (1 + 1e-9));
  EXPECT_GT(found.period, kfkb.period);  // kFkB did not fit: a longer period, less in flight
  EXPECT_DOUBLE_EQ(tight.best_period, found.period);

  // Below every candidate: nothing fits, and the memory that would have is the smallest tried.
  const ilp::HeuristicResult none = ilp::best_heuristic_pattern(w, with_memory(2, eager.worst_peak * 0.99), o);
  EXPECT_FALSE(none.best);
  EXPECT_LE(none.memory_needed, eager.worst_peak);
  EXPECT_TRUE(ilp::best_heuristic_pattern(w, with_memory(2, none.memory_needed), o).best);
}

// With the memory of kFkB's pattern, kFkB's (load-bound) period is kept.
TEST_F(IlpHeuristic, KeepsKfkbWhenItFits) {
  const Measured kfkb = kfkb_pattern_measured();
  const ilp::HeuristicResult r = ilp::best_heuristic_pattern(w, with_memory(2, kfkb.worst_peak), o);
  ASSERT_TRUE(r.best);
  EXPECT_NEAR(r.best_period, kfkb.period, 1e-9 * kfkb.period);
}

}  // namespace
}  // namespace pipesim
