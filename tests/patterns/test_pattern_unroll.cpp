// Pattern timing, minimal shifts (seed 000 Lemma 9) and unrolling into a task graph.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

// Two layers on two devices, F = 1 s, B = 2 s, free transfers.
Workload two_layers(double activation = 0) { return chain_workload({1, 1}, {2, 2}, {activation, activation}); }

int shift_of(const Pattern& p, TaskKind kind, int layer, int copy = 0) {
  return p.ops[index_of(p, kind, layer, copy)].shift;
}
int transfer_shift(const Pattern& p, TaskKind kind, int layer, int copy = 0) {
  const int from = index_of(p, kind, layer, copy);
  for (const PatternTransfer& t : p.transfers)
    if (t.from == from) return t.shift;
  return -100;
}

TEST(PatternTiming, DurationsBytesAndTransfers) {
  const Platform platform = pattern_platform(2, 0.001, 1e9);
  const Workload w = chain_workload({1, 0.5}, {2, 1}, {3e8, 1e8}, 5e7, {10, 20});
  const Pattern p = make_pattern(2, 1, 4, {F(0, 0, 0), F(1, 1, 1), B(1, 1, 2), B(0, 0, 3)});
  const PatternTiming t = pattern_timing(p, w, platform);
  const int f1 = index_of(p, TaskKind::Forward, 0), f2 = index_of(p, TaskKind::Forward, 1);
  const int b2 = index_of(p, TaskKind::Backward, 1), b1 = index_of(p, TaskKind::Backward, 0);
  EXPECT_DOUBLE_EQ(t.duration[f1], 1);
  EXPECT_DOUBLE_EQ(t.duration[b2], 1);
  EXPECT_DOUBLE_EQ(t.flops[b1], 2e12);
  EXPECT_DOUBLE_EQ(t.output_bytes[f1], 3e8);  // a_1
  EXPECT_DOUBLE_EQ(t.output_bytes[f2], 1e8);  // a_2
  EXPECT_DOUBLE_EQ(t.output_bytes[b2], 3e8);  // gradient of a_1
  EXPECT_DOUBLE_EQ(t.output_bytes[b1], 5e7);  // gradient of the input
  EXPECT_DOUBLE_EQ(t.transfer_duration[f1], 0.001 + 0.3);
  EXPECT_DOUBLE_EQ(t.transfer_duration[f2], 0);  // F2 -> B2 on one device
  EXPECT_DOUBLE_EQ(t.transfer_duration[b2], 0.001 + 0.3);
  EXPECT_DOUBLE_EQ(t.transfer_duration[b1], 0);  // no successor
  EXPECT_EQ(t.weights, (std::vector<double>{10, 20}));
}

TEST(PatternTiming, RejectsMalformedPatterns) {
  const Platform platform = pattern_platform(2);
  const Workload w = two_layers();
  auto error = [&](const Pattern& p) -> std::string {
    try {
      pattern_timing(p, w, platform);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(error(make_pattern(2, 1, 3, {F(0, 0, 0), F(1, 1, 1), B(1, 0, 2), B(0, 0, 1)})).find("same device"),
            std::string::npos);
  EXPECT_NE(error(make_pattern(2, 1, 3, {F(0, 0, 0), F(1, 1, 1), B(1, 1, 3), B(0, 0, 1)})).find("outside [0, period)"),
            std::string::npos);
  EXPECT_NE(error(make_pattern(2, 1, 3, {F(0, 0, 0), F(0, 1, 1), B(1, 1, 2), B(0, 0, 1)})).find("twice"),
            std::string::npos);
  EXPECT_NE(error(make_pattern(1, 1, 3, {F(0, 0, 0), B(0, 0, 1)})).find("layers"), std::string::npos);
  EXPECT_NE(error(make_pattern(2, 1, 3, {F(0, 0, 0), F(1, 2, 1), B(1, 2, 2), B(0, 0, 1)})).find("device"),
            std::string::npos);
}

TEST(MinimalShiftStep, CeilOfTheLagInPeriods) {
  EXPECT_EQ(minimal_shift_step(1, 1, 3), 0);          // an end exactly at the start
  EXPECT_EQ(minimal_shift_step(1 + 1e-12, 1, 3), 0);  // round-off
  EXPECT_EQ(minimal_shift_step(0.5, 2, 3), 0);
  EXPECT_EQ(minimal_shift_step(1.1, 1, 3), 1);
  EXPECT_EQ(minimal_shift_step(4, 1, 3), 1);  // exactly one period later
  EXPECT_EQ(minimal_shift_step(4.5, 1, 3), 2);
  EXPECT_EQ(minimal_shift_step(7, 0.5, 3), 3);
}

// Seed 000 Figure 9-like: 1F1B on two devices, P0: F1 B1, P1: F2 B2 (B2 wraps).
TEST(AssignMinimalShifts, OneFOneBOnTwoDevices) {
  Pattern p = make_pattern(2, 1, 3, {F(0, 0, 0), B(0, 0, 1), F(1, 1, 1), B(1, 1, 2)});
  assign_minimal_shifts(p, pattern_timing(p, two_layers(), pattern_platform(2)));
  ASSERT_EQ(p.transfers.size(), 2u);  // F1 -> F2 and B2 -> B1, created
  EXPECT_EQ(shift_of(p, TaskKind::Backward, 0), 0);
  EXPECT_EQ(transfer_shift(p, TaskKind::Backward, 1), 0);  // B2 ends at 4 = 1 (next period): B1 at 1 follows
  EXPECT_EQ(shift_of(p, TaskKind::Backward, 1), 1);        // B2's end wraps past the transfer's start
  EXPECT_EQ(shift_of(p, TaskKind::Forward, 1), 1);         // F2 ends at 2 = B2's start
  EXPECT_EQ(transfer_shift(p, TaskKind::Forward, 0), 1);   // ends at 1 = F2's start
  EXPECT_EQ(shift_of(p, TaskKind::Forward, 0), 1);
  EXPECT_DOUBLE_EQ(p.transfers[0].start, 1);  // right after its producer
  EXPECT_DOUBLE_EQ(p.transfers[1].start, 1);  // B2 ends at 4, i.e. offset 1
  EXPECT_EQ(find_overlap(p, pattern_timing(p, two_layers(), pattern_platform(2)), pattern_platform(2)), "");
}

// The backward of the last layer comes first on P1: every step before it costs one period.
TEST(AssignMinimalShifts, ReversedOrderOnTheLastDevice) {
  Pattern p = make_pattern(2, 1, 3, {F(0, 0, 0), B(0, 0, 1), B(1, 1, 0), F(1, 1, 2)});
  assign_minimal_shifts(p, pattern_timing(p, two_layers(), pattern_platform(2)));
  EXPECT_EQ(shift_of(p, TaskKind::Backward, 0), 0);
  EXPECT_EQ(transfer_shift(p, TaskKind::Backward, 1), 1);  // ends at 2, B1 starts at 1
  EXPECT_EQ(shift_of(p, TaskKind::Backward, 1), 1);
  EXPECT_EQ(shift_of(p, TaskKind::Forward, 1), 2);  // F2 ends at 3, B2 starts at 0
  EXPECT_EQ(transfer_shift(p, TaskKind::Forward, 0), 2);
  EXPECT_EQ(shift_of(p, TaskKind::Forward, 0), 2);
}

// Seed 000 Figure 10: a transfer ending more than a period after its consumer's start: shift 2.
TEST(AssignMinimalShifts, LongTransferCostsTwoPeriods) {
  const Workload w = chain_workload({1, 1}, {2, 2}, {2.5e9, 2.5e9});  // 2.5 s transfers
  Pattern p = make_pattern(2, 1, 3, {F(0, 0, 0), B(0, 0, 1), F(1, 1, 0.2), B(1, 1, 1.2)});
  assign_minimal_shifts(p, pattern_timing(p, w, pattern_platform(2)));
  EXPECT_EQ(shift_of(p, TaskKind::Backward, 0), 0);
  EXPECT_EQ(transfer_shift(p, TaskKind::Backward, 1), 1);  // [0.2, 2.7) then B1 at 1
  EXPECT_EQ(shift_of(p, TaskKind::Backward, 1), 2);        // B2 ends at 3.2 = 0.2 + T: one period
  EXPECT_EQ(shift_of(p, TaskKind::Forward, 1), 2);
  EXPECT_EQ(transfer_shift(p, TaskKind::Forward, 0), 4);  // [1, 3.5) then F2 at 0.2: two periods
  EXPECT_EQ(shift_of(p, TaskKind::Forward, 0), 4);
}

TEST(AssignMinimalShifts, CopiesWalkTheirOwnChains) {
  // 2F2B on one device: F1.c0 F1.c1 B1.c0 B1.c1, one layer, no transfers.
  const Workload w = chain_workload({1}, {2}, {0});
  Pattern p = make_pattern(1, 2, 6, {F(0, 0, 0, 0), F(0, 0, 1, 1), B(0, 0, 2, 0), B(0, 0, 4, 1)});
  assign_minimal_shifts(p, pattern_timing(p, w, pattern_platform(1)));
  EXPECT_TRUE(p.transfers.empty());
  for (int c : {0, 1}) {
    EXPECT_EQ(shift_of(p, TaskKind::Forward, 0, c), 0);
    EXPECT_EQ(shift_of(p, TaskKind::Backward, 0, c), 0);
  }
}

TEST(FindOverlap, NamesTheConflict) {
  const Platform platform = pattern_platform(2);
  Pattern p = make_pattern(2, 1, 3, {F(0, 0, 0), B(0, 0, 0.5), F(1, 1, 1), B(1, 1, 2)});
  EXPECT_EQ(find_overlap(p, pattern_timing(p, two_layers(), platform), platform),
            "on gpu0, F1 (start 0, lasts 1) overlaps B1 (start 0.5)");
  p = make_pattern(2, 1, 3, {F(0, 0, 0), B(0, 0, 1), F(1, 1, 1), B(1, 1, 2.5)});
  EXPECT_EQ(find_overlap(p, pattern_timing(p, two_layers(), platform), platform),
            "on gpu1, B2 (start 2.5, lasts 2) overlaps F2 (start 1 in the next period)");
}

// Shared by the unroll tests: the 1F1B pattern of OneFOneBOnTwoDevices with real transfers.
Pattern one_f_one_b(const Workload& w, const Platform& platform) {
  Pattern p = make_pattern(2, 1, 3.5, {F(0, 0, 0), B(0, 0, 1.2), F(1, 1, 1.2), B(1, 1, 2.2)});
  assign_minimal_shifts(p, pattern_timing(p, w, platform));
  return p;
}

TEST(UnrollPattern, TaskCountsDependenciesAndOrders) {
  const Platform platform = pattern_platform(2);
  const Workload w = two_layers(1e8);  // 0.1 s transfers
  const Pattern p = one_f_one_b(w, platform);
  const PatternTiming t = pattern_timing(p, w, platform);
  const int N = 7;
  const TaskGraph g = unroll_pattern(p, t, 2, N);
  ASSERT_EQ(g.size(), static_cast<std::size_t>(N * (4 + 2)));
  std::map<TaskKind, int> kinds;
  for (const Task& task : g.tasks()) ++kinds[task.kind];
  EXPECT_EQ(kinds[TaskKind::Forward], 2 * N);
  EXPECT_EQ(kinds[TaskKind::Backward], 2 * N);
  EXPECT_EQ(kinds[TaskKind::Transfer], 2 * N);
  // Every compute task is ordered; device 0 runs F1 of mb s(F1)=1 ahead: F0 F1 B0 F2 B1 ...
  ASSERT_EQ(g.device_order(0).size(), static_cast<std::size_t>(2 * N));
  std::string seq;
  for (std::size_t i = 0; i < 6; ++i) {
    const Task& task = g.task(g.device_order(0)[i]);
    seq += (task.kind == TaskKind::Forward ? "F" : "B") + std::to_string(task.microbatch) + " ";
  }
  EXPECT_EQ(seq, "F0 F1 B0 F2 B1 F3 ");
  // Transfers wait for their producer and, as both directions share one link,
  // all but the first also for the previous transfer.
  int chained = 0;
  for (TaskId id = 0; id < g.size(); ++id) {
    const Task& task = g.task(id);
    if (task.kind != TaskKind::Transfer) continue;
    EXPECT_DOUBLE_EQ(task.amount, 1e8);
    EXPECT_NE(task.device, task.peer);
    EXPECT_EQ(g.task(*g.deps_begin(id)).device, task.device);  // the producer
    chained += g.deps_end(id) - g.deps_begin(id) == 2;
  }
  EXPECT_EQ(chained, 2 * N - 1);
  // Memory effects cancel on every device and category: only static memory remains.
  std::map<std::pair<int, MemoryCategory>, double> sum;
  for (const TaskMemoryEffect& e : g.memory_effects()) sum[{e.device, e.category}] += e.bytes;
  for (const auto& [key, bytes] : sum) EXPECT_DOUBLE_EQ(bytes, 0) << key.first;
}

TEST(UnrollPattern, IterationsSplitTheMicrobatches) {
  const Platform platform = pattern_platform(2);
  const Workload w = two_layers();
  const Pattern p = one_f_one_b(w, platform);
  const TaskGraph g = unroll_pattern(p, pattern_timing(p, w, platform), 2, 6, 3);
  int last_iteration = 0;
  for (const Task& task : g.tasks()) {
    EXPECT_LT(task.microbatch, 3);
    last_iteration = std::max(last_iteration, task.iteration);
  }
  EXPECT_EQ(last_iteration, 1);
}

TEST(UnrollPattern, RejectsShiftsThatGoBackInTime) {
  const Platform platform = pattern_platform(2);
  const Workload w = two_layers(1e8);
  Pattern p = one_f_one_b(w, platform);
  // B2 -> B1 five periods early: on the shared link it then precedes the
  // F1 -> F2 transfer its own micro-batch needs first, a cycle.
  p.transfers[1].shift += 5;
  EXPECT_THROW(unroll_pattern(p, pattern_timing(p, w, platform), 2, 10), std::invalid_argument);
}

TEST(UnrollPattern, RunsWithoutDeadlock) {
  Simulation sim(complete_platform(2, "1GBps", "1ms"));
  const Workload w = two_layers(1e8);
  const Pattern p = one_f_one_b(w, sim.platform());
  const TaskGraph g = unroll_pattern(p, pattern_timing(p, w, sim.platform()), 2, 20);
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  EXPECT_GT(tl.makespan, 20 * 3.0);
}

}  // namespace
}  // namespace pipesim
