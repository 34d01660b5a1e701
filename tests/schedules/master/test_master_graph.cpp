// The master scheduler's task graph: which tasks, which dependencies, which
// memory effects; weight prefetch and refetch timed on SimGrid.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/memory.hpp"
#include "analysis/worker_metrics.hpp"
#include "schedules/master/master_scheduler_internal.hpp"
#include "tests/schedules/master/master_test_support.hpp"

namespace pipesim {
namespace {

int count(const TaskGraph& g, TaskKind kind) {
  return static_cast<int>(
      std::count_if(g.tasks().begin(), g.tasks().end(), [&](const Task& t) { return t.kind == kind; }));
}

TaskId find(const TaskGraph& g, TaskKind kind, int stage, int b) {
  for (TaskId t = 0; t < g.size(); ++t)
    if (g.task(t).kind == kind && g.task(t).stage == stage && g.task(t).microbatch == b) return t;
  ADD_FAILURE() << "no " << to_string(kind) << " stage " << stage << " batch " << b;
  return 0;
}

std::vector<TaskId> deps(const TaskGraph& g, TaskId t) { return {g.deps_begin(t), g.deps_end(t)}; }
constexpr TaskId kNoTask = static_cast<TaskId>(-1);

TEST(MasterGraph, MapsAndPriorities) {
  const MasterSpec fslpp{MasterScheme::FSLPP, MasterPriority::OneFOneB, 2, 2};
  const MasterShape sh = master_shape(fslpp, 4, 8);
  EXPECT_EQ(sh.W, 4);
  // h(s, b) = R (b mod G) + (s mod R); FSLPP's weights at h(s, s).
  EXPECT_EQ(master_compute_worker(fslpp, sh, 3, 5), 2 * 1 + 1);
  EXPECT_EQ(master_weight_owner(fslpp, sh, 3, 5), 2 * 1 + 1);
  EXPECT_EQ(master_weight_owner(fslpp, sh, 2, 5), 0);
  // 1F1B: any backward before any forward; depth-first: older batch first;
  // breadth-first: earlier chain position first.
  auto n = [&](MasterPriority p, int s, int b, bool back) {
    MasterSpec spec = fslpp;
    spec.priority = p;
    return master_priority(spec, sh, s, b, back);
  };
  EXPECT_LT(n(MasterPriority::OneFOneB, 0, 7, true), n(MasterPriority::OneFOneB, 3, 0, false));
  EXPECT_LT(n(MasterPriority::DepthFirst, 0, 0, true), n(MasterPriority::DepthFirst, 0, 1, false));
  EXPECT_LT(n(MasterPriority::BreadthFirst, 1, 7, false), n(MasterPriority::BreadthFirst, 2, 0, false));
  EXPECT_LT(n(MasterPriority::BreadthFirst, 3, 7, false), n(MasterPriority::BreadthFirst, 3, 0, true));
  for (const char* name : {"ddp", "fsdp", "gpipe", "lpp", "fslpp"})
    EXPECT_EQ(to_string(*parse_master_scheme(name)), name);
  for (const char* name : {"1f1b", "depth-first", "breadth-first"})
    EXPECT_EQ(to_string(*parse_master_priority(name)), name);
  EXPECT_FALSE(parse_master_scheme("zero"));
}

TEST(MasterGraph, TransfersWeightFetchesAndPrefetchDependencies) {
  // FSDP, S = 3, B = 3: worker b fetches the two stages it does not own.
  const auto stages = uniform_master_stages(3, 1, 1, 10, 100);
  MasterSpec fsdp{MasterScheme::FSDP, MasterPriority::OneFOneB, 0, 0};
  const TaskGraph g = build_master_graph(fsdp, stages, 3, 3);
  EXPECT_EQ(count(g, TaskKind::Forward), 9);
  EXPECT_EQ(count(g, TaskKind::Backward), 9);
  EXPECT_EQ(count(g, TaskKind::Transfer), 0);
  EXPECT_EQ(count(g, TaskKind::WeightFetch), 6);
  for (const Task& t : g.tasks())
    if (t.kind == TaskKind::WeightFetch) {
      EXPECT_EQ(t.device, t.stage);     // from the owner, worker s
      EXPECT_EQ(t.peer, t.microbatch);  // to the compute worker, b
      EXPECT_DOUBLE_EQ(t.amount, 100);
    }
  for (int d = 0; d < 3; ++d) EXPECT_TRUE(g.device_order(d).empty());  // greedy dispatch by priority
  // prefetch 1: the fetch for F(2, 0) waits for F(0, 0); F(1, 0)'s for nothing.
  const TaskId f2 = find(g, TaskKind::Forward, 2, 0);
  TaskId fetch2 = 0;
  for (TaskId d : deps(g, f2))
    if (g.task(d).kind == TaskKind::WeightFetch) fetch2 = d;
  EXPECT_EQ(deps(g, fetch2), std::vector<TaskId>{find(g, TaskKind::Forward, 0, 0)});
  for (TaskId d : deps(g, find(g, TaskKind::Forward, 1, 0))) {
    if (g.task(d).kind == TaskKind::WeightFetch) {
      EXPECT_TRUE(deps(g, d).empty());
    }
  }
  // prefetch 0: after F(1, 0). refetch: the backwards fetch again.
  fsdp.prefetch = 0;
  fsdp.refetch = true;
  const TaskGraph r = build_master_graph(fsdp, stages, 3, 3);
  EXPECT_EQ(count(r, TaskKind::WeightFetch), 12);
  auto fetch_deps = [&](TaskId job) {
    for (TaskId d : deps(r, job))
      if (r.task(d).kind == TaskKind::WeightFetch) return deps(r, d);
    return std::vector<TaskId>{kNoTask};
  };
  EXPECT_EQ(fetch_deps(find(r, TaskKind::Forward, 2, 0)), std::vector<TaskId>{find(r, TaskKind::Forward, 1, 0)});
  EXPECT_EQ(fetch_deps(find(r, TaskKind::Backward, 1, 0)), std::vector<TaskId>{find(r, TaskKind::Backward, 2, 0)});

  // GPipe: activations forward and gradients back, with the stage's sizes.
  const MasterSpec gpipe{MasterScheme::GPipe, MasterPriority::OneFOneB, 0, 0};
  std::vector<MasterStage> sized = uniform_master_stages(3, 1, 1, 10, 100);
  sized[0].output_bytes = 7;
  const TaskGraph p = build_master_graph(gpipe, sized, 2, 3);
  EXPECT_EQ(count(p, TaskKind::Transfer), 2 * 2 * 2);
  EXPECT_EQ(count(p, TaskKind::WeightFetch), 0);
  const TaskId f1 = find(p, TaskKind::Forward, 1, 1);
  ASSERT_EQ(deps(p, f1).size(), 1u);
  const Task& act = p.task(deps(p, f1)[0]);
  EXPECT_EQ(act.kind, TaskKind::Transfer);
  EXPECT_EQ(act.device, 0);
  EXPECT_EQ(act.peer, 1);
  EXPECT_DOUBLE_EQ(act.amount, 7);
  const TaskId b0 = find(p, TaskKind::Backward, 0, 1);
  const Task& grad = p.task(deps(p, b0)[0]);
  EXPECT_EQ(grad.kind, TaskKind::Transfer);
  EXPECT_EQ(grad.device, 1);
  EXPECT_EQ(grad.peer, 0);
  EXPECT_DOUBLE_EQ(grad.amount, 7);  // the gradient of stage 0's output
}

// Every category's effects sum to zero on every device; static weights and
// gradients sit on the owners.
TEST(MasterGraph, MemoryEffectsBalance) {
  for (MasterScheme scheme :
       {MasterScheme::DDP, MasterScheme::FSDP, MasterScheme::GPipe, MasterScheme::LPP, MasterScheme::FSLPP})
    for (bool refetch : {false, true}) {
      MasterSpec spec{scheme, MasterPriority::OneFOneB, 0, 0};
      if (scheme == MasterScheme::LPP || scheme == MasterScheme::FSLPP) spec.G = 2, spec.R = 2;
      spec.refetch = refetch;
      const TaskGraph g = build_master_graph(spec, uniform_master_stages(4, 1, 1, 3, 5), 4, 8);
      std::map<std::pair<int, int>, double> sum;
      for (const TaskMemoryEffect& e : g.memory_effects()) sum[{e.device, static_cast<int>(e.category)}] += e.bytes;
      for (const auto& [key, bytes] : sum) EXPECT_DOUBLE_EQ(bytes, 0) << to_string(scheme) << " device " << key.first;
      double weights = 0;
      for (const StaticMemory& m : g.static_memory())
        if (m.category == MemoryCategory::Weights) weights += m.bytes;
      const double copies = scheme == MasterScheme::DDP ? 4 : scheme == MasterScheme::LPP ? 2 : 1;
      EXPECT_DOUBLE_EQ(weights, copies * 4 * 5) << to_string(scheme);
    }
}

// Weights take 0.5 s to move (F = B = 1 s), FSDP with S = 4, B = 4, one run
// per variant side by side: prefetching one job ahead hides every fetch but
// the first; fetching only when the predecessor is done does not; refetching
// for the backward doubles the traffic and holds fewer copies.
TEST(MasterGraph, PrefetchHidesWeightFetches) {
  const auto stages = uniform_master_stages(4, testing::kUnitFlops, testing::kUnitFlops, 0, 0.5e9);
  std::vector<TaskGraph> graphs;
  for (auto [prefetch, refetch] : std::vector<std::pair<int, bool>>{{1, false}, {0, false}, {1, true}, {3, false}}) {
    MasterSpec spec{MasterScheme::FSDP, MasterPriority::OneFOneB, 0, 0};
    spec.prefetch = prefetch;
    spec.refetch = refetch;
    graphs.push_back(build_master_graph(spec, stages, 4, 4));
  }
  const auto tls = testing::run_side_by_side({&graphs[0], &graphs[1], &graphs[2], &graphs[3]},
                                             testing::complete_platform(16, "1GBps", "0s"));
  std::vector<WorkerReport> r;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(tls[i].completed());
    r.push_back(compute_worker_metrics(graphs[i], tls[i], testing::named_devices(4)));
  }
  // prefetch 1: F(0, b) and F(1, b) fetch at 0 s, over dedicated links: 0.5 s, then no wait.
  EXPECT_DOUBLE_EQ(r[0].latency, 8 + 0.5);
  // prefetch 0: each worker waits 0.5 s for each of the S - 1 = 3 stages it does not own.
  EXPECT_DOUBLE_EQ(r[1].latency, 8 + 3 * 0.5);
  // refetch: the backwards' fetches are issued one job ahead too, and hidden.
  EXPECT_DOUBLE_EQ(r[2].latency, 8 + 0.5);
  EXPECT_DOUBLE_EQ(r[2].weight_bytes_moved, 2 * r[0].weight_bytes_moved);
  // Copies held: worker 0 owns stage 0 and keeps 3 fetched copies until its
  // backwards (S in all); refetching keeps at most 1 + prefetch + 1.
  EXPECT_EQ(r[0].per_worker[0].owned_weights, 1);
  EXPECT_EQ(r[0].per_worker[0].peak_weights, 4);
  EXPECT_LE(r[2].per_worker[0].peak_weights, 3);
  EXPECT_EQ(r[2].per_worker[0].weight_receives, 6);
  // The byte peaks agree with the counts: 4 copies of 0.5 GB, plus a gradient buffer of the owned stage.
  EXPECT_DOUBLE_EQ(r[0].per_worker[0].memory.category_peaks[static_cast<int>(MemoryCategory::Weights)], 4 * 0.5e9);
  EXPECT_DOUBLE_EQ(r[2].per_worker[0].memory.category_peaks[static_cast<int>(MemoryCategory::Weights)],
                   r[2].per_worker[0].peak_weights * 0.5e9);
  // prefetch 3: everything fetched at once at 0 s shares worker links: still hidden here.
  EXPECT_GE(r[3].latency, r[0].latency);
}

}  // namespace
}  // namespace pipesim
