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

std::vector<StageMemoryModel> three_stages(double first_capacity) {
  StageMemoryModel m;
  m.per_stash = 1, m.capacity = 10, m.speed = 1;
  std::vector<StageMemoryModel> stages(3, m);
  stages[0].capacity = first_capacity;
  return stages;
}

TEST(PlanPartition, FitLayerCountsIsTheFastestSplitThatFits) {
  const Workload w = six_layers();
  // Room everywhere: two layers a stage, 6 s each.
  EXPECT_EQ(fit_layer_counts(w, 1, three_stages(10)), (std::vector<int>{2, 2, 2}));
  // The first stage holds one layer: the other five on two stages take at
  // least 3 layers (9 s) on one; each stage starts as early as it can, so
  // the last stage takes the three.
  EXPECT_EQ(fit_layer_counts(w, 1, three_stages(1)), (std::vector<int>{1, 2, 3}));
  // No room on the first stage: no split.
  EXPECT_EQ(fit_layer_counts(w, 1, three_stages(0.5)), std::nullopt);
  // More stages than layers: none either.
  std::vector<StageMemoryModel> many = three_stages(10);
  many.resize(7, many[0]);
  EXPECT_EQ(fit_layer_counts(w, 1, many), std::nullopt);
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
  const std::vector<StageMemoryModel> models = stage_memory_models(w, b);
  const std::vector<int> counts = stage_layer_counts(b);
  ASSERT_EQ(models.size(), 4u);
  ASSERT_EQ(counts.size(), 4u);
  for (std::size_t s = 0, first = 0; s < 4; first += counts[s], ++s) {
    double weights = 0, stashes = 0;
    for (std::size_t l = first; l < first + counts[s]; ++l)
      weights += w.layers[l].weights, stashes += *w.layers[l].stash;
    const double modelled = models[s].fixed + models[s].per_weight * weights + models[s].per_stash * stashes;
    EXPECT_NEAR(modelled, b.ranks[s].memory, 1e-9 * b.ranks[s].memory) << s;
    EXPECT_EQ(models[s].capacity, b.ranks[s].capacity);
  }
  // 1F1B's first stage holds the most micro-batches: per stash byte it holds the most.
  EXPECT_GT(models[0].per_stash, models[3].per_stash);
  // With each stage's own bound as its capacity, the split found is at least
  // as fast as the balanced one, whose stages fit.
  std::vector<StageMemoryModel> tight = models;
  for (std::size_t s = 0; s < 4; ++s) tight[s].capacity = b.ranks[s].memory * (1 + 1e-12);
  const std::optional<std::vector<int>> fit = fit_layer_counts(w, reference_speed(w, platform), tight);
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
