// The fit partition (studies/plan/plan_partition.hpp, docs/plan.md#partitions):
// its dynamic program against hand-solved cases, and its memory model
// against the bounds it is calibrated on.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/engine/simulation.hpp"
#include "studies/plan/plan_partition.hpp"
#include "studies/plan/plan_space.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/costs.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

// Six layers of 3 s (forward 1, backward 2) that keep one byte each.
Workload six_layers() {
  Workload w;
  for (int l = 0; l < 6; ++l) {
    Layer layer;
    layer.forward = {1, false}, layer.backward = {2, false}, layer.stash = 1;
    w.layers.push_back(layer);
  }
  return w;
}

std::vector<RankMemoryModel> three_stages(double first_capacity) {
  RankMemoryModel m;
  m.per_stash = 1, m.capacity = 10, m.speed = 1;
  std::vector<RankMemoryModel> stages(3, m);
  stages[0].capacity = first_capacity;
  return stages;
}

TEST(PlanPartition, FitLayerCountsIsTheFastestSplitThatFits) {
  const Workload w = six_layers();
  // Room everywhere: two layers a stage, 6 s each.
  EXPECT_EQ(fit_layer_counts(w, 1, three_stages(10), {0, 1, 2}, {}), (std::vector<int>{2, 2, 2}));
  // The first stage holds one layer: the other five on two stages take at
  // least 3 layers (9 s) on one; each stage starts as early as it can, so
  // the last stage takes the three.
  EXPECT_EQ(fit_layer_counts(w, 1, three_stages(1), {0, 1, 2}, {}), (std::vector<int>{1, 2, 3}));
  // No room on the first stage: no split.
  EXPECT_EQ(fit_layer_counts(w, 1, three_stages(0.5), {0, 1, 2}, {}), std::nullopt);
  // More stages than layers: none either.
  std::vector<RankMemoryModel> many = three_stages(10);
  many.resize(7, many[0]);
  EXPECT_EQ(fit_layer_counts(w, 1, many, {0, 1, 2, 3, 4, 5, 6}, {}), std::nullopt);
}

TEST(PlanPartition, SeveralStagesARankMoveLayersToRanksWithRoom) {
  const Workload w = six_layers();
  // A V on two ranks: rank 0 runs stages 0 and 3, rank 1 stages 1 and 2.
  const std::vector<int> v = {0, 1, 1, 0}, start = {1, 2, 1, 2};
  std::vector<RankMemoryModel> ranks = three_stages(2);
  ranks.resize(2);
  // Rank 0 holds two layers at most: two go to rank 1, whose four (12 s)
  // are the least a rank 1 can take.
  EXPECT_EQ(fit_layer_counts(w, 1, ranks, v, start), (std::vector<int>{1, 2, 2, 1}));
  // Room everywhere: the start, as balanced as it gets (9 s each).
  ranks[0].capacity = 10;
  EXPECT_EQ(fit_layer_counts(w, 1, ranks, v, start), start);
  // Rank 0 runs two stages of a layer at least: one layer's room is none.
  ranks[0].capacity = 1;
  EXPECT_EQ(fit_layer_counts(w, 1, ranks, v, start), std::nullopt);
}

TEST(PlanPartition, TheModelGivesTheBoundsItIsCalibratedOn) {
  Simulation sim(kRoot + "platforms/nvswitch-8gpu.xml");
  const Platform& platform = sim.platform();
  const WorkloadLoader load = workload_loader(kRoot + "workloads/examples/gpt2-xl.yaml");
  PlanCandidate c;
  c.pp = 4, c.dp = 2, c.microbatch_size = 2, c.microbatches = 32, c.schedule = "1f1b", c.recompute = "none";
  c.partition = "balanced";
  const Workload w = time_model_layers(load(c.overrides()), platform);
  const PlanBounds b = plan_bounds(w, platform);
  const std::vector<RankMemoryModel> models = rank_memory_models(w, b);
  const std::vector<int> counts = stage_layer_counts(b);
  ASSERT_EQ(models.size(), 4u);
  ASSERT_EQ(counts.size(), 4u);
  EXPECT_EQ(b.stage_rank, (std::vector<int>{0, 1, 2, 3}));
  const auto expect_calibrated = [&](const Workload& timed, const PlanBounds& bounds) {
    const std::vector<RankMemoryModel> m = rank_memory_models(timed, bounds);
    const std::vector<int> n = stage_layer_counts(bounds);
    std::vector<double> weights(m.size(), 0), stashes(m.size(), 0);
    for (std::size_t s = 0, first = 0; s < n.size(); first += n[s], ++s)
      for (std::size_t l = first; l < first + n[s]; ++l) {
        weights[bounds.stage_rank[s]] += timed.layers[l].weights;
        stashes[bounds.stage_rank[s]] += *timed.layers[l].stash;
      }
    for (std::size_t r = 0; r < m.size(); ++r) {
      EXPECT_NEAR(m[r].fixed + m[r].per_weight * weights[r] + m[r].per_stash * stashes[r], bounds.ranks[r].memory,
                  1e-9 * bounds.ranks[r].memory)
          << r;
      EXPECT_EQ(m[r].capacity, bounds.ranks[r].capacity);
    }
  };
  expect_calibrated(w, b);
  // ZB-V: two stages a rank, in a V.
  PlanCandidate zbv = c;
  zbv.schedule = "zbv";
  const Workload v = time_model_layers(load(zbv.overrides()), platform);
  const PlanBounds vb = plan_bounds(v, platform);
  EXPECT_EQ(vb.stage_rank, (std::vector<int>{0, 1, 2, 3, 3, 2, 1, 0}));
  expect_calibrated(v, vb);
  // 1F1B's first stage holds the most micro-batches: per stash byte it holds the most.
  EXPECT_GT(models[0].per_stash, models[3].per_stash);
  // With each stage's own bound as its capacity, the split found is at least
  // as fast as the balanced one, whose stages fit.
  std::vector<RankMemoryModel> tight = models;
  for (std::size_t s = 0; s < 4; ++s) tight[s].capacity = b.ranks[s].memory * (1 + 1e-12);
  const std::optional<std::vector<int>> fit =
      fit_layer_counts(w, reference_speed(w, platform), tight, b.stage_rank, counts);
  ASSERT_TRUE(fit);
  const auto busiest = [&](const std::vector<int>& n) {
    double most = 0;
    for (std::size_t s = 0, first = 0; s < n.size(); first += n[s], ++s) {
      double flops = 0;
      for (std::size_t l = first; l < first + n[s]; ++l)
        flops += cost_flops(w.layers[l].forward, reference_speed(w, platform)) +
                 cost_flops(w.layers[l].backward, reference_speed(w, platform));
      most = std::max(most, flops);
    }
    return most;
  };
  EXPECT_LE(busiest(*fit), busiest(counts));
}

TEST(PlanPartition, AFitCandidateWritesItsCountsAndNoPartition) {
  PlanCandidate c;
  c.pp = 4, c.schedule = "1f1b", c.recompute = "none", c.partition = "fit";
  const auto value = [&](const std::string& key) {
    for (const WorkloadOverride& o : c.overrides())
      if (o.key == key) return o.value;
    return std::string("(none)");
  };
  EXPECT_EQ(value("placement.partition"), "balanced");  // not screened yet: its balanced pipeline
  EXPECT_EQ(value("placement.layers"), "(none)");
  c.layer_counts = {11, 13, 13, 13};
  EXPECT_EQ(value("placement.partition"), "");  // removed
  EXPECT_EQ(value("placement.layers"), "[11, 13, 13, 13]");
  EXPECT_EQ(c.stages_label(), "1f1b fit 11/13/13/13");
  const WorkloadLoader load = workload_loader(kRoot + "workloads/examples/gpt2-xl.yaml");
  c.microbatches = 16;
  const Workload w = load(c.overrides());
  EXPECT_EQ(w.placement.layer_counts, c.layer_counts);
  EXPECT_EQ(w.placement.partition, PartitionRule::Auto);
}

}  // namespace
}  // namespace pipesim
