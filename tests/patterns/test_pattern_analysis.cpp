// A pattern's timed event graph and analytic memory (seed 000 §6.2), by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

constexpr int kWeights = static_cast<int>(MemoryCategory::Weights);
constexpr int kActivations = static_cast<int>(MemoryCategory::Activations);
constexpr int kGradients = static_cast<int>(MemoryCategory::Gradients);
constexpr int kBuffers = static_cast<int>(MemoryCategory::CommBuffers);

// Two layers on two devices, F = 1 s, B = 2 s; a_1 = 100 B over 1 kB/s: 0.1 s transfers.
struct TwoDevices {
  Platform platform = pattern_platform(2, 0, 1000);
  Workload workload = chain_workload({1, 1}, {2, 2}, {100, 10}, 1000, {5, 7});
  Pattern pattern = make_pattern(2, 1, 3.5, {F(0, 0, 0), B(0, 0, 1.2), F(1, 1, 1.2), B(1, 1, 2.2)});
  PatternTiming timing;
  TwoDevices() {
    assign_minimal_shifts(pattern, pattern_timing(pattern, workload, platform));
    timing = pattern_timing(pattern, workload, platform);
  }
  int at(TaskKind kind, int layer) const { return index_of(pattern, kind, layer); }
};

TEST(PatternEventGraph, ArcsAndTokens) {
  const TwoDevices c;
  const TimedEventGraph g = pattern_event_graph(c.pattern, c.timing);
  ASSERT_EQ(g.nodes.size(), 6u);
  EXPECT_EQ(g.nodes[4], "F1->F2");
  EXPECT_EQ(g.nodes[5], "B2->B1");
  // 5 data arcs, 2 + 2 device arcs, 2 link arcs (both directions share the link).
  ASSERT_EQ(g.arcs.size(), 11u);
  auto tokens = [&](int from, int to) {
    for (const EventArc& a : g.arcs)
      if (a.from == from && a.to == to) return a.tokens;
    return -1;
  };
  const int f1 = c.at(TaskKind::Forward, 0), f2 = c.at(TaskKind::Forward, 1);
  const int b2 = c.at(TaskKind::Backward, 1), b1 = c.at(TaskKind::Backward, 0);
  EXPECT_EQ(tokens(f1, 4), 0);
  EXPECT_EQ(tokens(4, f2), 0);
  EXPECT_EQ(tokens(f2, b2), 0);
  EXPECT_EQ(tokens(b2, 5), 1);  // B2 ends in the next period
  EXPECT_EQ(tokens(5, b1), 0);
  EXPECT_EQ(tokens(b1, f1), 1);  // device 0: F1 then B1, back to F1 next period
  EXPECT_EQ(tokens(5, 4), 0);    // link: B2->B1 at 0.7, F1->F2 at 1
  EXPECT_EQ(tokens(4, 5), 1);
}

TEST(PatternEventGraph, ExactPeriodOfASlackPattern) {
  // Period 3.5, but the schedule needs only 3.2: the cycle F1->F2 F2 B2 B2->B1
  // (back to F1->F2 on the shared link, 0 tokens) takes .1 + 1 + 2 + .1 with
  // one token (B2 ends in the next period); the chain F1 .. B1 and back to
  // F1 takes 6.2 for two tokens.
  const TwoDevices c;
  const ExactPeriod exact = exact_period(pattern_event_graph(c.pattern, c.timing));
  EXPECT_NEAR(exact.period, 3.2, 1e-12);
  std::vector<int> cycle = exact.critical_cycle;
  std::sort(cycle.begin(), cycle.end());
  EXPECT_EQ(cycle, (std::vector<int>{c.at(TaskKind::Forward, 1), c.at(TaskKind::Backward, 1), 4, 5}));
}

TEST(PatternMemory, TwoDevicesByHand) {
  const TwoDevices c;
  const PatternMemory m = pattern_memory(c.pattern, c.timing, c.workload, 2);
  const int f1 = c.at(TaskKind::Forward, 0), f2 = c.at(TaskKind::Forward, 1);
  const int b2 = c.at(TaskKind::Backward, 1), b1 = c.at(TaskKind::Backward, 0);
  // Device 0: 2BW weights 2 x 5, gradients 5, buffers a_1 out and a_1 in.
  // F1 handles mb i+1 while B1 handles mb i: two inputs (1000 B) stashed.
  EXPECT_EQ(m.during[f1], (MemoryBreakdown{10, 2000, 5, 200 + 100, 0}));
  EXPECT_EQ(m.during[b1], (MemoryBreakdown{10, 2000, 5, 200 + 100 + 1000, 0}));
  // Device 1: one stash of a_1; B2 holds F2's output (10) as input, and its own (100).
  EXPECT_EQ(m.during[f2], (MemoryBreakdown{14, 100, 7, 200 + 10, 0}));
  EXPECT_EQ(m.during[b2], (MemoryBreakdown{14, 100, 7, 200 + 10 + 100, 0}));
  EXPECT_DOUBLE_EQ(m.devices[0].peak, 3315);
  EXPECT_EQ(m.devices[0].peak_op, b1);
  EXPECT_DOUBLE_EQ(m.devices[1].peak, 431);
  EXPECT_EQ(m.stash_counts, (std::vector<int>{2, 1}));
  EXPECT_EQ(m.devices[0].in_flight, 2);
  EXPECT_EQ(m.devices[1].in_flight, 1);
}

TEST(PatternMemory, WeightPolicies) {
  TwoDevices c;
  c.pattern.weights = WeightPolicy::Flush;
  EXPECT_DOUBLE_EQ(pattern_memory(c.pattern, c.timing, c.workload, 2).devices[0].breakdown[kWeights], 5);
  c.pattern.weights = WeightPolicy::Stashing;  // one version per micro-batch in flight
  const PatternMemory m = pattern_memory(c.pattern, c.timing, c.workload, 2);
  EXPECT_DOUBLE_EQ(m.devices[0].breakdown[kWeights], 5 * 2);
  EXPECT_DOUBLE_EQ(m.devices[1].breakdown[kWeights], 7 * 1);
  EXPECT_DOUBLE_EQ(m.devices[1].breakdown[kGradients], 7);
}

// A direct dependency that waits a period: F1 and F2 on one device, F2 first.
TEST(PatternMemory, DirectDependencyAcrossThePeriod) {
  const Platform platform = pattern_platform(1);
  const Workload w = chain_workload({1, 1}, {1, 1}, {100, 10}, 1000);
  Pattern p = make_pattern(2, 1, 4, {F(1, 0, 0), B(1, 0, 1), F(0, 0, 2), B(0, 0, 3)}, WeightPolicy::Flush);
  assign_minimal_shifts(p, pattern_timing(p, w, platform));
  const PatternTiming t = pattern_timing(p, w, platform);
  const PatternMemory m = pattern_memory(p, t, w, 1);
  // F1's output a_1 waits from F1's end (offset 3) to F2's start (0 next period).
  const int f2 = index_of(p, TaskKind::Forward, 1), b1 = index_of(p, TaskKind::Backward, 0);
  EXPECT_EQ(p.ops[index_of(p, TaskKind::Forward, 0)].shift - p.ops[f2].shift, 1);
  EXPECT_DOUBLE_EQ(m.during[b1][kBuffers], 100 + 1000 + 10 * 0 + 100);  // input 100, output 1000, DIR a_1
  EXPECT_DOUBLE_EQ(m.during[f2][kBuffers], 10);                         // the DIR became F2's input (stash)
  EXPECT_DOUBLE_EQ(m.during[f2][kActivations], 1000 + 100);
}

// Seed 000 §4.3: 1F1B on four stages stashes 4, 3, 2, 1 activations.
TEST(PatternMemory, OneFOneBStashCounts) {
  const int S = 4;
  const Platform platform = pattern_platform(S);
  const Workload w = chain_workload({1, 1, 1, 1}, {2, 2, 2, 2}, {0, 0, 0, 0});
  std::vector<PatternOp> ops;
  for (int s = 0; s < S; ++s) {
    ops.push_back(F(s, s, s % 3));
    ops.push_back(B(s, s, (3 * S - 2 - 2 * s) % 3));  // right after F_s
  }
  Pattern p = make_pattern(S, 1, 3, ops);
  const PatternTiming t = pattern_timing(p, w, platform);
  assign_minimal_shifts(p, t);
  EXPECT_EQ(find_overlap(p, pattern_timing(p, w, platform), platform), "");
  EXPECT_EQ(pattern_memory(p, pattern_timing(p, w, platform), w, S).stash_counts, (std::vector<int>{4, 3, 2, 1}));
  EXPECT_NEAR(exact_period(pattern_event_graph(p, pattern_timing(p, w, platform))).period, 3, 1e-12);
}

TEST(PatternMemory, RandomPatternsAreConsistent) {
  // The analytic peak is the largest total over ops, and totals never go negative.
  for (int seed = 0; seed < 50; ++seed) {
    const Platform platform = pattern_platform(random_devices(seed), 0.001, 1e9);
    const RandomCase rc = random_case(seed, platform);
    const PatternTiming t = pattern_timing(rc.pattern, rc.workload, platform);
    const PatternMemory m = pattern_memory(rc.pattern, t, rc.workload, platform.size());
    for (std::size_t x = 0; x < rc.pattern.ops.size(); ++x) {
      double total = 0;
      for (double v : m.during[x]) {
        EXPECT_GE(v, 0) << seed;
        total += v;
      }
      EXPECT_LE(total, m.devices[rc.pattern.ops[x].device].peak) << seed;
    }
    EXPECT_EQ(find_overlap(rc.pattern, t, platform), "") << seed;
  }
}

}  // namespace
}  // namespace pipesim
