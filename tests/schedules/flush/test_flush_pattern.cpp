// GPipe and 1F1B with flush exported as periodic patterns (k = M copies, one
// period per iteration): valid, with the closed-form period and stash counts,
// and unrolled they simulate like the generators' own task graphs.
#include <gtest/gtest.h>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/flush/flush_pattern.hpp"
#include "schedules/flush/flush_sequences.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/exact_period.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

struct FlushCase {
  bool gpipe;
  int stages;
  int microbatches;
};

// One layer per stage, F = 1 s, B = 2 s, activations of 1 byte over 1 PB/s.
struct FlushSetup {
  Workload workload;
  StagePlan plan;
  Pattern pattern;
  PatternTiming timing;
};

FlushSetup make_setup(const FlushCase& c, const Platform& platform) {
  FlushSetup s;
  const int P = c.stages;
  s.workload = testing::chain_workload(std::vector<double>(P, 1.0), std::vector<double>(P, 2.0),
                                       std::vector<double>(P, 1.0), 1.0);
  s.workload.placement.automatic = true;
  s.workload.placement.stages = P;
  s.plan = make_stage_plan(s.workload, platform);
  const auto sequences = c.gpipe ? gpipe_sequences(P, c.microbatches) : one_f_one_b_sequences(P, c.microbatches);
  s.pattern = flush_pattern(s.plan, sequences, s.workload, platform);
  s.timing = pattern_timing(s.pattern, s.workload, platform);
  return s;
}

class FlushPattern : public ::testing::TestWithParam<FlushCase> {};

TEST_P(FlushPattern, ValidWithClosedFormPeriodAndStashes) {
  const auto [gpipe, P, M] = GetParam();
  const Platform platform = testing::pattern_platform(P, 0, 1e15);
  const FlushSetup s = make_setup(GetParam(), platform);
  EXPECT_NO_THROW(check_pattern(s.pattern, P));
  EXPECT_EQ(find_overlap(s.pattern, s.timing, platform), "");
  EXPECT_EQ(s.pattern.copies, M);
  EXPECT_NEAR(s.pattern.period, (M + P - 1) * 3.0, 1e-9);
  EXPECT_NEAR(exact_period(pattern_event_graph(s.pattern, s.timing)).period, s.pattern.period, 1e-9);
  const PatternMemory memory = pattern_memory(s.pattern, s.timing, s.workload, P);
  for (int layer = 0; layer < P; ++layer)
    EXPECT_EQ(memory.stash_counts[layer], gpipe ? M : std::min(P - layer, M)) << "layer " << layer;
}

TEST_P(FlushPattern, UnrolledSimulatesAtThePatternPeriod) {
  const auto [gpipe, P, M] = GetParam();
  Simulation sim(testing::complete_platform(P, "1PBps"));
  const FlushSetup s = make_setup(GetParam(), sim.platform());
  const Timeline tl = sim.run(unroll_pattern(s.pattern, s.timing, P, 3 * M, M));
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  EXPECT_NEAR(tl.makespan, 3 * (M + P - 1) * 3.0, 1e-6);  // three iterations, flushed
}

INSTANTIATE_TEST_SUITE_P(Grid, FlushPattern,
                         ::testing::Values(FlushCase{false, 2, 4}, FlushCase{false, 4, 8}, FlushCase{false, 4, 2},
                                           FlushCase{true, 3, 5}, FlushCase{true, 4, 8},
                                           // Boost's Howard stopped after 100 improvements here, at
                                           // 2/3 of the period, before exact_period certified it.
                                           FlushCase{true, 16, 200}, FlushCase{false, 16, 200}),
                         [](const auto& info) {
                           return std::string(info.param.gpipe ? "gpipe" : "1f1b") + "_P" +
                                  std::to_string(info.param.stages) + "_M" + std::to_string(info.param.microbatches);
                         });

}  // namespace
}  // namespace pipesim
