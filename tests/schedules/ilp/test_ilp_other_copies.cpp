// The ILP is never worse than a baseline run a pattern expresses (an
// "optimal" pattern slower than a baseline would be no optimum): the model has a fixed number of copies k, so the
// heuristic's patterns with other copies (PipeDream's eager steady states, which repeat every k' micro-batches) cannot
// start it; solve_optimal_pattern returns the best of them when it beats, per micro-batch, every k-copy pattern found.
#include <gtest/gtest.h>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_validation.hpp"
#include "schedules/ilp/ilp.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/pattern_simulation_check.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

Platform with_memory(int devices, double memory, double bandwidth) {
  Platform p = pattern_platform(devices, 0, bandwidth);
  for (Device& d : p.devices) d.memory = memory;
  return p;
}

double per_microbatch(const IlpResult& r) { return r.period / r.pattern->copies; }

void expect_valid(const IlpResult& r, const Workload& w, const Platform& p) {
  const PatternTiming t = pattern_timing(*r.pattern, w, p);
  EXPECT_TRUE(validate_pattern(*r.pattern, t, p, w).empty());
  EXPECT_NEAR(exact_period(pattern_event_graph(*r.pattern, t)).period, r.period, 1e-9 * r.period);
}

// Four layers on three devices at 100 MB/s, 2.3 GB each: PipeDream's eager
// run of partition 0-1|2-3 with 2 micro-batches in flight repeats every two
// micro-batches (13 s per micro-batch); the heuristic's best 1-copy pattern
// takes 26 s, CBC's optimum 12 s (0.5 s).
struct Cycle {
  Workload w = chain_workload({2, 2, 4, 3}, {5, 3, 1, 4}, {5e8, 1e8, 6e8, 5e8}, 1e8, {2, 2, 1, 5});
  Platform p = with_memory(3, 2.3e9, 1e8);
};

TEST(IlpOtherCopies, EagerCycleIsTheAnswerWhenTheModelIsNotSolved) {
  const Cycle x;
  IlpOptions o;
  o.time_limit = 0;  // the heuristic alone
  const IlpResult r = solve_optimal_pattern(x.w, x.p, o);
  ASSERT_TRUE(r.pattern) << r.message;
  EXPECT_EQ(r.status, IlpResult::Status::Feasible);
  EXPECT_EQ(r.pattern->copies, 2);
  EXPECT_EQ(r.pattern->weights, WeightPolicy::TwoBW);  // the ILP's weight policy
  EXPECT_NEAR(r.period, 26, 1e-9);
  EXPECT_NEAR(r.model_period, 26, 1e-9);  // the warm start: 1 copy, 26 s
  EXPECT_NEAR(r.heuristic_period, 26, 1e-9);
  EXPECT_NEAR(r.bound, 20, 1e-9);  // the load bound, 10 s per micro-batch
  EXPECT_EQ(r.message,
            "feasible: PipeDream's eager pattern of 2 copies, 13 s per micro-batch, beats the model's best with 1 "
            "copies (26 s per micro-batch; not solved (time limit 0)); load bound 10 s per micro-batch");
  expect_valid(r, x.w, x.p);
  // It is the eager steady state of that configuration.
  const Pattern eager = pipedream_pattern({0, 0, 1, 1}, 2, x.w, x.p);
  EXPECT_EQ(eager.copies, 2);
  EXPECT_NEAR(eager.period, 26, 1e-9);
}

// The same on SimGrid (complete graph, 100 MB/s): the 2-copy answer is
// simulated at its exact period, analytic peaks = simulated under both policies.
TEST(IlpOtherCopies, EagerCycleAnswerIsSimulatedAtItsPeriod) {
  const Cycle x;
  Simulation sim(complete_platform(3, "100MBps", "0s"));
  Platform platform = sim.platform();
  for (Device& d : platform.devices) d.memory = 2.3e9;
  IlpOptions o;
  o.time_limit = 0;
  const IlpResult r = solve_optimal_pattern(x.w, platform, o);
  ASSERT_TRUE(r.pattern) << r.message;
  EXPECT_EQ(r.pattern->copies, 2) << r.message;
  EXPECT_NEAR(r.period, 26, 1e-9);
  check_against_simulation(sim, *r.pattern, x.w, r.period);
}

// Whatever CBC reaches in a tiny time limit, the answer is no slower than
// the eager cycle; given the time, CBC's 1-copy optimum (12 s) wins.
TEST(IlpOtherCopies, NeverSlowerThanTheEagerCycle) {
  const Cycle x;
  IlpOptions o;
  o.threads = 1;
  o.time_limit = 0.05;
  const IlpResult tiny = solve_optimal_pattern(x.w, x.p, o);
  ASSERT_TRUE(tiny.pattern) << tiny.message;
  EXPECT_LE(per_microbatch(tiny), 13 * (1 + 1e-9)) << tiny.message;
  expect_valid(tiny, x.w, x.p);
  o.time_limit = 60;
  const IlpResult solved = solve_optimal_pattern(x.w, x.p, o);
  ASSERT_TRUE(solved.pattern) << solved.message;
  EXPECT_EQ(solved.status, IlpResult::Status::Optimal) << solved.message;
  EXPECT_EQ(solved.pattern->copies, 1);
  EXPECT_NEAR(solved.period, 12, 1e-6);
  EXPECT_NEAR(solved.model_period, 12, 1e-6);
  // Without the other copies (the model's own question): the same here.
  o.other_copies = false;
  EXPECT_NEAR(solve_optimal_pattern(x.w, x.p, o).period, 12, 1e-6);
}

// A given candidate (a study's best baseline run) competes with the
// heuristic's patterns by its copies: CBC's 12 s optimum, given to a run
// without CBC, is its answer (the heuristic's best: 13 s per micro-batch);
// one that does not fit is no answer.
TEST(IlpOtherCopies, GivenCandidatesCompeteWithTheHeuristics) {
  const Cycle x;
  IlpOptions o;
  o.threads = 1;
  o.time_limit = 60;
  const IlpResult optimum = solve_optimal_pattern(x.w, x.p, o);
  ASSERT_TRUE(optimum.pattern) << optimum.message;
  o.time_limit = 0;
  o.candidates = {*optimum.pattern};
  const IlpResult given = solve_optimal_pattern(x.w, x.p, o);
  ASSERT_TRUE(given.pattern) << given.message;
  EXPECT_EQ(given.pattern->copies, 1);
  EXPECT_NEAR(given.period, 12, 1e-6);
  expect_valid(given, x.w, x.p);

  Platform scarce = with_memory(3, 1e9, 1e8);  // the optimum needs 2.3 GB
  o.candidates = {*optimum.pattern};
  std::string log;
  o.log = [&](const std::string& line) { log += line + "\n"; };
  const IlpResult refused = solve_optimal_pattern(x.w, scarce, o);
  EXPECT_NE(log.find("ilp: a given candidate is no valid pattern here: "), std::string::npos) << log;
  EXPECT_FALSE(refused.pattern) << refused.message;  // nothing else fits 1 GB either
}

// Two layers on two devices with 22 bytes each (IlpExhaustive.TwoCopiesTwoLayers):
// CBC proves the best 2-copy pattern takes 16 (8 per micro-batch); PipeDream's
// eager 1F1B with one micro-batch in flight takes 5 and fits: it is the answer.
TEST(IlpOtherCopies, OneCopyEagerBeatsTheProvenTwoCopyOptimum) {
  const Workload w = chain_workload({1, 2}, {2, 3}, {3, 1}, 2, {1, 2});
  const Platform p = with_memory(2, 22, 1e30);
  IlpOptions o;
  o.copies = 2;
  o.threads = 1;
  o.time_limit = 60;
  const IlpResult r = solve_optimal_pattern(w, p, o);
  ASSERT_TRUE(r.pattern) << r.message;
  EXPECT_EQ(r.status, IlpResult::Status::Feasible);
  EXPECT_EQ(r.pattern->copies, 1);
  EXPECT_NEAR(r.period, 5, 1e-9);
  EXPECT_NEAR(r.model_period, 16, 1e-6);
  EXPECT_EQ(r.message,
            "feasible: PipeDream's eager pattern of 1 copies, 5 s per micro-batch, beats the model's best with 2 "
            "copies (8 s per micro-batch; optimal, bound 16); load bound 5 s per micro-batch");
  expect_valid(r, w, p);
  o.other_copies = false;
  const IlpResult model = solve_optimal_pattern(w, p, o);
  EXPECT_EQ(model.status, IlpResult::Status::Optimal);
  EXPECT_NEAR(model.period, 16, 1e-6);
}

}  // namespace
}  // namespace pipesim
