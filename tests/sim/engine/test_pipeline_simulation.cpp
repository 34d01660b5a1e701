// Whole pipelines simulated on SimGrid, checked against closed forms and
// against the exact period of the schedule's timed event graph.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "schedules/flush/flush_sequences.hpp"
#include "schedules/registry.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/exact_period.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

constexpr double kF = 1.0, kB = 2.0;  // seconds on the 1 Tf reference device

// P uniform layers, one per stage on devices gpu0..gpu(P-1).
Workload uniform_chain(const std::string& schedule, int stages, int microbatches, double activation) {
  Workload w;
  w.file = "uniform.yaml";
  w.schedule = schedule;
  w.microbatches = microbatches;
  w.reference_speed = 1e12;
  w.input = activation;
  for (int l = 0; l < stages; ++l)
    w.layers.push_back({"l" + std::to_string(l), {kF, false}, {kB, false}, activation, 0});
  w.placement.automatic = true;
  w.placement.stages = stages;
  return w;
}

struct GridCase {
  std::string schedule;
  int stages;
  int microbatches;
};

std::vector<GridCase> grid() {
  std::vector<GridCase> cases;
  for (const char* schedule : {"1f1b", "gpipe"})
    for (int p : {1, 2, 3, 4, 8})
      for (int m : {1, 2, 3, 5, 8, 16}) cases.push_back({schedule, p, m});
  return cases;
}

std::string grid_name(const ::testing::TestParamInfo<GridCase>& info) {
  return info.param.schedule + "_P" + std::to_string(info.param.stages) + "_M" +
         std::to_string(info.param.microbatches);
}

// Free transfers (zero-size activations): exact makespan and bubbles.
class UniformFreeTransfers : public ::testing::TestWithParam<GridCase> {};

TEST_P(UniformFreeTransfers, MakespanAndBubbleAreTheClosedForms) {
  const auto [schedule, p, m] = GetParam();
  Simulation sim(testing::complete_platform(p));
  const Workload w = uniform_chain(schedule, p, m, 0);
  const TaskGraph g = generate(w, sim.platform()).graph;
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const Metrics metrics = compute_metrics(g, tl, sim.platform(), 1);
  // Both flush schedules take (M + P - 1)(F + B) on uniform stages.
  EXPECT_DOUBLE_EQ(metrics.makespan, (m + p - 1) * (kF + kB));
  for (int d = 0; d < p; ++d) {
    EXPECT_DOUBLE_EQ(metrics.devices[d].busy_time, m * (kF + kB));
    EXPECT_NEAR(metrics.devices[d].bubble_fraction, double(p - 1) / (m + p - 1), 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Grid, UniformFreeTransfers, ::testing::ValuesIn(grid()), grid_name);

// Peak stashed activations per stage: min(P - s, M) under 1F1B, M under GPipe.
class StashedActivations : public ::testing::TestWithParam<GridCase> {};

TEST_P(StashedActivations, PeakCountPerStage) {
  const auto [schedule, p, m] = GetParam();
  const double activation = 1024;  // one KiB over 1 PB/s: transfers take 1e-12 s
  Simulation sim(testing::complete_platform(p, "1PBps"));
  const Workload w = uniform_chain(schedule, p, m, activation);
  const TaskGraph g = generate(w, sim.platform()).graph;
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const auto peaks = peak_memory(g, tl);
  const int activations = static_cast<int>(MemoryCategory::Activations);
  for (int s = 0; s < p; ++s) {
    const int expected = schedule == "1f1b" ? std::min(p - s, m) : m;
    EXPECT_DOUBLE_EQ(peaks[s].category_peaks[activations] / activation, expected) << "stage " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Grid, StashedActivations, ::testing::ValuesIn(grid()), grid_name);

TEST(PipelineSimulation, OneFOneBRunsPyTorchsOrder) {
  Simulation sim(testing::complete_platform(4));
  const TaskGraph g = generate(uniform_chain("1f1b", 4, 8, 0), sim.platform()).graph;
  const Timeline tl = sim.run(g);
  std::map<int, std::vector<std::pair<double, std::string>>> executed;
  for (TaskId t = 0; t < g.size(); ++t) {
    const Task& task = g.task(t);
    if (is_transfer(task.kind)) continue;
    executed[task.device].push_back(
        {tl.start[t], (task.kind == TaskKind::Forward ? "F" : "B") + std::to_string(task.microbatch)});
  }
  auto sequence = [&](int device) {
    std::sort(executed[device].begin(), executed[device].end());
    std::string s;
    for (const auto& [start, name] : executed[device]) s += (s.empty() ? "" : " ") + name;
    return s;
  };
  EXPECT_EQ(sequence(0), "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7");
  EXPECT_EQ(sequence(1), "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 B6 B7");
  EXPECT_EQ(sequence(2), "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7");
  EXPECT_EQ(sequence(3), "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7");
}

// Random stage costs and real transfers on dedicated split-duplex links: the
// simulated steady state equals the maximum cycle ratio of the event graph.
class ExactPeriodMatches : public ::testing::TestWithParam<int> {};

TEST_P(ExactPeriodMatches, SimulatedSteadyStateEqualsMaximumCycleRatio) {
  const int seed = GetParam();
  std::mt19937 rng(seed);
  const int p = 2 + seed % 4;
  std::uniform_real_distribution<double> forward(0.5, 2.0), backward(1.0, 3.0), bytes(0.05e9, 0.4e9);
  Simulation sim(testing::complete_platform(p, "1GBps", "1ms"));
  Workload w = uniform_chain("1f1b", p, 240, 0);
  w.placement.automatic = false;
  for (int l = 0; l < p; ++l) {
    w.layers[l] = {"l" + std::to_string(l), {forward(rng), false}, {backward(rng), false}, bytes(rng), 0};
    w.placement.stage_layers.push_back({l, l});
    w.placement.stage_hosts.push_back("gpu" + std::to_string(l));
  }
  const TaskGraph g = generate(w, sim.platform()).graph;
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const ExactPeriod exact = exact_period(one_f_one_b_event_graph(make_stage_plan(w, sim.platform()), sim.platform()));
  // 120 micro-batches in the middle: a multiple of every cycle length up to 6.
  const double simulated = steady_time_per_microbatch(g, tl, 0, 60, 180);
  EXPECT_NEAR(simulated / exact.period, 1.0, 1e-6) << "P=" << p << " exact " << exact.period;
}

INSTANTIATE_TEST_SUITE_P(RandomCosts, ExactPeriodMatches, ::testing::Range(0, 12));

}  // namespace
}  // namespace pipesim
