// Seed 000 §7's PipeDream baseline: the planner (DP under PipeDream's memory
// estimate) against brute force, the configuration grid, and eager runs
// measured in forked children against the engine-free steady state.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "studies/forked_run.hpp"
#include "studies/study.hpp"
#include "studies/study_runs.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "schedules/pipedream/pipedream_baseline.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/fixtures.hpp"

namespace pipesim {
namespace {

// P devices of 1 Tf/s with 1 GB/s links, as Platform values (no SimGrid).
Platform platform(int P, double bandwidth = 1e9) {
  Platform p;
  for (int i = 0; i < P; ++i) p.devices.push_back({"gpu" + std::to_string(i), 1e12, 1e12, "gpu"});
  p.paths.assign(P * P, Path{});
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j)
      if (i != j) p.paths[i * P + j] = {true, 0, bandwidth, 1};
  return p;
}

Workload chain(const std::vector<double>& seconds, const std::vector<double>& activation,
               const std::vector<double>& weights) {
  Workload w;
  w.microbatches = 8;
  w.reference_speed = 1e12;
  for (std::size_t l = 0; l < seconds.size(); ++l)
    w.layers.push_back(
        {"l" + std::to_string(l), {seconds[l] / 3, false}, {2 * seconds[l] / 3, false}, activation[l], weights[l]});
  w.input = 1;
  return w;
}

TEST(PipeDreamBaseline, MemoryEstimateIsPipeDreams) {
  const Workload w = chain({1, 1, 1}, {10, 20, 30}, {1, 2, 3});
  // (sum a_l + sum W_l) x (P - 1 - s)
  EXPECT_DOUBLE_EQ(pipedream_memory_estimate(w, 0, 1, 0, 4), (10 + 20 + 1 + 2) * 3.0);
  EXPECT_DOUBLE_EQ(pipedream_memory_estimate(w, 2, 2, 1, 4), (30 + 3) * 2.0);
  EXPECT_DOUBLE_EQ(pipedream_memory_estimate(w, 2, 2, 3, 4), 0);  // the last of P stages: nothing
}

TEST(PipeDreamBaseline, PlannerBalancesThenObeysTheTarget) {
  // 4 layers of 1, 1, 1, 3 s on 2 devices, negligible transfers.
  const Workload w = chain({1, 1, 1, 3}, {100, 100, 100, 100}, {0, 0, 0, 0});
  const Platform p = platform(2, 1e15);
  const PipeDreamPlan free = pipedream_plan(w, p, 0);
  ASSERT_TRUE(free.feasible);
  EXPECT_EQ(free.allocation, (Allocation{0, 0, 0, 1}));
  EXPECT_NEAR(free.bottleneck, 3, 1e-9);
  EXPECT_EQ(free.estimate, (std::vector<double>{300, 0}));
  // Stage 0's estimate is (its activations) x 1: a target of 250 allows two layers there.
  const PipeDreamPlan tight = pipedream_plan(w, p, 250);
  ASSERT_TRUE(tight.feasible);
  EXPECT_EQ(tight.allocation, (Allocation{0, 0, 1, 1}));
  EXPECT_NEAR(tight.bottleneck, 4, 1e-9);
  EXPECT_FALSE(pipedream_plan(w, p, 50).feasible);  // stage 0 needs at least one layer: 100
  const auto [low, high] = memory_target_range(w, p);
  EXPECT_DOUBLE_EQ(low, 100);
  EXPECT_DOUBLE_EQ(high, 300);
}

TEST(PipeDreamBaseline, PlannerIsOptimalAmongContiguousPartitions) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.1, 1.0);
  for (int trial = 0; trial < 40; ++trial) {
    const int L = 3 + trial % 6, P = 2 + trial % 3;
    std::vector<double> s(L), a(L), wt(L);
    for (int l = 0; l < L; ++l) s[l] = u(rng), a[l] = 1e8 * u(rng), wt[l] = 1e8 * u(rng);
    const Workload w = chain(s, a, wt);
    const Platform p = platform(P, 1e9);
    const double target = (trial % 2) ? 0 : 4e8 * u(rng);
    // Brute force: every contiguous allocation on devices 0..S-1, in chain order.
    double best = std::numeric_limits<double>::infinity();
    for (const Allocation& alloc : enumerate_allocations(L, P, true)) {
      double load = 0;
      bool fits = true;
      for (int first = 0; first < L;) {
        int last = first;
        while (last + 1 < L && alloc[last + 1] == alloc[first]) ++last;
        const int st = alloc[first];
        double sec = 0;
        for (int l = first; l <= last; ++l) sec += s[l];
        load = std::max(load, sec);
        if (last + 1 < L) load = std::max(load, 2 * a[last] / 1e9);
        fits = fits && (target <= 0 || pipedream_memory_estimate(w, first, last, st, P) <= target);
        first = last + 1;
      }
      if (fits) best = std::min(best, load);
    }
    const PipeDreamPlan plan = pipedream_plan(w, p, target);
    ASSERT_EQ(plan.feasible, std::isfinite(best)) << trial;
    if (plan.feasible) {
      EXPECT_NEAR(plan.bottleneck, best, 1e-9 * best) << trial;
      for (double e : plan.estimate) EXPECT_TRUE(target <= 0 || e <= target);
    }
  }
}

TEST(PipeDreamBaseline, ConfigurationsAreDistinctAndDescribed) {
  const Workload w = chain({1, 1, 1, 3, 2, 2}, {100, 300, 100, 200, 100, 50}, {10, 10, 10, 10, 10, 10});
  const Platform p = platform(3, 1e15);
  BaselineOptions options;
  options.grid = 16;
  const std::vector<BaselineConfig> configs = pipedream_configurations(w, p, options);
  ASSERT_FALSE(configs.empty());
  for (std::size_t i = 0; i < configs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_FALSE(configs[i].plan.allocation == configs[j].plan.allocation && configs[i].noam == configs[j].noam);
  for (const BaselineConfig& c : configs) {
    EXPECT_GE(c.noam, 1);
    EXPECT_LE(c.noam, 3);
    for (double e : c.plan.estimate) EXPECT_LE(e, c.memory_target * (1 + 1e-12));
  }
  // The unconstrained plan is among them, with every NOAM.
  const PipeDreamPlan free = pipedream_plan(w, p, 0);
  int with_free = 0;
  for (const BaselineConfig& c : configs) with_free += c.plan.allocation == free.allocation;
  EXPECT_EQ(with_free, 3);
  BaselineConfig c{1, 2, free};
  EXPECT_EQ(describe(c), "noam=2 stages=0-2|3|4-5");
}

// The eager run measured in a forked child (Simulation loaded once, in the
// parent) has the period of the engine-free steady state, and memory grows with NOAM.
TEST(PipeDreamBaseline, ForkedEagerRunsMatchTheSteadyState) {
  const std::string file = testing::complete_platform(3, "1GBps", "0s", "1Tf", "1TiB");
  Simulation simulation(file);
  const Platform& p = simulation.platform();
  const Workload w = chain({0.010, 0.020, 0.010, 0.030, 0.020}, {2e6, 1e6, 3e6, 1e6, 1e6}, {1e6, 1e6, 1e6, 1e6, 1e6});
  const PipeDreamPlan plan = pipedream_plan(w, p, 0);
  ASSERT_TRUE(plan.feasible);
  double previous_peak = 0;
  for (int noam = 1; noam <= 3; ++noam) {
    const BaselineConfig config{0, noam, plan};
    const TaskGraph graph = baseline_graph(config, w, p, 500);
    const RunMeasure m = decode(run_forked([&] { return encode(measure_run(graph, simulation.run(graph), p)); }));
    ASSERT_TRUE(m.completed);
    ASSERT_EQ(m.device_peaks.size(), 3u);
    const Pattern steady = pipedream_pattern(plan.allocation, noam, w, p);
    EXPECT_NEAR(m.period, steady.period, 1e-9 * steady.period) << "noam " << noam;
    EXPECT_GT(m.peak(), previous_peak) << "noam " << noam;
    previous_peak = m.peak();
  }
  // NOAM = 1 runs one micro-batch at a time: the period is the whole forward + backward + transfers.
  const RunMeasure one = decode(run_forked([&] {
    const TaskGraph g = baseline_graph({0, 1, plan}, w, p, 500);
    return encode(measure_run(g, simulation.run(g), p));
  }));
  double total = 0.09;
  for (std::size_t s = 0; s + 1 < plan.last_layer.size(); ++s)
    total += 2 * w.layers[plan.last_layer[s]].activation / 1e9;
  EXPECT_NEAR(one.period, total, 1e-9);
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// The study's runs take the analytic engine in process where it is exact and
// SimGrid in a forked child otherwise: the points are the same either way
// (cpu/optim:Full changes no time here but rules the analytic engine out).
TEST(PipeDreamBaseline, PointsAreTheSameFromTheAnalyticEngineAndFromSimGrid) {
  const std::string file = testing::complete_platform(3, "1GBps", "0s", "1Tf", "1TiB");
  const Workload w = chain({0.010, 0.020, 0.010, 0.030, 0.020}, {2e6, 1e6, 3e6, 1e6, 1e6}, {1e6, 1e6, 1e6, 1e6, 1e6});
  StudySettings settings;
  settings.microbatches = 40;
  settings.ilp = false;
  auto points = [&](const std::vector<std::string>& config, bool analytic) {
    Simulation simulation(file, config);
    TaskGraph probe(3);
    Task task;
    task.device = 0;
    probe.add(task);
    EXPECT_EQ(simulation.run_analytic(probe).timeline.has_value(), analytic);
    return pipedream_points(simulation, w, {1e9}, settings);
  };
  const std::vector<StudyPoint> analytic = points({}, true);
  const std::vector<StudyPoint> simgrid = points({"cpu/optim:Full"}, false);
  ASSERT_EQ(analytic.size(), simgrid.size());
  ASSERT_FALSE(analytic.empty());
  for (std::size_t i = 0; i < analytic.size(); ++i) {
    EXPECT_EQ(analytic[i].status, simgrid[i].status);
    EXPECT_EQ(analytic[i].config, simgrid[i].config);
    EXPECT_NEAR(analytic[i].period, simgrid[i].period, 1e-9 * simgrid[i].period) << analytic[i].config;
    EXPECT_EQ(analytic[i].peak_memory, simgrid[i].peak_memory) << analytic[i].config;
  }
}

}  // namespace
}  // namespace pipesim
