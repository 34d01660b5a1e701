#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "analysis/metrics.hpp"

using namespace pipesim;

namespace {

Platform three_devices(double capacity = 0) {
  Platform p;
  for (const char* n : {"gpu0", "gpu1", "spare"}) p.devices.push_back({n, 1e12, capacity, "gpu"});
  return p;
}

// Two stages, four micro-batches, one iteration:
//   F s0 mb m on gpu0 over [m, m+1]
//   T 0->1 mb m over [m+1, m+2.5] (overlapping), on link l0, and on l1 for even m
//   F s1 mb m on gpu1 over [m+2.5, m+3.5]
// Makespan 6.5; micro-batch m completes at m + 3.5.
struct Pipeline {
  TaskGraph g{3};
  Timeline tl;
  Pipeline() {
    tl.links = {{"l0", 1e9}, {"l1", 1e9}, {"l2", 1e9}};
    for (int m = 0; m < 4; ++m) {
      Task f0;
      f0.device = 0;
      f0.stage = 0;
      f0.microbatch = m;
      const TaskId a = g.add(f0);
      push(a, m, m + 1, {});
      Task t;
      t.kind = TaskKind::Transfer;
      t.device = 0;
      t.peer = 1;
      t.amount = 100;
      t.stage = 0;
      t.microbatch = m;
      const TaskId b = g.add(t, {a});
      push(b, m + 1, m + 2.5, m % 2 == 0 ? std::vector<std::uint32_t>{0, 1} : std::vector<std::uint32_t>{0});
      Task f1 = f0;
      f1.device = 1;
      f1.stage = 1;
      g.add(f1, {b});
      push(b + 1, m + 2.5, m + 3.5, {});
    }
    tl.makespan = 6.5;
  }
  void push(TaskId, double s, double f, const std::vector<std::uint32_t>& route) {
    tl.start.push_back(s);
    tl.finish.push_back(f);
    tl.route_links.insert(tl.route_links.end(), route.begin(), route.end());
    tl.route_offsets.push_back(static_cast<std::uint32_t>(tl.route_links.size()));
  }
};

}  // namespace

TEST(Metrics, HeadlineNumbers) {
  Pipeline p;
  const Metrics m = compute_metrics(p.g, p.tl, three_devices(), 8);
  EXPECT_EQ(m.microbatches, 4);
  EXPECT_EQ(m.iterations, 1);
  EXPECT_DOUBLE_EQ(m.makespan, 6.5);
  EXPECT_DOUBLE_EQ(m.iteration_time, 6.5);
  EXPECT_DOUBLE_EQ(m.throughput, 4 * 8 / 6.5);
  // The headline: the iteration shared by its micro-batches, fill and drain included.
  EXPECT_DOUBLE_EQ(m.iteration_time_per_microbatch, 6.5 / 4);
  // Steady state: first_mb = 1, last_mb = 2: completions 4.5 and 5.5.
  EXPECT_DOUBLE_EQ(m.time_per_microbatch, 1.0);
  EXPECT_TRUE(m.completed);
  EXPECT_TRUE(m.valid);
}

TEST(Metrics, DevicesBusyIdleBubble) {
  Pipeline p;
  const Metrics m = compute_metrics(p.g, p.tl, three_devices(), 1);
  ASSERT_EQ(m.devices.size(), 3u);
  EXPECT_EQ(m.devices[0].name, "gpu0");
  EXPECT_EQ(m.devices[0].tasks, 4);  // transfers are not compute tasks
  EXPECT_DOUBLE_EQ(m.devices[0].busy_time, 4);
  EXPECT_DOUBLE_EQ(m.devices[0].idle_time, 2.5);
  EXPECT_DOUBLE_EQ(m.devices[0].bubble_fraction, 2.5 / 6.5);
  EXPECT_EQ(m.devices[1].tasks, 4);
  EXPECT_DOUBLE_EQ(m.devices[1].busy_time, 4);
  EXPECT_DOUBLE_EQ(m.devices[1].idle_time, 2.5);
  // Unused devices are listed, with no tasks and all idle.
  EXPECT_EQ(m.devices[2].name, "spare");
  EXPECT_EQ(m.devices[2].tasks, 0);
  EXPECT_EQ(m.devices[2].busy_time, 0);
  EXPECT_DOUBLE_EQ(m.devices[2].bubble_fraction, 1);
}

TEST(Metrics, LinkBusyTimeIsTheUnionOfTransfers) {
  Pipeline p;
  const Metrics m = compute_metrics(p.g, p.tl, three_devices(), 1);
  ASSERT_EQ(m.links.size(), 3u);
  EXPECT_EQ(m.links[0].name, "l0");
  EXPECT_EQ(m.links[0].bytes, 400);
  // [1,2.5] [2,3.5] [3,4.5] [4,5.5] overlap into [1,5.5].
  EXPECT_DOUBLE_EQ(m.links[0].busy_time, 4.5);
  EXPECT_DOUBLE_EQ(m.links[0].utilization, 4.5 / 6.5);
  // [1,2.5] and [3,4.5] are disjoint.
  EXPECT_EQ(m.links[1].bytes, 200);
  EXPECT_DOUBLE_EQ(m.links[1].busy_time, 3);
  EXPECT_EQ(m.links[2].bytes, 0);
  EXPECT_EQ(m.links[2].busy_time, 0);
}

TEST(Metrics, MemoryPeaksAndViolations) {
  Pipeline p;
  p.g.add_static_memory(0, MemoryCategory::Weights, 1000);
  p.g.add_memory(0, 0, MemoryCategory::Activations, MemoryWhen::AtFinish, 300);  // t=1
  p.g.add_memory(2, 1, MemoryCategory::Activations, MemoryWhen::AtStart, 2000);  // t=2.5
  Metrics m = compute_metrics(p.g, p.tl, three_devices(1500), 1);
  EXPECT_EQ(m.devices[0].peak.total, 1300);
  EXPECT_EQ(m.devices[0].peak.time, 1);
  EXPECT_EQ(m.devices[0].peak.breakdown, (MemoryBreakdown{1000, 300, 0, 0, 0}));
  ASSERT_EQ(m.violations.size(), 1u);
  EXPECT_EQ(m.violations[0].device, 1);
  EXPECT_EQ(m.violations[0].time, 2.5);
  EXPECT_EQ(m.violations[0].used, 2000);
  EXPECT_FALSE(m.valid);
  EXPECT_TRUE(m.completed);
}

TEST(Metrics, DeadlockIsInvalid) {
  Pipeline p;
  p.tl.start[11] = p.tl.finish[11] = NAN;  // F s1 mb3 never ran
  p.tl.blocked = {11};
  p.tl.deadlock = "circular wait";
  const Metrics m = compute_metrics(p.g, p.tl, three_devices(), 1);
  EXPECT_FALSE(m.completed);
  EXPECT_FALSE(m.valid);
  EXPECT_EQ(m.blocked_tasks, 1u);
  EXPECT_EQ(m.deadlock, "circular wait");
  EXPECT_EQ(m.devices[1].tasks, 4);
  EXPECT_DOUBLE_EQ(m.devices[1].busy_time, 3);
}

TEST(Metrics, SteadyTimePerMicrobatch) {
  // Two iterations of 8 micro-batches; one task each, finishing at
  // 10*it + f[m]. Iteration 1's range 2..5 spans 9 s over 3 micro-batches.
  const std::vector<double> f = {1, 2, 4, 5, 9, 13, 14, 16};
  TaskGraph g(1);
  Timeline tl;
  for (int it = 0; it < 2; ++it)
    for (int m = 0; m < 8; ++m) {
      Task t;
      t.device = 0;
      t.microbatch = m;
      t.iteration = it;
      g.add(t);
      tl.start.push_back(20 * it + f[m] - 0.5);
      tl.finish.push_back(20 * it + f[m]);
    }
  tl.makespan = 36;
  EXPECT_DOUBLE_EQ(steady_time_per_microbatch(g, tl, 1, 2, 5), 3);
  EXPECT_DOUBLE_EQ(steady_time_per_microbatch(g, tl, 0, 0, 7), 15.0 / 7);
  EXPECT_TRUE(std::isnan(steady_time_per_microbatch(g, tl, 2, 0, 7)));
  EXPECT_THROW(steady_time_per_microbatch(g, tl, 0, 3, 3), std::invalid_argument);

  Platform p;
  p.devices.push_back({"gpu0", 1e12, 0, "gpu"});
  const Metrics m = compute_metrics(g, tl, p, 2);
  EXPECT_EQ(m.iterations, 2);
  EXPECT_EQ(m.microbatches, 8);
  EXPECT_DOUBLE_EQ(m.iteration_time, 18);
  EXPECT_DOUBLE_EQ(m.iteration_time_per_microbatch, 18.0 / 8);
  EXPECT_DOUBLE_EQ(m.time_per_microbatch, 3);  // last iteration, 2..5
  EXPECT_DOUBLE_EQ(m.throughput, 8 * 2 * 2 / 36.0);
}

TEST(Metrics, SingleMicrobatchFallsBackToIterationTime) {
  TaskGraph g(1);
  Task t;
  t.device = 0;
  t.microbatch = 0;
  g.add(t);
  Timeline tl;
  tl.start = {0};
  tl.finish = {3};
  tl.makespan = 3;
  Platform p;
  p.devices.push_back({"gpu0", 1e12, 0, "gpu"});
  const Metrics m = compute_metrics(g, tl, p, 1);
  EXPECT_EQ(m.microbatches, 1);
  EXPECT_DOUBLE_EQ(m.time_per_microbatch, 3);
  EXPECT_DOUBLE_EQ(m.iteration_time_per_microbatch, 3);
}

namespace {

// The busy time compute_metrics gives one device whose tasks ran over these
// intervals, listed in this order.
double busy_time(const std::vector<std::pair<double, double>>& intervals) {
  TaskGraph g(1);
  Timeline tl;
  for (const auto& [s, f] : intervals) {
    Task t;
    t.device = 0;
    g.add(t);
    tl.start.push_back(s);
    tl.finish.push_back(f);
    tl.makespan = std::max(tl.makespan, f);
  }
  Platform p;
  p.devices.push_back({"gpu0", 1e12, 0, "gpu"});
  return compute_metrics(g, tl, p, 1).devices[0].busy_time;
}

}  // namespace

// Busy time is the union of intervals whether a device's tasks come in start
// order (merged as they come) or not (kept and sorted): the same union here
// listed both ways.
TEST(Metrics, BusyTimeIsTheUnionWhetherTasksComeInStartOrderOrNot) {
  const std::vector<std::pair<double, double>> in_order = {{0, 2}, {1, 3}, {1, 1.5}, {5, 6}, {6, 7}, {9, 9.5}};
  std::vector<std::pair<double, double>> shuffled = {{9, 9.5}, {1, 1.5}, {6, 7}, {0, 2}, {5, 6}, {1, 3}};
  for (const auto& intervals : {in_order, shuffled}) EXPECT_DOUBLE_EQ(busy_time(intervals), 3 + 2 + 0.5);
}

// Beyond what the reorder buffer mends: 3000 intervals in reverse start
// order (disjoint, 1 s each, 1 s apart), kept and sorted.
TEST(Metrics, BusyTimeOfTasksFarOutOfStartOrder) {
  std::vector<std::pair<double, double>> reversed;
  for (int i = 2999; i >= 0; --i) reversed.push_back({2.0 * i, 2.0 * i + 1});
  EXPECT_DOUBLE_EQ(busy_time(reversed), 3000);
}

// Random intervals (nested, touching, overlapping) listed nearly in start
// order (local shuffles), as two interleaved sorted streams, or at random:
// the busy time equals the sorted union to the bit in every case.
TEST(Metrics, BusyTimeEqualsTheSortedUnionToTheBit) {
  std::mt19937 rng(3);
  for (int round = 0; round < 30; ++round) {
    std::vector<std::pair<double, double>> intervals;
    for (int i = 0; i < 2000; ++i) {
      const double s = (rng() % 40000) * 0.25;
      intervals.push_back({s, s + (rng() % 12) * 0.5});
    }
    std::sort(intervals.begin(), intervals.end());
    if (round % 3 == 0) {  // local shuffles
      for (std::size_t i = 0; i + 50 < intervals.size(); i += 50)
        std::shuffle(intervals.begin() + i, intervals.begin() + i + 50, rng);
    } else if (round % 3 == 1) {  // two sorted streams, interleaved
      std::vector<std::pair<double, double>> a, b, mixed;
      for (std::size_t i = 0; i < intervals.size(); ++i) (i % 2 ? a : b).push_back(intervals[i]);
      std::size_t x = 0, y = 0;
      while (x < a.size() || y < b.size())
        mixed.push_back((y == b.size() || (x < a.size() && rng() % 2)) ? a[x++] : b[y++]);
      intervals = mixed;
    } else {
      std::shuffle(intervals.begin(), intervals.end(), rng);
    }
    std::vector<std::pair<double, double>> sorted = intervals;
    std::sort(sorted.begin(), sorted.end());
    double want = 0, begin = sorted[0].first, end = sorted[0].second;
    for (const auto& [s, f] : sorted) {
      if (s <= end) {
        end = std::max(end, f);
        continue;
      }
      want += end - begin;
      begin = s;
      end = f;
    }
    want += end - begin;
    EXPECT_EQ(busy_time(intervals), want) << "round " << round;
  }
}
