// The stages a plan's even candidate predicts for its balanced twin are the
// twin's own: the screening bounds one pipeline once on that word
// (studies/plan/plan_search.cpp, docs/plan.md#what-it-weighs).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "sim/engine/simulation.hpp"
#include "studies/plan/plan_bounds.hpp"
#include "studies/plan/plan_space.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

// A small GPT whose vocabulary makes the head weigh about two blocks: the
// balanced partition moves blocks off the head's stage on some pipelines.
const std::string kWideHead =
    "model: {layers: 6, hidden: 256, heads: 4, vocab: 40000, seq_length: 256}\nmicrobatches: 8\nschedule: 1f1b\n";

TEST(PlanBounds, AnEvenCandidateNamesItsBalancedTwinsStages) {
  Simulation sim(kRoot + "platforms/nvswitch-8gpu.xml");
  const Platform& platform = sim.platform();
  const WorkloadLoader load = workload_loader(testing::write_file("wide-head.yaml", kWideHead));
  PlanSpaceLimits limits;
  limits.gpus = 8, limits.node_gpus = 8, limits.global_batch = 16, limits.layers = 8, limits.zero_stages = {0};
  std::size_t pairs = 0, differ = 0;
  for (PlanCandidate c : plan_space(limits)) {
    if (c.partition != "even" || c.pp == 1 || c.recompute != "none") continue;
    const auto bounds = [&](const PlanCandidate& candidate) {
      const Workload w = load(candidate.overrides());
      return plan_bounds(time_model_layers(w, platform), platform);
    };
    PlanBounds even, balanced;
    try {
      even = bounds(c);
    } catch (const InputError&) {
      continue;  // not applicable (micro-batches DualPipeV cannot take): its twin is not either
    }
    c.partition = "balanced";
    balanced = bounds(c);
    EXPECT_EQ(even.balanced_stages, balanced.stages) << c.label();
    EXPECT_EQ(balanced.balanced_stages, balanced.stages) << c.label();
    ++pairs, differ += balanced.stages != even.stages;
    if (balanced.stages == even.stages) {  // one pipeline: the same bounds
      EXPECT_EQ(balanced.time, even.time) << c.label();
      EXPECT_EQ(balanced.memory, even.memory) << c.label();
    }
  }
  EXPECT_GE(pairs, 40u);
  EXPECT_GE(differ, 10u);
  EXPECT_LT(differ, pairs);
}

// With ZeRO 1 the job gathers each device's weights over its DP group after
// its step: the bound adds the ring all-gather's chain, m - 1 steps of W / m
// (every edge of the ring but one; here all alike). One pipeline stage, so
// nothing else crosses the network, and a memory so fast that the steps
// (ZeRO 0's whole, ZeRO 1's sharded) take picoseconds: at DP 4 the ZeRO 1
// bound is the ZeRO 0 one plus 3 steps.
TEST(PlanBounds, TheDistributedOptimizersGatherFollowsTheStep) {
  Simulation sim(testing::write_file(
      "gather.xml",
      testing::complete_platform_xml(4, "1GBps", "1ms", "1Tf", "1TiB", {{"memory_bandwidth", "1000000TBps"}})));
  const Platform& platform = sim.platform();
  const WorkloadLoader load = workload_loader(testing::write_file(
      "gather.yaml",
      "model: {layers: 2, hidden: 64, heads: 2, vocab: 1000, seq_length: 16}\nmicrobatches: 2\nschedule: 1f1b\n"
      "optimizer: {name: adam, clip_grad: false}\nparallel: {dp: 4, zero: 1}\n"));
  const auto bound = [&](const std::string& zero) {
    return plan_bounds(time_model_layers(load({{"parallel.zero", zero}}), platform), platform).time;
  };
  double weights = 0;
  for (const Layer& layer : load({}).layers) weights += layer.weights;
  const double step = platform.transfer_time(0, 1, weights / 4);
  EXPECT_GT(step, 1e-3);
  EXPECT_NEAR(bound("1") - bound("0"), 3 * step, 1e-9);
  // Overlapped with the next iteration (overlap_param_gather) the gather
  // follows no step: the bound leaves it out, and stays below the run.
  const std::string overlapped = testing::write_file(
      "gather-overlapped.yaml",
      "model: {layers: 2, hidden: 64, heads: 2, vocab: 1000, seq_length: 16}\nmicrobatches: 2\nschedule: 1f1b\n"
      "optimizer: {name: adam, clip_grad: false}\nparallel: {dp: 4, zero: 1, overlap_param_gather: true}\n");
  const double bound_overlapped =
      plan_bounds(time_model_layers(load_workload(overlapped, {}), platform), platform).time;
  EXPECT_LT(bound_overlapped, bound("1") - 2 * step);
  const testing::CliResult r = testing::run_pipesim("run " + testing::temp_path("gather.xml") + " " + overlapped +
                                                    " --quiet --json " + testing::temp_path("gather-overlapped.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double run =
      nlohmann::json::parse(testing::read_text(testing::temp_path("gather-overlapped.json")))["makespan"];
  EXPECT_LE(bound_overlapped, run);
}

// A ZeRO 2 candidate of a fixed-order schedule is the pipeline of its ZeRO 1
// twin with the gradients sharded, and a ZeRO 0 one (over a power of two
// replicas) the same pipeline with the optimizer's state, step and norm dp
// times larger: the screening bounds all three from one graph (plan_bounds'
// SHARDED_GRADIENTS and WHOLE_OPTIMIZER). Each family's bounds so derived
// are those of the workload bounded alone, bit for bit; the ZeRO 2 memory is
// lower by the gradients' share the other replicas hold, ZeRO 0's higher by
// the optimizer's.
TEST(PlanBounds, ZeroZeroAndTwoAreZeroOnesPipelineScaled) {
  Simulation sim(kRoot + "platforms/nvswitch-8gpu.xml");
  const Platform& platform = sim.platform();
  const WorkloadLoader load = workload_loader(testing::write_file("wide-head.yaml", kWideHead));
  PlanSpaceLimits limits;
  limits.gpus = 8, limits.node_gpus = 8, limits.global_batch = 16, limits.layers = 8, limits.zero_stages = {1};
  limits.schedules = {"gpipe", "1f1b", "interleaved-1f1b", "zb-h1", "zb-h2", "zbv", "dualpipev"};
  const auto expect_same = [](const PlanBounds& derived, const PlanBounds& alone, const std::string& label) {
    EXPECT_EQ(derived.time, alone.time) << label;
    EXPECT_EQ(derived.memory, alone.memory) << label;
    EXPECT_EQ(derived.memory_rank, alone.memory_rank) << label;
    EXPECT_EQ(derived.over_capacity, alone.over_capacity) << label;
    EXPECT_EQ(derived.stages, alone.stages) << label;
    ASSERT_EQ(derived.ranks.size(), alone.ranks.size()) << label;
    for (std::size_t r = 0; r < alone.ranks.size(); ++r) {
      EXPECT_EQ(derived.ranks[r].static_bytes, alone.ranks[r].static_bytes) << label;
      EXPECT_EQ(derived.ranks[r].memory, alone.ranks[r].memory) << label;
    }
  };
  std::set<std::string> families;
  for (PlanCandidate c : plan_space(limits)) {
    if (c.dp < 2 || c.zero != 1) continue;
    ASSERT_TRUE(bounds_whole_optimizer(c.dp)) << c.label();  // 2, 4 or 8 replicas
    PlanBounds one, sharded, whole;
    try {
      one = plan_bounds(time_model_layers(load(c.overrides()), platform), platform, nullptr, &sharded, &whole);
    } catch (const InputError&) {
      continue;  // not applicable: its twins are screened alone
    }
    for (const int zero : {2, 0}) {
      c.zero = zero;
      const PlanBounds alone = plan_bounds(time_model_layers(load(c.overrides()), platform), platform);
      expect_same(zero == 2 ? sharded : whole, alone, c.label());
    }
    EXPECT_LT(sharded.memory, one.memory) << c.label();  // the gradients sharded over dp >= 2
    EXPECT_GT(whole.memory, one.memory) << c.label();    // the optimizer's state whole
    families.insert(c.schedule);
  }
  EXPECT_EQ(families.size(), limits.schedules.size());
  EXPECT_FALSE(bounds_whole_optimizer(1));
  EXPECT_FALSE(bounds_whole_optimizer(6));
}

}  // namespace
}  // namespace pipesim
