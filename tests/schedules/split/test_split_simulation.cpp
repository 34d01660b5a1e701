// The `split` schedule (seed 004) simulated by SimGrid: its steady-state
// period is eq. 1's max{f, g, h}, its shares are Theorem 1's when the
// ratios are common, and weight stashing holds what docs/mobile.md says.
// One process per test (SimGrid runs once per process).
#include <cmath>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "analysis/metrics.hpp"
#include "analysis/worker_metrics.hpp"
#include "schedules/registry.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/schedules/split/split_test_support.hpp"

namespace pipesim {
namespace {

using testing::random_split_chain;
using testing::split_platform_xml;
using testing::SplitResourceSpeeds;
using testing::write_file;

// Speeds of one random homogeneous worker: the GPU 2-10x the CPU forward,
// backward speeds 0.3-1.5x forward, independently (ratios differ).
SplitResourceSpeeds random_speeds(std::uint64_t seed) {
  split::testing::SplitRng rng(seed ^ 0x5eed);
  const double cpu = rng.uniform(5e10, 2e11), gpu = cpu * rng.uniform(2, 10);
  return {cpu, cpu * rng.uniform(0.3, 1.5), gpu, gpu * rng.uniform(0.3, 1.5)};
}

class SplitPeriod : public ::testing::TestWithParam<int> {};

// Homogeneous workers, 240 micro-batches: the spacing of completions in the
// middle half is eq. 1's period to 1e-6 (compute-bound: 1 TB/s links).
TEST_P(SplitPeriod, SimulatedPeriodIsEquationOne) {
  const std::uint64_t seed = static_cast<std::uint64_t>(GetParam());
  const Workload w = random_split_chain(seed, 240);
  const int devices = 2 + GetParam() % 3;
  Simulation sim(write_file("split.xml", split_platform_xml(devices, random_speeds(seed))));
  const GeneratedSchedule schedule = generate(w, sim.platform());
  ASSERT_TRUE(schedule.split);
  const Timeline timeline = sim.run(schedule.graph);
  ASSERT_TRUE(timeline.completed()) << timeline.deadlock;
  const Metrics m = compute_metrics(schedule.graph, timeline, sim.platform(), 1);
  const double period = schedule.split->period;
  double compute = 0;
  for (const SplitStagePlan& s : schedule.split->stages)
    compute = std::max({compute, s.forward_seconds, s.backward_seconds});
  ASSERT_EQ(period, compute) << "communication should not be the bottleneck here";
  EXPECT_NEAR(m.time_per_microbatch / period, 1.0, 1e-6)
      << "simulated " << m.time_per_microbatch << " s, eq. 1 " << period << " s, " << w.layers.size() << " layers on "
      << devices << " workers";
  // Every resource of the slowest stage is busy all the time in steady state:
  // its forward and backward shares add up to the whole resource.
  for (const DeviceMetrics& d : m.devices)
    for (const ResourceMetrics& r : d.resources) EXPECT_LE(r.utilization, 1 + 1e-9);
}

INSTANTIATE_TEST_SUITE_P(RandomChains, SplitPeriod, ::testing::Range(0, 8));

// With a common backward/forward speed ratio on every resource, the shares
// reported are Theorem 1's c / (c + 1), c = f / g of the stage.
TEST(SplitSimulation, BetaIsTheorem1WhenRatiosAreCommon) {
  const Workload w = random_split_chain(42, 16);
  const SplitResourceSpeeds speeds{1e11, 0.5e11, 8e11, 4e11};  // backward at half speed on both
  Simulation sim(write_file("split.xml", split_platform_xml(3, speeds)));
  const GeneratedSchedule schedule = generate(w, sim.platform());
  ASSERT_TRUE(schedule.split);
  int first = 0;
  for (const SplitStagePlan& s : schedule.split->stages) {
    double forward = 0, backward = 0;
    for (int l = s.first_layer; l <= s.last_layer; ++l)
      forward += w.layers[l].forward.value, backward += w.layers[l].backward.value;
    const double c = (forward / 1e11) / (backward / 0.5e11);  // f / g on any one resource
    ASSERT_EQ(s.beta.size(), 1u);
    ASSERT_EQ(s.beta[0].size(), 2u);
    for (double beta : s.beta[0]) EXPECT_NEAR(beta, c / (c + 1), 1e-12);
    EXPECT_EQ(s.first_layer, first);
    first = s.last_layer + 1;
  }
  const Timeline timeline = sim.run(schedule.graph);
  EXPECT_TRUE(timeline.completed());
}

// docs/mobile.md's memory: per stage, in_flight weight versions plus one
// gradient buffer (static), and at most in_flight micro-batches' activations.
TEST(SplitSimulation, WeightStashingMemoryIsInFlightVersions) {
  Workload w = random_split_chain(7, 40);
  w.schedule_params["in_flight"] = "2";
  Simulation sim(write_file("split.xml", split_platform_xml(4, random_speeds(7))));
  const GeneratedSchedule schedule = generate(w, sim.platform());
  const Timeline timeline = sim.run(schedule.graph);
  ASSERT_TRUE(timeline.completed()) << timeline.deadlock;
  const Metrics m = compute_metrics(schedule.graph, timeline, sim.platform(), 1);
  for (const SplitStagePlan& s : schedule.split->stages) {
    EXPECT_EQ(s.in_flight, 2);
    double weights = 0, stash = 0;
    for (int l = s.first_layer; l <= s.last_layer; ++l) {
      weights += w.layers[l].weights;
      stash += l == 0 ? w.input : w.layers[l - 1].activation;
    }
    const auto& peaks = m.devices[s.device].peak.category_peaks;
    EXPECT_NEAR(peaks[static_cast<int>(MemoryCategory::Weights)], 2 * weights, 1e-6 * weights + 1e-9);
    EXPECT_NEAR(peaks[static_cast<int>(MemoryCategory::Gradients)], weights, 1e-6 * weights + 1e-9);
    EXPECT_NEAR(peaks[static_cast<int>(MemoryCategory::Activations)], 2 * stash, 1e-6 * stash + 1e-9)
        << "stage on " << s.device;
  }
}

// A heterogeneous pair (mobile-laptops-wifi.xml): every device and resource
// gets its beta, and the optimal allocation is never slower than beta = 0.5.
TEST(SplitSimulation, ShippedLaptopsRunWithTheirResources) {
  Simulation sim(std::string(PIPESIM_SOURCE_DIR) + "/platforms/mobile-laptops-wifi.xml");
  const Platform& p = sim.platform();
  ASSERT_EQ(p.size(), 2);
  ASSERT_EQ(p.devices[0].resources.size(), 2u);
  EXPECT_EQ(p.devices[0].resources[1].type, "gpu");
  Workload w = random_split_chain(3, 32);
  const GeneratedSchedule optimal = generate(w, p);
  w.schedule_params = {{"allocation", "none"}};
  const GeneratedSchedule half = generate(w, p);
  ASSERT_EQ(optimal.split->stages.size(), 2u);
  EXPECT_LE(optimal.split->period, half.split->period);
  for (double beta : half.split->stages[0].beta.at(0)) EXPECT_EQ(beta, 0.5);
  const Timeline timeline = sim.run(optimal.graph);
  ASSERT_TRUE(timeline.completed());
  // Busy time is share-weighted: per resource in the metrics, summed over
  // resources in seed 003's worker report; the device's busy is the union.
  const Metrics m = compute_metrics(optimal.graph, timeline, p, 1);
  const WorkerReport workers = compute_worker_metrics(optimal.graph, timeline, p);
  for (int d = 0; d < 2; ++d) {
    ASSERT_EQ(m.devices[d].resources.size(), 2u);
    const double cpu = m.devices[d].resources[0].busy_time, gpu = m.devices[d].resources[1].busy_time;
    EXPECT_NEAR(workers.per_worker[d].busy_time, cpu + gpu, 1e-9);
    EXPECT_LE(std::max(cpu, gpu), m.devices[d].busy_time + 1e-9);
    EXPECT_NEAR(m.devices[d].resources[0].utilization, cpu / m.makespan, 1e-12);
  }
}

}  // namespace
}  // namespace pipesim
