// The balanced contiguous partition and the stage plan built from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

#include "schedules/stages/partition.hpp"
#include "schedules/stages/partition_internal.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/input_error.hpp"
#include "tests/support/platform_table.hpp"

namespace pipesim {
namespace {

Platform make_platform(const std::vector<double>& speeds, double latency = 1e-5, double bandwidth = 1e10) {
  Platform p = testing::table_platform(static_cast<int>(speeds.size()), {1e12, 16e9, latency, bandwidth});
  for (std::size_t i = 0; i < speeds.size(); ++i) p.devices[i].speed = speeds[i];
  return p;
}

// L layers costing (1 s forward, 2 s backward) on the reference device.
Workload make_workload(int L, double activation = 1e6) {
  Workload w;
  w.file = "work.yaml";
  w.input = 3e6;
  for (int l = 0; l < L; ++l) w.layers.push_back({"l" + std::to_string(l), {1, false}, {2, false}, activation, 1e7});
  return w;
}

std::string error_of(const Workload& w, const Platform& p) {
  try {
    make_stage_plan(w, p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Partition, DynamicProgramMatchesBruteForce) {
  int cases = 0;
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> layers(1, 12);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const int L = layers(rng);
    const int P = std::uniform_int_distribution<int>(1, std::min(4, L))(rng);
    PartitionProblem pb;
    std::vector<double> work(L);
    for (double& x : work) x = 0.1 + unit(rng);
    for (int s = 0; s < P; ++s) {
      const double speed = 0.25 + 2 * unit(rng);  // heterogeneous devices
      pb.layer_seconds.emplace_back();
      for (int l = 0; l < L; ++l) pb.layer_seconds[s].push_back(work[l] / speed);
    }
    for (int s = 0; s + 1 < P; ++s) {
      pb.boundary_seconds.emplace_back();
      for (int l = 0; l < L; ++l) pb.boundary_seconds[s].push_back(3 * unit(rng) * unit(rng));
    }
    const Partition dp = partition_chain(pb);
    const Partition bf = partition_brute_force(pb);
    ASSERT_NEAR(dp.max_load, bf.max_load, 1e-9 * bf.max_load) << "seed " << seed;
    ASSERT_EQ(dp.last_layer.size(), static_cast<std::size_t>(P));
    EXPECT_EQ(dp.last_layer.back(), L - 1);
    for (int s = 1; s < P; ++s) EXPECT_LT(dp.last_layer[s - 1], dp.last_layer[s]);
    EXPECT_NEAR(partition_load(pb, dp.last_layer), dp.max_load, 1e-9 * dp.max_load);
    ++cases;
  }
  EXPECT_GE(cases, 200);
}

// PipeDream's dynamic program as it was written first, in O(P L^2): the
// reference for partition_chain's faster evaluation, ties included.
Partition quadratic_dynamic_program(const PartitionProblem& pb) {
  const int P = static_cast<int>(pb.layer_seconds.size());
  const int L = static_cast<int>(pb.layer_seconds[0].size());
  std::vector<std::vector<double>> prefix(P, std::vector<double>(L + 1, 0));
  for (int s = 0; s < P; ++s)
    for (int l = 0; l < L; ++l) prefix[s][l + 1] = prefix[s][l] + pb.layer_seconds[s][l];
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(P, std::vector<double>(L, inf));
  std::vector<std::vector<int>> from(P, std::vector<int>(L, -1));
  for (int l = 0; l < L; ++l) best[0][l] = prefix[0][l + 1];
  for (int s = 1; s < P; ++s)
    for (int l = s; l <= L - (P - s); ++l)
      for (int k = s - 1; k < l; ++k) {
        const double load =
            std::max({best[s - 1][k], pb.boundary_seconds[s - 1][k], prefix[s][l + 1] - prefix[s][k + 1]});
        if (load < best[s][l]) best[s][l] = load, from[s][l] = k;
      }
  Partition result;
  result.last_layer.assign(P, L - 1);
  for (int s = P - 1; s > 0; --s) result.last_layer[s - 1] = from[s][result.last_layer[s]];
  result.max_load = best[P - 1][L - 1];
  return result;
}

// Same partition, bit for bit, on chains full of ties: small integer costs,
// free layers, boundaries that are free or forbidding, uniform chains.
TEST(Partition, SameCutsAsTheQuadraticProgram) {
  for (unsigned seed = 1; seed <= 400; ++seed) {
    std::mt19937 rng(seed);
    const int L = std::uniform_int_distribution<int>(1, 60)(rng);
    const int P = std::uniform_int_distribution<int>(1, std::min(8, L))(rng);
    const int kind = seed % 4;  // 0: integers 0..3, 1: uniform, 2: reals, 3: integers and forbidding boundaries
    std::uniform_int_distribution<int> small(0, 3);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    PartitionProblem pb;
    std::vector<double> work(L);
    for (double& x : work) x = kind == 1 ? 1.0 : kind == 2 ? unit(rng) : small(rng);
    for (int s = 0; s < P; ++s) {
      const double speed = kind == 1 ? 1.0 : 1 + small(rng);
      pb.layer_seconds.emplace_back();
      for (int l = 0; l < L; ++l) pb.layer_seconds[s].push_back(work[l] / speed);
    }
    for (int s = 0; s + 1 < P; ++s) {
      pb.boundary_seconds.emplace_back();
      for (int l = 0; l < L; ++l)
        pb.boundary_seconds[s].push_back(kind == 3   ? (small(rng) == 0 ? 1e9 : 0)
                                         : kind == 2 ? unit(rng)
                                                     : small(rng) / 2.0);
    }
    const Partition fast = partition_chain(pb), reference = quadratic_dynamic_program(pb);
    ASSERT_EQ(fast.last_layer, reference.last_layer) << "seed " << seed;
    ASSERT_EQ(fast.max_load, reference.max_load) << "seed " << seed;
  }
}

// 300,000 layers on devices of speeds 1, 2, 2, 1 (a layer costs 1, 0.5,
// 0.5, 1 s): the balance is 50,000 / 100,000 / 100,000 / 50,000 layers at
// 50,000 s, but cutting after layer 49,999 costs 1e9 s, so stage 0 takes
// 49,999 layers and one middle stage 100,001 (50,000.5 s); the program
// cuts each stage as early as it can from the last one back.
TEST(Partition, LongChainWithAForbiddenCut) {
  const int L = 300000;
  PartitionProblem pb;
  for (double seconds : {1.0, 0.5, 0.5, 1.0}) pb.layer_seconds.emplace_back(L, seconds);
  pb.boundary_seconds.assign(3, std::vector<double>(L, 0.0));
  pb.boundary_seconds[0][49999] = 1e9;
  const Partition p = partition_chain(pb);
  EXPECT_EQ(p.last_layer, (std::vector<int>{49998, 149998, 249999, 299999}));
  EXPECT_EQ(p.max_load, 50000.5);
  EXPECT_EQ(partition_load(pb, p.last_layer), 50000.5);
  pb.boundary_seconds[0][49999] = 0;  // without it: the exact balance
  EXPECT_EQ(partition_chain(pb).last_layer, (std::vector<int>{49999, 149999, 249999, 299999}));
  EXPECT_EQ(partition_chain(pb).max_load, 50000);
}

TEST(Partition, BoundaryCostMovesTheCut) {
  PartitionProblem pb;
  pb.layer_seconds = {{1, 1, 1, 1}, {1, 1, 1, 1}};
  pb.boundary_seconds = {{0, 0, 0, 0}};
  EXPECT_EQ(partition_chain(pb).last_layer, (std::vector<int>{1, 3}));
  EXPECT_DOUBLE_EQ(partition_chain(pb).max_load, 2);
  pb.boundary_seconds = {{0, 5, 0, 0}};  // cutting after layer 1 is expensive
  const Partition p = partition_chain(pb);
  EXPECT_DOUBLE_EQ(p.max_load, 3);
  EXPECT_NE(p.last_layer[0], 1);
}

TEST(Partition, FasterDeviceGetsMoreLayers) {
  PartitionProblem pb;
  pb.layer_seconds = {std::vector<double>(6, 1.0), std::vector<double>(6, 2.0)};
  pb.boundary_seconds = {std::vector<double>(6, 0.0)};
  const Partition p = partition_chain(pb);
  EXPECT_EQ(p.last_layer, (std::vector<int>{3, 5}));
  EXPECT_DOUBLE_EQ(p.max_load, 4);
}

TEST(Partition, RejectsMoreStagesThanLayers) {
  PartitionProblem pb;
  pb.layer_seconds = {{1}, {1}};
  pb.boundary_seconds = {{0}};
  EXPECT_THROW(partition_chain(pb), std::invalid_argument);
}

TEST(StagePlan, AutomaticBalancesHeterogeneousDevices) {
  Workload w = make_workload(6);
  const Platform p = make_platform({2e12, 1e12});  // reference = fastest = 2e12
  const StagePlan plan = make_stage_plan(w, p);
  ASSERT_EQ(plan.stages.size(), 2u);
  EXPECT_EQ(plan.stages[0].last_layer, 3);
  EXPECT_EQ(plan.stages[1].first_layer, 4);
  EXPECT_EQ(plan.stages[1].device, 1);
  EXPECT_DOUBLE_EQ(plan.stages[0].forward_seconds, 4);
  EXPECT_DOUBLE_EQ(plan.stages[1].forward_seconds, 4);  // 2 layers at half speed
  EXPECT_DOUBLE_EQ(plan.stages[1].backward_flops, 2 * 2 * 2e12);
}

TEST(StagePlan, BytesAndFlopCosts) {
  Workload w = make_workload(4);
  for (int l = 0; l < 4; ++l) w.layers[l].activation = 10.0 * (l + 1);
  w.layers[2].forward = {5e12, true};  // in flops: independent of the reference
  w.reference_speed = 1e12;
  w.placement.automatic = false;
  w.placement.stage_layers = {{0, 1}, {2, 3}};
  w.placement.stage_hosts = {"gpu1", "gpu0"};
  const StagePlan plan = make_stage_plan(w, make_platform({2e12, 1e12}));
  const Stage& a = plan.stages[0];
  const Stage& b = plan.stages[1];
  EXPECT_EQ(a.device, 1);
  EXPECT_EQ(b.device, 0);
  EXPECT_DOUBLE_EQ(a.input_bytes, 3e6);
  EXPECT_DOUBLE_EQ(a.output_bytes, 20);
  EXPECT_DOUBLE_EQ(a.stash_bytes, 3e6 + 10);
  EXPECT_DOUBLE_EQ(b.input_bytes, 20);
  EXPECT_DOUBLE_EQ(b.output_bytes, 40);
  EXPECT_DOUBLE_EQ(b.stash_bytes, 20 + 30);
  EXPECT_DOUBLE_EQ(a.weight_bytes, 2e7);
  EXPECT_DOUBLE_EQ(a.forward_flops, 2e12);
  EXPECT_DOUBLE_EQ(a.forward_seconds, 2);  // on gpu1 at 1e12
  EXPECT_DOUBLE_EQ(b.forward_flops, 5e12 + 1e12);
  EXPECT_DOUBLE_EQ(b.forward_seconds, 3);  // on gpu0 at 2e12
}

TEST(StagePlan, AutomaticStageCount) {
  Workload w = make_workload(3);
  EXPECT_EQ(make_stage_plan(w, make_platform({1, 1})).stages.size(), 2u);
  EXPECT_EQ(make_stage_plan(w, make_platform({1, 1, 1, 1, 1})).stages.size(), 3u);  // <= layers
  w.placement.stages = 1;
  EXPECT_EQ(make_stage_plan(w, make_platform({1, 1})).stages.size(), 1u);
}

TEST(StagePlan, PlacementErrorsNameTheField) {
  const Platform p = make_platform({1e12, 1e12, 1e12});
  Workload w = make_workload(4);
  w.placement.stages = 4;  // more stages than devices
  EXPECT_NE(error_of(w, p).find("work.yaml: placement.stages: "), std::string::npos) << error_of(w, p);
  w = make_workload(2);
  w.placement.stages = 3;  // more stages than layers
  EXPECT_NE(error_of(w, p).find("placement.stages"), std::string::npos);
  EXPECT_NE(error_of(w, p).find("layers"), std::string::npos);

  w = make_workload(4);
  w.placement.automatic = false;
  w.placement.stage_layers = {{0, 1}, {2, 3}};
  w.placement.stage_hosts = {"gpu0", "tpu9"};
  EXPECT_EQ(error_of(w, p), "work.yaml: placement[1].host: unknown host 'tpu9' (devices: gpu0, gpu1, gpu2)");
  w.placement.stage_hosts = {"gpu2", "gpu2"};
  EXPECT_NE(error_of(w, p).find("placement[1].host"), std::string::npos);

  w.placement.stage_layers = {{0, 0}, {1, 1}, {2, 2}, {3, 3}};
  w.placement.stage_hosts = {"gpu0", "gpu1", "gpu2", "gpu0"};
  EXPECT_NE(error_of(w, p).find("placement: 4 stages but only 3 devices"), std::string::npos);

  w.placement.stage_layers = {{0, 1}, {3, 3}};  // a gap
  w.placement.stage_hosts = {"gpu0", "gpu1"};
  EXPECT_NE(error_of(w, p).find("placement[1].layers"), std::string::npos);
}

TEST(StagePlan, RoutesBetweenConsecutiveStages) {
  Platform p = make_platform({1e12, 1e12, 1e12, 1e12});
  p.paths[0 * 4 + 3] = Path{};  // gpu0 -> gpu3 unreachable
  Workload w = make_workload(4);
  w.placement.automatic = false;
  w.placement.stage_layers = {{0, 1}, {2, 3}};
  w.placement.stage_hosts = {"gpu0", "gpu3"};
  EXPECT_EQ(error_of(w, p), "work.yaml: placement[1].host: no route between gpu0 and gpu3");
  w.placement.stage_hosts = {"gpu3", "gpu0"};  // gradients go gpu0 -> gpu3
  EXPECT_NE(error_of(w, p).find("no route between gpu3 and gpu0"), std::string::npos);
  w.placement.stage_hosts = {"gpu1", "gpu2"};
  p.paths[1 * 4 + 2].bandwidth = 0;
  EXPECT_NE(error_of(w, p).find("zero bandwidth between gpu1 and gpu2"), std::string::npos);

  Workload a = make_workload(4);  // automatic: stage i on device i
  EXPECT_NE(error_of(a, p).find("placement: zero bandwidth between gpu1 and gpu2"), std::string::npos);
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// Host memory (kind "host") sorted first and much "faster" than the GPUs:
// automatic placement skips it, the stage count and the reference speed
// ignore it, and an explicit placement on it is refused.
TEST(StagePlan, HostMemoryNeverRunsAStage) {
  Platform p = make_platform({1e20, 2e12, 2e12});
  p.devices[0].name = "dram";
  p.devices[0].kind = kHostMemoryKind;
  EXPECT_EQ(compute_devices(p), (std::vector<int>{1, 2}));
  Workload w = make_workload(4);
  EXPECT_EQ(planned_stage_count(w, p), 2);
  const StagePlan plan = make_stage_plan(w, p);
  ASSERT_EQ(plan.stages.size(), 2u);
  EXPECT_EQ(plan.stages[0].device, 1);
  EXPECT_EQ(plan.stages[1].device, 2);
  EXPECT_DOUBLE_EQ(plan.stages[0].forward_seconds + plan.stages[1].forward_seconds, 4.0);  // reference 2e12
  w.placement.stages = 3;
  EXPECT_EQ(error_of(w, p),
            "work.yaml: placement.stages: 3 stages but only 2 devices; this schedule runs one stage per device (gpipe "
            "and 1f1b run several)");
  w.placement = {false, 0, {{0, 1}, {2, 3}}, {"gpu1", "dram"}};
  EXPECT_EQ(error_of(w, p),
            "work.yaml: placement[1].host: host 'dram' is host memory (kind host): it stores offloaded bytes and "
            "runs no stage");
  p.devices[1].kind = p.devices[2].kind = kHostMemoryKind;
  w.placement = Placement{};
  EXPECT_EQ(error_of(w, p), "plat.xml: host properties: no compute device: every device is host memory (kind host)");
}

}  // namespace
}  // namespace pipesim
