// 1F1B and kFkB patterns built on allocations: valid, at the optimal period,
// kFkB stashing no more than 1F1B; the registry entries; simulations.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/registry.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/exact_period.hpp"
#include "sim/input_error.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/patterns/pattern_simulation_check.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

// The random workloads of test_pattern_fixtures.hpp, on a random allocation of their own.
struct Case {
  Workload w;
  Allocation a;
  WeightPolicy policy;
};

Case random_allocation_case(int seed, const Platform& platform) {
  Case c{random_case(seed, platform).workload, {}, WeightPolicy::TwoBW};
  std::mt19937 rng(7000 + seed);
  for (std::size_t l = 0; l < c.w.layers.size(); ++l)
    c.a.push_back(std::uniform_int_distribution<int>(0, platform.size() - 1)(rng));
  c.policy = static_cast<WeightPolicy>(seed % 3);
  return c;
}

double stashed_bytes(const Pattern& p, const Workload& w, const Platform& platform) {
  const std::vector<int> n = pattern_memory(p, pattern_timing(p, w, platform), w, platform.size()).stash_counts;
  double bytes = 0;
  for (std::size_t l = 0; l < n.size(); ++l) bytes += n[l] * (l == 0 ? w.input : w.layers[l - 1].activation);
  return bytes;
}

// Uniform 1F1B by hand (F = 1, B = 2, T = 3): each op as soon as its input
// is there, F1 at 0; B3 finds its device free at 0 (offset of time 6).
TEST(PatternGenerators, OneFOneBByHand) {
  const Platform p = pattern_platform(4);
  const Workload w = chain_workload({1, 1, 1, 1}, {2, 2, 2, 2}, {0, 0, 0, 0});
  const Pattern pat = one_f_one_b_pattern({0, 1, 2, 3}, w, p);
  EXPECT_DOUBLE_EQ(pat.period, 3);
  auto start = [&](TaskKind kind, int layer) { return pat.ops[index_of(pat, kind, layer)].start; };
  EXPECT_EQ((std::vector<double>{start(TaskKind::Forward, 0), start(TaskKind::Forward, 1), start(TaskKind::Forward, 2),
                                 start(TaskKind::Forward, 3)}),
            (std::vector<double>{0, 1, 2, 0}));
  EXPECT_EQ((std::vector<double>{start(TaskKind::Backward, 3), start(TaskKind::Backward, 2),
                                 start(TaskKind::Backward, 1), start(TaskKind::Backward, 0)}),
            (std::vector<double>{1, 0, 2, 1}));
  EXPECT_EQ(pattern_memory(pat, pattern_timing(pat, w, p), w, 4).stash_counts, (std::vector<int>{4, 3, 2, 1}));
  EXPECT_EQ(pattern_period_bound({0, 1, 2, 3}, w, p, 2), 6);
}

// A device full of ops that do not tile the gaps the first copy leaves
// (seed 000 §4.3's second example with F = 1/3 of F + B): still valid.
TEST(PatternGenerators, FullDevicesWithFragmentedGaps) {
  const Platform p = pattern_platform(2);
  const Workload w = chain_workload({1. / 3, 2. / 3, 1. / 3}, {2. / 3, 4. / 3, 2. / 3}, {3, 2, 0}, 2);
  for (int k = 1; k <= 4; ++k) {
    const Pattern pat = kfkb_pattern(k, {0, 1, 0}, w, p);
    const PatternTiming t = pattern_timing(pat, w, p);
    EXPECT_EQ(find_overlap(pat, t, p), "") << k;
    EXPECT_NEAR(exact_period(pattern_event_graph(pat, t)).period, 2.0 * k, 1e-9) << k;
    EXPECT_LE(stashed_bytes(pat, w, p), stashed_bytes(one_f_one_b_pattern({0, 1, 0}, w, p), w, p)) << k;
  }
}

TEST(PatternGenerators, RandomPatternsAreValidAtTheLoadBound) {
  for (int seed = 0; seed < 60; ++seed) {
    const Platform p = pattern_platform(random_devices(seed), 0.001, 1e9);
    const Case c = random_allocation_case(seed, p);
    const double one = stashed_bytes(one_f_one_b_pattern(c.a, c.w, p), c.w, p);
    for (int k = 1; k <= 3; ++k) {
      const Pattern pat = kfkb_pattern(k, c.a, c.w, p, c.policy);
      EXPECT_NO_THROW(check_pattern(pat, p.size()));
      const PatternTiming t = pattern_timing(pat, c.w, p);
      EXPECT_EQ(find_overlap(pat, t, p), "") << seed << " k=" << k;
      EXPECT_NEAR(pat.period / pattern_period_bound(c.a, c.w, p, k), 1, 1e-12);
      EXPECT_NEAR(exact_period(pattern_event_graph(pat, t)).period / pat.period, 1, 1e-9) << seed << " k=" << k;
      EXPECT_EQ(pat.weights, c.policy);
      EXPECT_LE(stashed_bytes(pat, c.w, p), one * (1 + 1e-12)) << seed << " k=" << k;  // replicated 1F1B is a candidate
    }
  }
}

TEST(PatternGenerators, RejectsImpossibleInput) {
  const Platform p = pattern_platform(2);
  const Workload w = chain_workload({1, 1}, {1, 1}, {0, 0});
  EXPECT_THROW(kfkb_pattern(0, {0, 1}, w, p), std::invalid_argument);
  EXPECT_THROW(kfkb_pattern(1, {0, 2}, w, p), std::invalid_argument);  // no device 2
  const Workload free = chain_workload({0, 0}, {0, 0}, {0, 0});
  EXPECT_THROW(one_f_one_b_pattern({0, 1}, free, p), std::invalid_argument);
}

// ---- Registry: 1f1b-pattern, kfkb.

Workload registry_workload(const std::string& schedule, std::map<std::string, std::string> params = {}) {
  Workload w = chain_workload({1, 2, 1}, {1, 2, 1}, {100, 100, 100}, 100);
  w.file = "w.yaml";
  w.schedule = schedule;
  w.schedule_params = std::move(params);
  w.microbatches = 4;
  w.iterations = 2;
  return w;
}

std::string schedule_error(const Workload& w, const Platform& p) {
  try {
    generate(w, p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::size_t count(const TaskGraph& g, TaskKind kind) {
  return std::count_if(g.tasks().begin(), g.tasks().end(), [&](const Task& t) { return t.kind == kind; });
}

TEST(PatternGenerators, RegistryEntries) {
  const Platform p = pattern_platform(2);
  // Automatic placement: 2 stages; 8 micro-batches in all, F and B of 3 layers each.
  const TaskGraph one = generate(registry_workload("1f1b-pattern"), p).graph;
  EXPECT_EQ(count(one, TaskKind::Forward), 24u);
  EXPECT_EQ(count(one, TaskKind::Transfer), 16u);  // one boundary, both ways
  const TaskGraph two = generate(registry_workload("kfkb", {{"k", "2"}, {"allocation", "0,1,0"}}), p).graph;
  EXPECT_EQ(count(two, TaskKind::Backward), 24u);
  EXPECT_EQ(count(two, TaskKind::Transfer), 32u);  // two boundaries, both ways
  int last_iteration = 0;
  for (const Task& t : two.tasks()) last_iteration = std::max(last_iteration, t.iteration);
  EXPECT_EQ(last_iteration, 1);  // micro-batches 4..7: iteration 1
  EXPECT_NO_THROW(generate(registry_workload("1f1b-pattern", {{"weights", "stashing"}}), p));

  EXPECT_EQ(schedule_error(registry_workload("kfkb", {{"k", "0"}}), p),
            "w.yaml: schedule.k: expected a positive integer, got '0'");
  EXPECT_EQ(schedule_error(registry_workload("kfkb", {{"chunks", "2"}}), p),
            "w.yaml: schedule.chunks: unknown parameter 'chunks' for schedule 'kfkb' "
            "(expected: allocation, k, links, memory_policy, weights)");
  EXPECT_EQ(schedule_error(registry_workload("1f1b-pattern", {{"k", "2"}}), p),
            "w.yaml: schedule.k: unknown parameter 'k' for schedule '1f1b-pattern' "
            "(expected: allocation, links, memory_policy, weights)");
  EXPECT_EQ(schedule_error(registry_workload("kfkb", {{"memory_policy", "static"}}), p),
            "w.yaml: schedule.memory_policy: expected lifetime or seed000, got 'static'");
  EXPECT_EQ(schedule_error(registry_workload("1f1b-pattern", {{"allocation", "0,1"}}), p),
            "w.yaml: schedule.allocation: 2 device indices for 3 layers");
  EXPECT_EQ(schedule_error(registry_workload("1f1b-pattern", {{"weights", "three"}}), p),
            "w.yaml: schedule.weights: expected flush, 2bw or stashing, got 'three'");
  Workload placed = registry_workload("kfkb", {{"allocation", "0,1,0"}});
  placed.placement.stages = 2;
  EXPECT_EQ(schedule_error(placed, p),
            "w.yaml: placement: not used with schedule.allocation, which places every layer");
}

// memory_policy: the pattern carries it (default lifetime), and the run holds
// buffers accordingly: seed000's static send and receive buffers (one
// boundary each way, 100 bytes, on both devices), or none with lifetime,
// where transfers allocate and free them.
TEST(PatternGenerators, MemoryPolicyParameter) {
  const Platform p = pattern_platform(2);
  auto transfer_effects = [](const TaskGraph& g) {
    std::size_t n = 0;
    for (const TaskMemoryEffect& e : g.memory_effects()) n += g.task(e.task).kind == TaskKind::Transfer;
    return n;
  };
  for (const std::string name : {"1f1b-pattern", "kfkb"}) {
    const GeneratedSchedule lifetime = generate(registry_workload(name), p);
    ASSERT_TRUE(lifetime.pattern);
    EXPECT_EQ(lifetime.pattern->buffers, BufferPolicy::Lifetime) << name;
    EXPECT_EQ(static_comm_buffers(lifetime.graph), 0) << name;
    EXPECT_EQ(transfer_effects(lifetime.graph), 2 * count(lifetime.graph, TaskKind::Transfer)) << name;
    const GeneratedSchedule paper = generate(registry_workload(name, {{"memory_policy", "seed000"}}), p);
    EXPECT_EQ(paper.pattern->buffers, BufferPolicy::Seed000) << name;
    const int k = paper.pattern->copies;
    EXPECT_EQ(static_comm_buffers(paper.graph), k * 4 * 100) << name;  // per copy: 2 edges x 2 ends
    EXPECT_EQ(transfer_effects(paper.graph), 0u) << name;
  }
}

// ---- Simulations: random kFkB patterns on SimGrid, steady state and peaks as predicted.

class GeneratedPatternSimulation : public ::testing::TestWithParam<int> {};

TEST_P(GeneratedPatternSimulation, MatchesExactPeriodAndAnalyticMemory) {
  const int seed = GetParam();
  Simulation sim(complete_platform(random_devices(seed), "1GBps", "1ms"));
  const Platform& platform = sim.platform();
  const Case c = random_allocation_case(seed, platform);
  const Pattern pat = kfkb_pattern(1 + seed % 3, c.a, c.w, platform, c.policy);
  // Period = the pattern's; analytic peak = simulated peak under both buffer policies.
  check_against_simulation(sim, pat, c.w, pat.period);
}

INSTANTIATE_TEST_SUITE_P(Seeds, GeneratedPatternSimulation, ::testing::Range(0, 12));

// The registry's kfkb run end to end: steady state of the unrolled pattern.
TEST(PatternGenerators, KfKbThroughTheRegistryOnSimGrid) {
  Simulation sim(complete_platform(2, "1GBps", "0s"));
  Workload w = registry_workload("kfkb", {{"k", "2"}, {"allocation", "0,1,0"}});
  w.microbatches = 200;
  w.iterations = 1;
  const TaskGraph g = generate(w, sim.platform()).graph;
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed());
  // F = B = (1, 2, 1) s: each device has 4 s of work per micro-batch.
  EXPECT_NEAR(steady_time_per_microbatch(g, tl, 0, 50, 150), 4, 1e-6);
}

}  // namespace
}  // namespace pipesim
