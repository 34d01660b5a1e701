// The plan's candidates: every layout of the GPUs, micro-batch sizes that
// divide the global batch per replica, each schedule family on pipelines.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "studies/plan/plan_space.hpp"

namespace pipesim {
namespace {

TEST(PlanSpace, EveryLayoutOfTheGpusAndEveryMicroBatchThatDividesTheBatch) {
  PlanSpaceLimits limits;
  limits.gpus = 8, limits.node_gpus = 4, limits.global_batch = 16, limits.layers = 6;
  limits.schedules = plan_schedule_choices();  // kfkb too
  const std::vector<PlanCandidate> space = plan_space(limits);
  std::set<std::string> labels;
  std::set<std::tuple<int, int, int>> layouts;
  for (const PlanCandidate& c : space) {
    EXPECT_EQ(c.tp * c.pp * c.dp, 8) << c.label();
    EXPECT_LE(c.tp, 4) << "TP stays inside a box of 4: " << c.label();
    EXPECT_LE(c.pp, 6) << "no more stages than layers: " << c.label();
    EXPECT_EQ(c.dp * c.microbatch_size * c.microbatches, 16) << c.label();
    if (c.pp == 1) {
      EXPECT_EQ(c.schedule, "1f1b") << c.label();
      EXPECT_EQ(c.partition, "even") << "one stage has one partition: " << c.label();
    }
    if (c.dp == 1) {
      EXPECT_EQ(c.zero, 0) << c.label();
    }
    if (c.schedule == "interleaved-1f1b") {
      EXPECT_LE(c.pp * c.virtual_stages, 6) << c.label();
    }
    EXPECT_TRUE(labels.insert(c.label()).second) << "twice: " << c.label();
    layouts.insert({c.tp, c.pp, c.dp});
  }
  // tp 1, 2, 4 times pp dividing 8/tp (at most 6): (1,1,8) (1,2,4) (1,4,2) (2,1,4) (2,2,2) (2,4,1) (4,1,2) (4,2,1).
  EXPECT_EQ(layouts.size(), 8u);
  // (4,2,1): mbs 1..8 (4 sizes, 16 to 2 micro-batches); schedules 1f1b, gpipe, interleaved v2 (2 x 2 <= 6; v4
  // is 8 > 6), kfkb k2, k3 and k4 (at most the micro-batches: k2 alone at 2), zb-h1, zb-h2, zbv, dualpipev,
  // pipedream, ilp: 12, 10 at mbs 8; partitions even and balanced (two stages); recompute 3; zero 0 only.
  std::size_t count = 0, kfkb = 0;
  for (const PlanCandidate& c : space) {
    count += c.tp == 4 && c.pp == 2;
    EXPECT_EQ(c.time_limit, c.schedule == "ilp" ? "0" : "") << "the ILP's heuristic patterns alone: " << c.label();
    if (c.schedule == "kfkb") {
      EXPECT_LE(c.k, c.microbatches) << c.label();
      kfkb += c.tp == 4 && c.pp == 2;
    }
  }
  EXPECT_EQ(count, (3u * 12 + 10) * 2 * 3);
  EXPECT_EQ(kfkb, (3u * 3 + 1) * 2 * 3);
}

// --zero 0: every candidate keeps ZeRO 0, so that a job's replicas can fold
// (docs/folding.md); the other fields are enumerated as before.
TEST(PlanSpace, ZeroStagesAreTheOnesAskedFor) {
  PlanSpaceLimits limits;
  limits.gpus = 8, limits.node_gpus = 4, limits.global_batch = 16, limits.layers = 6;
  const std::size_t all = plan_space(limits).size();
  limits.zero_stages = {0};
  const std::vector<PlanCandidate> zero = plan_space(limits);
  std::size_t replicated = 0;
  for (const PlanCandidate& c : zero) {
    EXPECT_EQ(c.zero, 0) << c.label();
    replicated += c.dp > 1;
  }
  EXPECT_EQ(all, zero.size() + 2 * replicated);  // dp > 1 had 0, 1 and 2
}

// --partitions even: every pipelined candidate once, with the even partition.
TEST(PlanSpace, PartitionsAreTheOnesAskedFor) {
  PlanSpaceLimits limits;
  limits.gpus = 8, limits.node_gpus = 4, limits.global_batch = 16, limits.layers = 6;
  const std::vector<PlanCandidate> both = plan_space(limits);
  limits.partitions = {"even"};
  const std::vector<PlanCandidate> even = plan_space(limits);
  std::size_t pipelined = 0;
  for (const PlanCandidate& c : even) {
    EXPECT_EQ(c.partition, "even") << c.label();
    pipelined += c.pp > 1;
  }
  EXPECT_EQ(both.size(), even.size() + pipelined);
  limits.partitions = {"balanced"};
  for (const PlanCandidate& c : plan_space(limits)) EXPECT_EQ(c.partition, c.pp > 1 ? "balanced" : "even") << c.label();
}

// --objective cost: the layouts of the whole platform, then those of its
// first n GPUs for every n dividing it, each saying so in parallel.gpus.
TEST(PlanSpace, ACostPlanWeighsLayoutsOnPartOfThePlatform) {
  PlanSpaceLimits limits;
  limits.gpus = 8, limits.node_gpus = 4, limits.global_batch = 16, limits.layers = 6;
  const std::vector<PlanCandidate> whole = plan_space(limits);
  limits.part_platforms = true;
  const std::vector<PlanCandidate> space = plan_space(limits);
  ASSERT_GT(space.size(), whole.size());
  EXPECT_TRUE(std::equal(whole.begin(), whole.end(), space.begin())) << "the whole platform first, as before";
  std::map<int, std::size_t> by_gpus;
  for (std::size_t i = whole.size(); i < space.size(); ++i) {
    const PlanCandidate& c = space[i];
    EXPECT_EQ(c.ranks(), c.gpus) << c.label();
    EXPECT_EQ(c.dp * c.microbatch_size * c.microbatches, 16) << c.label();
    ++by_gpus[c.gpus];
    std::string set;
    for (const WorkloadOverride& o : c.overrides())
      if (o.key == "parallel.gpus") set = o.value;
    EXPECT_EQ(set, std::to_string(c.gpus)) << c.label();
  }
  EXPECT_EQ(by_gpus.size(), 3u);  // 4, 2 and 1
  EXPECT_TRUE(by_gpus.count(4) && by_gpus.count(2) && by_gpus.count(1));
  for (const PlanCandidate& c : whole) EXPECT_EQ(c.gpus, 0);
  PlanCandidate one = space.back();
  EXPECT_EQ(one.label().substr(0, 24), "tp 1 pp 1 dp 1 on 1 GPU,");
}

TEST(PlanSpace, OverridesSayTheCandidateAsRunSetsWould) {
  PlanCandidate c;
  c.tp = 8, c.pp = 4, c.dp = 2, c.zero = 1, c.microbatch_size = 1, c.microbatches = 64;
  c.schedule = "interleaved-1f1b", c.virtual_stages = 2, c.recompute = "selective", c.partition = "balanced";
  EXPECT_EQ(c.label(), "tp 8 pp 4 dp 2, mb 1 x 64, interleaved-1f1b v2 balanced, selective, zero 1");
  std::string text;
  for (const WorkloadOverride& o : c.overrides()) text += o.key + "=" + o.value + " ";
  EXPECT_EQ(text,
            "parallel.tp=8 parallel.pp=4 parallel.dp=2 parallel.zero=1 model.microbatch_size=1 "
            "model.recompute=selective microbatches=64 schedule=interleaved-1f1b schedule.virtual_stages=2 "
            "placement.partition=balanced memory_saving= parallel.gpus= ");
  c.pp = 1;  // one stage: the label leaves the partition out
  EXPECT_EQ(c.label(), "tp 8 pp 1 dp 2, mb 1 x 64, interleaved-1f1b v2, selective, zero 1");
}

// A twin that saves memory on some stages: memory_saving as a YAML flow
// list, one entry per stage, that the workload loader reads back.
TEST(PlanSpace, AMemorySavingTwinSetsEachStagesProgram) {
  PlanCandidate c;
  c.pp = 4, c.microbatches = 8, c.schedule = "1f1b", c.recompute = "none", c.partition = "balanced";
  c.saving = saving_on({0, 2}, 4);
  EXPECT_EQ(c.label(), "tp 1 pp 4 dp 1, mb 1 x 8, 1f1b balanced, none + remat on stages 0 2, zero 0");
  EXPECT_EQ(c.saving_flow(),
            "[{policy: remat, limit: fit, slots: 500}, {policy: none}, {policy: remat, limit: fit, slots: 500}, "
            "{policy: none}]");
  const std::vector<WorkloadOverride> o = c.overrides();
  ASSERT_GE(o.size(), 2u);
  EXPECT_EQ(o[o.size() - 2].key, "memory_saving");
  EXPECT_EQ(o[o.size() - 2].value, c.saving_flow());
  const Workload w = load_workload(std::string(PIPESIM_SOURCE_DIR) + "/workloads/examples/gpt2-xl.yaml",
                                   {{"parallel.pp", "4"}, {"memory_saving", c.saving_flow()}});
  ASSERT_EQ(w.memory_saving_stages.size(), 4u);
  EXPECT_EQ(w.memory_saving_stages, c.saving);
  PlanCandidate other = c;
  other.saving = saving_on({1}, 4);
  EXPECT_EQ(other.saving_label(), "remat on stage 1");
  EXPECT_FALSE(other == c);  // the same pipeline saving elsewhere is another candidate
}

}  // namespace
}  // namespace pipesim
