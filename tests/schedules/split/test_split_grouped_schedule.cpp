// The `split` schedule with grouping (seed 004 §V-VI): q groups of n
// heterogeneous devices, each one worker running on every resource of its
// devices. The groups are split_grouping's, the simulated period is eq. 1's,
// and a group's memory is on its first device. One process per test
// (SimGrid runs once per process).
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/metrics.hpp"
#include "schedules/registry.hpp"
#include "schedules/split/split_grouping.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/schedules/split/split_test_support.hpp"

namespace pipesim {
namespace {

using testing::random_split_chain;
using testing::split_mixed_platform_xml;
using testing::SplitResourceSpeeds;
using testing::write_file;

// n devices of three kinds with random speeds: a fast laptop (CPU + GPU),
// a slow laptop (CPU + GPU), a board (CPU only); backward 0.3-1.5x forward.
std::vector<SplitResourceSpeeds> random_devices(std::uint64_t seed, int n) {
  split::testing::SplitRng rng(seed ^ 0x9a0f);
  std::vector<SplitResourceSpeeds> out;
  for (int i = 0; i < n; ++i) {
    const int kind = rng.integer(0, 2);
    const double cpu = kind == 2 ? rng.uniform(1e10, 3e10) : rng.uniform(1e11, 3e11);
    const double gpu = kind == 0 ? rng.uniform(1e12, 2e12) : kind == 1 ? rng.uniform(4e11, 9e11) : 0;
    out.push_back({cpu, cpu * rng.uniform(0.3, 1.5), gpu, gpu * rng.uniform(0.3, 1.5)});
  }
  return out;
}

// What split_grouping is given for the same devices and the whole chain.
split::GroupingProblem grouping_problem(const std::vector<SplitResourceSpeeds>& devices, const Workload& w, int q) {
  split::GroupingProblem pb;
  pb.workers = q;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    split::Device d{"d" + std::to_string(i), {{"cpu", devices[i].cpu_forward, devices[i].cpu_backward}}};
    if (devices[i].gpu_forward > 0) d.resources.push_back({"gpu", devices[i].gpu_forward, devices[i].gpu_backward});
    pb.devices.push_back(d);
  }
  for (const Layer& l : w.layers) pb.forward_flops += l.forward.value, pb.backward_flops += l.backward.value;
  return pb;
}

class GroupedPeriod : public ::testing::TestWithParam<int> {};

// 6-9 random devices in 3 groups by Algorithm 2, a random chain, 240
// micro-batches, compute-bound: the spacing of completions is eq. 1's
// period to 1e-6; devices other than a group's first hold no memory.
TEST_P(GroupedPeriod, SimulatedPeriodIsEquationOne) {
  const std::uint64_t seed = static_cast<std::uint64_t>(GetParam());
  const int n = 6 + GetParam() % 4;
  Workload w = random_split_chain(seed + 100, 240);
  w.schedule_params = {{"grouping", "algorithm2"}, {"workers", "3"}};
  Simulation sim(write_file("grouped.xml", split_mixed_platform_xml(random_devices(seed, n))));
  const GeneratedSchedule schedule = generate(w, sim.platform());
  ASSERT_TRUE(schedule.split);
  const SplitPlan& plan = *schedule.split;
  ASSERT_EQ(plan.groups.size(), 3u);
  double compute = 0;
  for (const SplitStagePlan& s : plan.stages) compute = std::max({compute, s.forward_seconds, s.backward_seconds});
  ASSERT_EQ(plan.period, compute) << "communication should not be the bottleneck here";
  const Timeline timeline = sim.run(schedule.graph);
  ASSERT_TRUE(timeline.completed()) << timeline.deadlock;
  const Metrics m = compute_metrics(schedule.graph, timeline, sim.platform(), 1);
  EXPECT_NEAR(m.time_per_microbatch / plan.period, 1.0, 1e-6)
      << "simulated " << m.time_per_microbatch << " s, eq. 1 " << plan.period << " s, " << w.layers.size()
      << " layers on " << n << " devices";
  std::vector<int> seen;
  for (const SplitStagePlan& s : plan.stages) {
    EXPECT_EQ(s.devices, plan.groups[&s - plan.stages.data()]);
    EXPECT_EQ(s.device, s.devices[0]);
    EXPECT_GT(m.devices[s.device].peak.total, 0);
    for (std::size_t i = 1; i < s.devices.size(); ++i) {
      EXPECT_EQ(m.devices[s.devices[i]].peak.total, 0) << "memory is counted on the group's first device";
      EXPECT_GT(m.devices[s.devices[i]].busy_time, 0) << "every device of a group computes";
    }
  }
  for (const auto& g : plan.groups) seen.insert(seen.end(), g.begin(), g.end());
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) EXPECT_EQ(seen[i], i);
}

INSTANTIATE_TEST_SUITE_P(RandomDevices, GroupedPeriod, ::testing::Range(0, 4));

// Each method's groups are split_grouping's for the same devices, strongest first;
// every resource of a type in a group gets the same beta; the plan's
// grouping period is the function's.
TEST(SplitGroupedSchedule, GroupsAreTheGroupingFunctions) {
  const std::vector<SplitResourceSpeeds> devices = random_devices(11, 9);
  Workload w = random_split_chain(5, 16);
  Simulation sim(write_file("grouped.xml", split_mixed_platform_xml(devices)));
  const split::GroupingProblem pb = grouping_problem(devices, w, 4);
  for (const auto& [name, method] : {std::pair{"algorithm2", split::GroupingMethod::LocalSearch},
                                     std::pair{"brute-force", split::GroupingMethod::BruteForce},
                                     std::pair{"sorting", split::GroupingMethod::Sorting}}) {
    w.schedule_params = {{"grouping", name}, {"workers", "4"}};
    const GeneratedSchedule schedule = generate(w, sim.platform());
    const split::Grouping expected = split::group_devices(pb, method);
    EXPECT_EQ(schedule.split->grouping, name);
    // The same groups, strongest first (the method's order among equals).
    std::vector<std::vector<int>> sorted = expected.groups;
    std::stable_sort(sorted.begin(), sorted.end(), [&](const auto& x, const auto& y) {
      return split::grouping_period(pb, {x}) < split::grouping_period(pb, {y});
    });
    EXPECT_EQ(schedule.split->groups, sorted) << name;
    EXPECT_NEAR(schedule.split->grouping_period, expected.period, 1e-12 * expected.period) << name;
    for (const SplitStagePlan& s : schedule.split->stages) {
      ASSERT_EQ(s.beta.size(), s.devices.size());
      for (std::size_t i = 0; i < s.devices.size(); ++i) {
        EXPECT_EQ(s.beta[i][0], s.beta[0][0]) << "one beta per type: cpu";
        for (std::size_t k = 0; k < s.devices.size(); ++k) {
          if (s.beta[i].size() > 1 && s.beta[k].size() > 1) {
            EXPECT_EQ(s.beta[i][1], s.beta[k][1]) << "one beta per type: gpu";
          }
        }
      }
    }
  }
  // Brute force is the optimum of the grouping objective.
  w.schedule_params = {{"grouping", "brute-force"}, {"workers", "4"}};
  const double best = generate(w, sim.platform()).split->grouping_period;
  for (const char* other : {"algorithm2", "sorting"}) {
    w.schedule_params = {{"grouping", other}, {"workers", "4"}};
    EXPECT_GE(generate(w, sim.platform()).split->grouping_period, best * (1 - 1e-12)) << other;
  }
}

}  // namespace
}  // namespace pipesim
