#include <gtest/gtest.h>

#include <cmath>

#include "analysis/memory.hpp"
#include "tests/support/platform_table.hpp"

using namespace pipesim;

namespace {

constexpr auto W = MemoryCategory::Weights;
constexpr auto A = MemoryCategory::Activations;
constexpr auto G = MemoryCategory::Gradients;
constexpr auto C = MemoryCategory::CommBuffers;
constexpr auto O = MemoryCategory::Optimizer;
constexpr auto Start = MemoryWhen::AtStart;
constexpr auto Finish = MemoryWhen::AtFinish;

Task compute(int device, int mb) {
  Task t;
  t.device = device;
  t.stage = device;
  t.microbatch = mb;
  return t;
}

void set_times(Timeline& tl, const std::vector<std::pair<double, double>>& times) {
  for (const auto& [s, f] : times) {
    tl.start.push_back(s);
    tl.finish.push_back(f);
  }
}

Platform platform(std::vector<double> capacities) {
  Platform p = pipesim::testing::devices_only_platform(static_cast<int>(capacities.size()));
  for (std::size_t d = 0; d < capacities.size(); ++d) p.devices[d].memory = capacities[d];
  return p;
}

// Device 0: static weights and optimizer state; t0 holds a comm buffer while
// it runs, t1 stashes activations from its start, t2 frees them.
// Device 1: t3 holds 500 bytes of gradients over [0, 4].
struct Fixture {
  TaskGraph g{2};
  Timeline tl;
  Fixture() {
    g.add(compute(0, 0));       // t0 [0, 1]
    g.add(compute(0, 1), {0});  // t1 [1, 2]
    g.add(compute(0, 1), {1});  // t2 [2, 3]
    g.add(compute(1, 0));       // t3 [0, 4]
    g.add_static_memory(0, W, 100);
    g.add_static_memory(0, O, 50);
    g.add_static_memory(0, W, 20);  // aggregated with the first
    // Added out of time order on purpose.
    g.add_memory(1, 0, A, Start, 40);
    g.add_memory(0, 0, C, Start, 30);
    g.add_memory(0, 0, C, Finish, -30);
    g.add_memory(2, 0, A, Finish, -40);
    g.add_memory(3, 1, G, Start, 500);
    g.add_memory(3, 1, G, Finish, -500);
    set_times(tl, {{0, 1}, {1, 2}, {2, 3}, {0, 4}});
    tl.makespan = 4;
  }
};

}  // namespace

TEST(Memory, TraceOrderAndLevels) {
  Fixture f;
  const auto trace = memory_trace(f.g, f.tl);
  ASSERT_EQ(trace.size(), 8u);
  auto expect = [&](std::size_t i, double time, int device, MemoryCategory cat, double bytes) {
    EXPECT_EQ(trace[i].time, time) << i;
    EXPECT_EQ(trace[i].device, device) << i;
    EXPECT_EQ(trace[i].category, cat) << i;
    EXPECT_EQ(trace[i].bytes, bytes) << i;
  };
  expect(0, 0, 0, W, 120);  // static, aggregated per device and category
  expect(1, 0, 0, O, 50);
  expect(2, 0, 0, C, 30);
  expect(3, 0, 1, G, 500);
  expect(4, 1, 0, C, 0);   // the free at t0's finish comes before ...
  expect(5, 1, 0, A, 40);  // ... the allocation at t1's start
  expect(6, 3, 0, A, 0);
  expect(7, 4, 1, G, 0);
}

TEST(Memory, EqualTimeTieBreaks) {
  TaskGraph g(1);
  for (int i = 0; i < 4; ++i) g.add(compute(0, i));
  Timeline tl;
  set_times(tl, {{0, 5}, {5, 6}, {5, 6}, {0, 5}});
  g.add_memory(2, 0, A, Start, 1);     // alloc AtStart, task 2
  g.add_memory(1, 0, G, Start, 2);     // alloc AtStart, task 1
  g.add_memory(3, 0, C, Finish, 4);    // alloc AtFinish, task 3
  g.add_memory(0, 0, C, Finish, 8);    // alloc AtFinish, task 0
  g.add_memory(2, 0, W, Start, -16);   // free AtStart
  g.add_memory(3, 0, O, Finish, -32);  // free AtFinish
  const auto trace = memory_trace(g, tl);
  ASSERT_EQ(trace.size(), 6u);
  // Frees first (AtFinish before AtStart), then allocations (AtFinish
  // before AtStart, then by task id).
  const std::vector<MemoryCategory> order = {O, W, C, C, G, A};
  const std::vector<double> bytes = {-32, -16, 8, 12, 2, 1};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(trace[i].category, order[i]) << i;
    EXPECT_EQ(trace[i].bytes, bytes[i]) << i;
    EXPECT_EQ(trace[i].time, 5);
  }
}

// The same effects listed in task order (as graphs build them, the packed-key
// sort) give the same trace as in any order (the general sort above).
TEST(Memory, EqualTimeTieBreaksWithEffectsInTaskOrder) {
  TaskGraph g(1);
  for (int i = 0; i < 4; ++i) g.add(compute(0, i));
  Timeline tl;
  set_times(tl, {{0, 5}, {5, 6}, {5, 6}, {0, 5}});
  g.add_memory(0, 0, C, Finish, 8);    // alloc AtFinish, task 0
  g.add_memory(1, 0, G, Start, 2);     // alloc AtStart, task 1
  g.add_memory(2, 0, A, Start, 1);     // alloc AtStart, task 2
  g.add_memory(2, 0, W, Start, -16);   // free AtStart
  g.add_memory(3, 0, C, Finish, 4);    // alloc AtFinish, task 3
  g.add_memory(3, 0, O, Finish, -32);  // free AtFinish
  g.add_memory(3, 0, A, Finish, 64);   // alloc AtFinish, task 3, listed after the one above
  const auto trace = memory_trace(g, tl);
  ASSERT_EQ(trace.size(), 7u);
  const std::vector<MemoryCategory> order = {O, W, C, C, A, G, A};
  const std::vector<double> bytes = {-32, -16, 8, 12, 64, 2, 65};
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(trace[i].category, order[i]) << i;
    EXPECT_EQ(trace[i].bytes, bytes[i]) << i;
    EXPECT_EQ(trace[i].time, 5);
  }
}

TEST(Memory, SkipsEffectsOfTasksThatDidNotRun) {
  TaskGraph g(1);
  g.add(compute(0, 0));
  g.add(compute(0, 1));
  g.add_memory(0, 0, A, Start, 10);
  g.add_memory(0, 0, A, Finish, 5);   // never finished
  g.add_memory(1, 0, A, Start, 100);  // never started
  Timeline tl;
  set_times(tl, {{1, NAN}, {NAN, NAN}});
  const auto trace = memory_trace(g, tl);
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].bytes, 10);
  EXPECT_EQ(trace[0].time, 1);
}

TEST(Memory, PeaksWithBreakdown) {
  Fixture f;
  const auto peaks = peak_memory(f.g, f.tl);
  ASSERT_EQ(peaks.size(), 2u);
  // Device 0: 200 at t=0 (120+50+30), 210 at t=1 (120+50+40).
  EXPECT_EQ(peaks[0].total, 210);
  EXPECT_EQ(peaks[0].time, 1);
  EXPECT_EQ(peaks[0].breakdown, (MemoryBreakdown{120, 40, 0, 0, 50}));
  EXPECT_EQ(peaks[0].category_peaks, (MemoryBreakdown{120, 40, 0, 30, 50}));
  EXPECT_EQ(peaks[1].total, 500);
  EXPECT_EQ(peaks[1].time, 0);
  EXPECT_EQ(peaks[1].breakdown, (MemoryBreakdown{0, 0, 500, 0, 0}));
}

TEST(Memory, PeakIsTheFirstInstantItIsReached) {
  TaskGraph g(1);
  g.add(compute(0, 0));
  g.add(compute(0, 1));
  g.add_memory(0, 0, A, Start, 10);
  g.add_memory(0, 0, A, Finish, -10);
  g.add_memory(1, 0, G, Start, 10);
  Timeline tl;
  set_times(tl, {{1, 2}, {3, 4}});
  const auto peaks = peak_memory(g, tl);
  EXPECT_EQ(peaks[0].total, 10);
  EXPECT_EQ(peaks[0].time, 1);
  EXPECT_EQ(peaks[0].breakdown, (MemoryBreakdown{0, 10, 0, 0, 0}));
  EXPECT_EQ(peaks[0].category_peaks, (MemoryBreakdown{0, 10, 10, 0, 0}));
}

// Within an instant the level only counts once every event is applied: a
// swap at one instant is not a peak of old + new.
TEST(Memory, LevelsAreTakenAtTheEndOfAnInstant) {
  TaskGraph g(1);
  g.add(compute(0, 0));
  g.add(compute(0, 1));
  g.add_memory(1, 0, A, Start, 64);
  g.add_memory(0, 0, C, Start, 64);
  g.add_memory(0, 0, C, Finish, -64);
  Timeline tl;
  set_times(tl, {{0, 2}, {2, 3}});
  const auto peaks = peak_memory(g, tl);
  EXPECT_EQ(peaks[0].total, 64);
  EXPECT_EQ(peaks[0].time, 0);
  const Platform p = platform({64});
  EXPECT_TRUE(memory_violations(g, tl, p).empty());
}

TEST(Memory, ViolationsReportTheFirstInstant) {
  Fixture f;
  const auto v = memory_violations(f.g, f.tl, platform({205, 400}));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].device, 0);
  EXPECT_EQ(v[0].time, 1);
  EXPECT_EQ(v[0].used, 210);
  EXPECT_EQ(v[0].capacity, 205);
  EXPECT_EQ(v[0].breakdown, (MemoryBreakdown{120, 40, 0, 0, 50}));
  EXPECT_EQ(v[1].device, 1);
  EXPECT_EQ(v[1].time, 0);
  EXPECT_EQ(v[1].used, 500);
}

TEST(Memory, CapacityZeroIsUnlimitedAndEqualIsFine) {
  Fixture f;
  EXPECT_TRUE(memory_violations(f.g, f.tl, platform({0, 0})).empty());
  EXPECT_TRUE(memory_violations(f.g, f.tl, platform({210, 500})).empty());
  const auto v = memory_violations(f.g, f.tl, platform({200, 0}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].time, 1);
}

TEST(Memory, UnknownDeviceThrows) {
  TaskGraph g(1);
  g.add(compute(0, 0));
  g.add_memory(0, 3, A, Start, 1);
  Timeline tl;
  set_times(tl, {{0, 1}});
  EXPECT_THROW(memory_trace(g, tl), std::invalid_argument);
}

// Many effects: sorting dominates, so this stays fast (O(n log n)).
TEST(Memory, ManyEffects) {
  const int devices = 4, per_device = 100000;
  TaskGraph g(devices);
  Timeline tl;
  for (int d = 0; d < devices; ++d)
    for (int i = 0; i < per_device; ++i) {
      const TaskId t = g.add(compute(d, i));
      tl.start.push_back(i);
      tl.finish.push_back(i + 2.5);  // three tasks overlap at a time
      g.add_memory(t, d, A, Start, 1 + d);
      g.add_memory(t, d, A, Finish, -(1 + d));
    }
  const auto trace = memory_trace(g, tl);
  EXPECT_EQ(trace.size(), static_cast<std::size_t>(2 * devices * per_device));
  const auto peaks = peak_memory(trace, devices);
  for (int d = 0; d < devices; ++d) {
    EXPECT_EQ(peaks[d].total, 3 * (1 + d));
    EXPECT_EQ(peaks[d].time, 2);
  }
}
