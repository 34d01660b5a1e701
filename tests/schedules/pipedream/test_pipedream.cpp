// PipeDream's eager 1F1B with NOAM (seed 000 §4.1, §7): its stage orders,
// its steady state as a pattern, the registry entry, and SimGrid runs.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_validation.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "schedules/registry.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/exact_period.hpp"
#include "sim/input_error.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/patterns/pattern_simulation_check.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"
#include "workloads/pipedream_profile.hpp"

namespace pipesim {
namespace {

using namespace testing;

std::size_t count_tasks(const TaskGraph& g, TaskKind kind) {
  std::size_t n = 0;
  for (const Task& t : g.tasks()) n += t.kind == kind;
  return n;
}

constexpr int kWeights = static_cast<int>(MemoryCategory::Weights);

std::string render(const StageSequence& seq) {
  std::string s;
  for (const Op& op : seq) s += (op.kind == TaskKind::Forward ? "F" : "B") + std::to_string(op.microbatch) + " ";
  return s;
}

// PipeDream's runtime: noam - 1 - s warm-up forwards, then forward/backward pairs.
TEST(PipeDream, StageSequences) {
  const auto seq = pipedream_sequences(4, 6, 4);
  EXPECT_EQ(render(seq[0]), "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5 ");
  EXPECT_EQ(render(seq[2]), "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 B5 ");
  EXPECT_EQ(render(seq[3]), "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 ");
  EXPECT_EQ(render(pipedream_sequences(2, 3, 8)[0]), "F0 F1 F2 B0 B1 B2 ");  // never more than M
  EXPECT_EQ(pipedream_in_flight(0, 100, 4), 4);
  EXPECT_EQ(pipedream_in_flight(3, 100, 4), 1);
  EXPECT_EQ(pipedream_in_flight(5, 100, 4), 1);
  EXPECT_THROW(pipedream_sequences(2, 3, 0), std::invalid_argument);
}

// Uniform stages F = 1, B = 2, free transfers: with NOAM = S the period is
// the stage load 3; stage s stashes S - s micro-batches and, with weight
// stashing, S - s weight versions in all (the current one among them).
TEST(PipeDream, SteadyStateWithEnoughMicroBatchesInFlight) {
  const Platform p = pattern_platform(4);
  const Workload w = chain_workload({1, 1, 1, 1}, {2, 2, 2, 2}, {0, 0, 0, 0}, 0, {10, 20, 30, 40});
  const Pattern pat = pipedream_pattern({0, 1, 2, 3}, 4, w, p);
  EXPECT_DOUBLE_EQ(pat.period, 3);
  EXPECT_EQ(pat.weights, WeightPolicy::Stashing);
  const PatternTiming t = pattern_timing(pat, w, p);
  EXPECT_EQ(find_overlap(pat, t, p), "");
  EXPECT_DOUBLE_EQ(exact_period(pattern_event_graph(pat, t)).period, 3);
  const PatternMemory m = pattern_memory(pat, t, w, 4);
  EXPECT_EQ(m.stash_counts, (std::vector<int>{4, 3, 2, 1}));
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(m.devices[s].in_flight, 4 - s);
    EXPECT_DOUBLE_EQ(m.devices[s].breakdown[kWeights], (4 - s) * w.layers[s].weights);
  }
}

// Fewer in flight than stages: NOAM = 1 runs one micro-batch at a time
// (12 = all F and B); NOAM = 2 lets only stage 0 overlap two, stages 1-3
// still take a micro-batch through F2 F3 F4 B4 B3 B2 (9) one at a time.
// More than S: no faster, only more memory.
TEST(PipeDream, NoamBelowAndAboveTheStageCount) {
  const Platform p = pattern_platform(4);
  const Workload w = chain_workload({1, 1, 1, 1}, {2, 2, 2, 2}, {0, 0, 0, 0});
  const std::vector<std::pair<int, double>> cases{{1, 12}, {2, 9}, {3, 6}, {4, 3}, {8, 3}};
  for (const auto& [noam, period] : cases) {
    const Pattern pat = pipedream_pattern({0, 1, 2, 3}, noam, w, p);
    EXPECT_DOUBLE_EQ(pat.period, period) << noam;
    EXPECT_DOUBLE_EQ(exact_period(pattern_event_graph(pat, pattern_timing(pat, w, p))).period, period) << noam;
    EXPECT_EQ(pattern_memory(pat, pattern_timing(pat, w, p), w, 4).devices[0].in_flight, noam) << noam;
  }
}

// Several layers per stage, transfers of 0.1 s + 1 ms: the period is the
// busiest stage's F + B (layers 1-2: 1.5 + 1 + 3 + 2 = 7.5).
struct Uneven {
  Workload w = chain_workload({1.5, 1, 1, 1, 0.5, 0.7}, {3, 2, 2, 2, 1, 1.2}, {1e8, 2e8, 1e8, 3e8, 1e8, 1e8}, 1e8,
                              {1e6, 2e6, 3e6, 4e6, 5e6, 6e6});
  Allocation a{0, 0, 1, 2, 3, 3};
};

TEST(PipeDream, SteadyStateOfUnevenStages) {
  const Uneven x;
  const Platform p = pattern_platform(4, 0.001, 1e9);
  const Pattern pat = pipedream_pattern(x.a, 4, x.w, p);
  EXPECT_NEAR(pat.period, 7.5, 1e-9);
  const PatternTiming t = pattern_timing(pat, x.w, p);
  EXPECT_NEAR(exact_period(pattern_event_graph(pat, t)).period, 7.5, 1e-9);
  EXPECT_EQ(pattern_memory(pat, t, x.w, 4).devices[0].in_flight, 4);
  EXPECT_THROW(pipedream_pattern({0, 1, 0, 2, 3, 3}, 4, x.w, p), std::invalid_argument);  // not contiguous
}

// The task graph on SimGrid: the steady state is the exported pattern's
// period, and the static weights are the current version plus one per micro-batch in flight.
TEST(PipeDream, SimulatedScheduleReachesThePatternPeriod) {
  const Uneven x;
  Simulation sim(complete_platform(4, "1GBps", "1ms"));
  const Platform& platform = sim.platform();
  const StagePlan plan = allocation_plan(x.a, x.w, platform);
  const TaskGraph g = pipedream_schedule(plan, 200, 4, platform.size());
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const double period = pipedream_pattern(x.a, 4, x.w, platform).period;
  EXPECT_NEAR(steady_time_per_microbatch(g, tl, 0, 50, 150), period, 1e-6);
  EXPECT_NEAR(period, 7.5, 1e-9);
  const std::vector<DevicePeak> peaks = peak_memory(g, tl);
  EXPECT_DOUBLE_EQ(peaks[0].breakdown[kWeights], 4 * 3e6);  // layers 1 and 2: NOAM = 4 versions
  EXPECT_DOUBLE_EQ(peaks[3].breakdown[kWeights], 1 * 11e6);
}

// The registry's pipedream runs its pattern when it has one: the same
// period, and analytic peak = simulated steady-state peak under both buffer
// policies (the check unrolls the pattern as the registry does).
TEST(PipeDream, RegistryRunsItsPatternUnderEitherPolicy) {
  const Uneven x;
  Simulation sim(complete_platform(4, "1GBps", "1ms"));
  Workload w = x.w;
  w.file = "w.yaml";
  w.schedule = "pipedream";
  w.schedule_params = {{"allocation", "0,0,1,2,3,3"}, {"noam", "4"}};
  w.microbatches = 20;
  const GeneratedSchedule lifetime = generate(w, sim.platform());
  ASSERT_TRUE(lifetime.pattern);
  EXPECT_EQ(lifetime.pattern->buffers, BufferPolicy::Lifetime);
  EXPECT_EQ(count_tasks(lifetime.graph, TaskKind::Forward), 20u * 6);  // one task per layer
  w.schedule_params["memory_policy"] = "seed000";
  EXPECT_EQ(generate(w, sim.platform()).pattern->buffers, BufferPolicy::Seed000);
  check_against_simulation(sim, *lifetime.pattern, x.w, 7.5);
}

// The same for every NOAM from 1 to 5 (the steady states differ: one
// micro-batch at a time up to more in flight than stages).
class PipeDreamNoam : public ::testing::TestWithParam<int> {};

TEST_P(PipeDreamNoam, PatternPeaksAreSimulatedUnderEitherPolicy) {
  const Uneven x;
  Simulation sim(complete_platform(4, "1GBps", "1ms"));
  const Pattern pat = pipedream_pattern(x.a, GetParam(), x.w, sim.platform());
  check_against_simulation(sim, pat, x.w, 0);
}

INSTANTIATE_TEST_SUITE_P(Noam, PipeDreamNoam, ::testing::Range(1, 6));

// Issue 10's example: ResNet-18 (PipeDream's profile) on
// platforms/complete-4.xml, PipeDream's partition 0-3|4-6|7-13|14-25 with
// NOAM 4. The eager steady state repeats every 3 micro-batches, not every
// one: its pattern has 3 copies, 88.84 ms per micro-batch, and validates.
struct ResNet18Cycle {
  std::string root = std::string(PIPESIM_SOURCE_DIR) + "/";
  Workload w = [&] {
    ImportOptions io;
    io.microbatches = 200;
    return import_pipedream(root + "workloads/profiles/resnet18/graph.txt", io).workload;
  }();
  Allocation a = parse_allocation("0,0,0,0,1,1,1,2,2,2,2,2,2,2,3,3,3,3,3,3,3,3,3,3,3,3", 26, 4);
};

TEST(PipeDream, CycleOfThreeMicroBatchesIsAThreeCopyPattern) {
  const ResNet18Cycle x;
  Simulation sim(x.root + "platforms/complete-4.xml");
  const Platform& platform = sim.platform();
  const Pattern pat = pipedream_pattern(x.a, 4, x.w, platform);
  ASSERT_EQ(pat.copies, 3);
  EXPECT_EQ(pat.ops.size(), 26u * 2 * 3);
  EXPECT_EQ(pat.transfers.size(), 3u * 2 * 3);
  EXPECT_NEAR(pat.period, 0.26653268672, 1e-10);
  const PatternTiming t = pattern_timing(pat, x.w, platform);
  EXPECT_TRUE(validate_pattern(pat, t, platform, x.w).empty());
  EXPECT_NEAR(exact_period(pattern_event_graph(pat, t)).period / pat.period, 1, 1e-12);
  EXPECT_EQ(pattern_memory(pat, t, x.w, 4).devices[0].in_flight, 4);
  // Copy c of period i is micro-batch 3 (i + shift) + c: PipeDream's own run
  // on SimGrid has the pattern's period per micro-batch.
  const TaskGraph g = pipedream_schedule(allocation_plan(x.a, x.w, platform), 500, 4, platform.size());
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  EXPECT_NEAR(steady_time_per_microbatch(g, tl, 0, 101, 401) * 3 / pat.period, 1, 1e-6);
}

// The 3-copy pattern unrolled and simulated: its exact period and, under
// both buffer policies, every device's analytic peak are the simulated ones.
TEST(PipeDream, CycleOfThreeMicroBatchesIsSimulatedAtItsExactPeriod) {
  const ResNet18Cycle x;
  Simulation sim(x.root + "platforms/complete-4.xml");
  const Pattern pat = pipedream_pattern(x.a, 4, x.w, sim.platform());
  ASSERT_EQ(pat.copies, 3);
  check_against_simulation(sim, pat, x.w, 0.26653268672);
}

TEST(PipeDream, RegistryEntry) {
  const Platform p = pattern_platform(4);
  Workload w = chain_workload({1, 1, 1, 1}, {2, 2, 2, 2}, {10, 10, 10, 10}, 10, {1, 1, 1, 1});
  w.file = "w.yaml";
  w.schedule = "pipedream";
  w.microbatches = 5;
  w.iterations = 2;
  const TaskGraph g = generate(w, p).graph;
  EXPECT_EQ(g.size(), 10u * 4 * 2 + 10u * 3 * 2);  // F and B per stage, transfers both ways per boundary
  auto weights0 = [](const TaskGraph& graph) {
    double bytes = 0;
    for (const StaticMemory& s : graph.static_memory())
      if (s.device == 0 && s.category == MemoryCategory::Weights) bytes += s.bytes;
    return bytes;
  };
  EXPECT_DOUBLE_EQ(weights0(g), 4);  // default NOAM = 4 stages: one version per micro-batch in flight
  w.schedule_params["noam"] = "2";
  EXPECT_DOUBLE_EQ(weights0(generate(w, p).graph), 2);
  w.schedule_params["allocation"] = "0,1,0,2";
  try {
    generate(w, p);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "w.yaml: schedule.allocation: PipeDream needs a contiguous allocation, got 0,1,0,2");
  }
}

}  // namespace
}  // namespace pipesim
