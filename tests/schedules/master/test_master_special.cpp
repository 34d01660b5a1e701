// Seed 003's special cases and throughput claims, simulated:
//  - LPP with G = 1, R = S is GPipe; LPP with G = B, R = 1 is DDP (the same
//    task graph, hence the same timeline, also with real costs and transfers);
//  - with free transfers FSDP's timeline is DDP's and FSLPP's is LPP's;
//  - G = B/2, R = 2S/M reaches rho = M/(S+1) (breadth-first; 1F1B falls
//    short when R = 2), and no simulated schedule exceeds rho <= M/S.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/worker_metrics.hpp"
#include "schedules/master/master_scheduler_internal.hpp"
#include "tests/schedules/master/master_test_support.hpp"

namespace pipesim {
namespace {

using testing::kTableUnit;

void expect_same_graph(const TaskGraph& a, const TaskGraph& b) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.device_count(), b.device_count());
  for (TaskId t = 0; t < a.size(); ++t) {
    const Task &x = a.task(t), &y = b.task(t);
    ASSERT_TRUE(x.kind == y.kind && x.device == y.device && x.peer == y.peer && x.amount == y.amount &&
                x.stage == y.stage && x.microbatch == y.microbatch && x.priority == y.priority)
        << a.describe(t) << " vs " << b.describe(t);
    ASSERT_EQ(std::vector<TaskId>(a.deps_begin(t), a.deps_end(t)), std::vector<TaskId>(b.deps_begin(t), b.deps_end(t)));
  }
  ASSERT_EQ(a.memory_effects().size(), b.memory_effects().size());
  ASSERT_EQ(a.static_memory().size(), b.static_memory().size());
}

// Start and finish of every compute task, keyed by (kind, stage, batch) -> (device, start, finish).
struct Job {
  int device;
  double start, finish;
  bool operator==(const Job& o) const { return device == o.device && start == o.start && finish == o.finish; }
};
std::map<std::tuple<int, int, int>, Job> jobs(const TaskGraph& g, const Timeline& tl) {
  std::map<std::tuple<int, int, int>, Job> out;
  for (TaskId t = 0; t < g.size(); ++t) {
    const Task& task = g.task(t);
    if (!is_transfer(task.kind))
      out[{static_cast<int>(task.kind), task.stage, task.microbatch}] = {task.device, tl.start[t], tl.finish[t]};
  }
  return out;
}

// Real costs: F = 1 s, B = 2 s, 1 GB activations and 2 GB of weights per stage
// over dedicated 1 GB/s links, so transfers take as long as compute.
std::vector<MasterStage> costly_stages(int S) {
  return uniform_master_stages(S, testing::kUnitFlops, 2 * testing::kUnitFlops, 1e9, 2e9);
}

TEST(MasterSpecialCases, LoopedWithOneGroupOfSIsGPipeAndWithBGroupsOfOneIsDDP) {
  std::vector<TaskGraph> graphs;
  int devices = 0;
  struct Pair {
    int S, B;
    MasterPriority p;
  };
  const std::vector<Pair> pairs = {
      {4, 8, MasterPriority::OneFOneB}, {3, 5, MasterPriority::DepthFirst}, {4, 4, MasterPriority::BreadthFirst}};
  for (const Pair& c : pairs) {
    const auto stages = costly_stages(c.S);
    const MasterSpec gpipe{MasterScheme::GPipe, c.p, 0, 0}, lpp_gpipe{MasterScheme::LPP, c.p, 1, c.S};
    const MasterSpec ddp{MasterScheme::DDP, c.p, 0, 0}, lpp_ddp{MasterScheme::LPP, c.p, c.B, 1};
    graphs.push_back(build_master_graph(gpipe, stages, c.B, c.S));
    graphs.push_back(build_master_graph(lpp_gpipe, stages, c.B, c.S));
    graphs.push_back(build_master_graph(ddp, stages, c.B, c.B));
    graphs.push_back(build_master_graph(lpp_ddp, stages, c.B, c.B));
    devices += 2 * (c.S + c.B);
  }
  for (std::size_t i = 0; i < graphs.size(); i += 2) expect_same_graph(graphs[i], graphs[i + 1]);
  std::vector<const TaskGraph*> ptrs;
  for (const TaskGraph& g : graphs) ptrs.push_back(&g);
  // Each graph on its own devices of a complete graph: dedicated links, no interference.
  const auto tls = testing::run_side_by_side(ptrs, testing::complete_platform(devices, "1GBps", "0s"));
  for (std::size_t i = 0; i < graphs.size(); i += 2) {
    ASSERT_TRUE(tls[i].completed() && tls[i + 1].completed());
    EXPECT_EQ(tls[i].start, tls[i + 1].start);
    EXPECT_EQ(tls[i].finish, tls[i + 1].finish);
  }
  // The transfers cost something: GPipe is slower than (S + B - 1)(F + B).
  EXPECT_GT(tls[0].makespan, (4 + 8 - 1) * 3.0);
  // DDP moves nothing: exactly S (F + B).
  EXPECT_DOUBLE_EQ(tls[2].makespan, 4 * 3.0);
}

TEST(MasterSpecialCases, WithFreeTransfersShardingChangesNoTiming) {
  std::vector<TaskGraph> graphs;
  int devices = 0;
  for (MasterPriority p : {MasterPriority::OneFOneB, MasterPriority::BreadthFirst}) {
    graphs.push_back(build_master_graph({MasterScheme::DDP, p, 0, 0}, testing::unit_stages(4), 8, 8));
    graphs.push_back(build_master_graph({MasterScheme::FSDP, p, 0, 0}, testing::unit_stages(4), 8, 8));
    graphs.push_back(build_master_graph({MasterScheme::LPP, p, 2, 2}, testing::unit_stages(4), 8, 4));
    graphs.push_back(build_master_graph({MasterScheme::FSLPP, p, 2, 2}, testing::unit_stages(4), 8, 4));
    devices += 24;
  }
  std::vector<const TaskGraph*> ptrs;
  for (const TaskGraph& g : graphs) ptrs.push_back(&g);
  const auto tls = testing::run_side_by_side(ptrs, testing::hosts_platform(devices));
  for (std::size_t i = 0; i < graphs.size(); i += 2) {
    SCOPED_TRACE(i);
    EXPECT_GT(graphs[i + 1].size(), graphs[i].size());  // the sharded one has weight fetches
    EXPECT_EQ(jobs(graphs[i], tls[i]), jobs(graphs[i + 1], tls[i + 1]));
  }
}

// G = B/2, R = 2S/M (M even, R | S, S > 2): Table 1 gives M = (S/R) min(S, B/G)
// and L = S + 1, hence rho = S B / ((S + 1) G R) = M / (S + 1).
struct RhoCase {
  int S, M, B;
};

class MasterRho : public ::testing::TestWithParam<int> {};

TEST_P(MasterRho, HalfBatchGroupsReachMOverSPlusOne) {
  const int S = GetParam();
  struct Run {
    RhoCase c;
    MasterPriority p;
    MasterShape shape;
    TaskGraph graph;
  };
  std::vector<Run> runs;
  int hosts = 0;
  for (int M = 2; M <= S; M += 2) {
    if ((2 * S) % M != 0 || S % (2 * S / M) != 0) continue;
    for (int B : {4, 8})
      for (MasterPriority p : {MasterPriority::OneFOneB, MasterPriority::BreadthFirst}) {
        const MasterSpec spec{MasterScheme::LPP, p, B / 2, 2 * S / M};
        const MasterShape shape = master_shape(spec, S, B);
        runs.push_back({{S, M, B}, p, shape, build_master_graph(spec, testing::unit_stages(S), B, shape.W)});
        hosts += shape.W;
      }
  }
  ASSERT_FALSE(runs.empty());
  std::vector<const TaskGraph*> ptrs;
  for (const Run& r : runs) ptrs.push_back(&r.graph);
  const auto tls = testing::run_side_by_side(ptrs, testing::hosts_platform(hosts));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    const auto [s, M, B] = run.c;
    SCOPED_TRACE("S=" + std::to_string(s) + " M=" + std::to_string(M) + " B=" + std::to_string(B) + " " +
                 std::string(to_string(run.p)));
    const WorkerReport r = compute_worker_metrics(run.graph, tls[i], testing::named_devices(run.shape.W));
    EXPECT_LE(r.rho, r.rho_bound + 1e-12);
    EXPECT_EQ(r.peak_activations, M);
    if (run.p == MasterPriority::BreadthFirst || run.shape.R > 2) {
      EXPECT_DOUBLE_EQ(r.latency / kTableUnit, S + 1.0);
      EXPECT_NEAR(r.rho, double(M) / (S + 1), 1e-12);
    } else {
      // R = 2 (M = S) under 1F1B: worker 1's backwards queue behind its
      // forwards of the second batch; L = S + 3/2 (docs/master-scheduler.md).
      EXPECT_DOUBLE_EQ(r.latency / kTableUnit, S + 1.5);
      EXPECT_NEAR(r.rho, double(S) * B / ((S + 1.5) * run.shape.W), 1e-12);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Master, MasterRho, ::testing::Values(4, 6, 8, 12, 16),
                         [](const ::testing::TestParamInfo<int>& info) { return "S" + std::to_string(info.param); });

// Groups that do not divide the batches (G does not divide B) and odd sizes:
// every scheme and priority still completes and stays under rho <= M / S.
TEST(MasterSpecialCases, UnevenGroupsStayUnderTheBound) {
  std::vector<TaskGraph> graphs;
  std::vector<int> widths;
  int hosts = 0;
  for (MasterPriority p : {MasterPriority::OneFOneB, MasterPriority::DepthFirst, MasterPriority::BreadthFirst})
    for (MasterScheme scheme : {MasterScheme::LPP, MasterScheme::FSLPP})
      for (auto [S, B, G, R] :
           std::vector<std::array<int, 4>>{{6, 7, 3, 2}, {4, 6, 4, 2}, {9, 5, 2, 3}, {5, 3, 2, 5}}) {
        const MasterSpec spec{scheme, p, G, R};
        graphs.push_back(build_master_graph(spec, testing::unit_stages(S), B, G * R));
        widths.push_back(G * R);
        hosts += G * R;
      }
  std::vector<const TaskGraph*> ptrs;
  for (const TaskGraph& g : graphs) ptrs.push_back(&g);
  const auto tls = testing::run_side_by_side(ptrs, testing::hosts_platform(hosts));
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    ASSERT_TRUE(tls[i].completed());
    const WorkerReport r = compute_worker_metrics(graphs[i], tls[i], testing::named_devices(widths[i]));
    EXPECT_LE(r.rho, r.rho_bound + 1e-12) << i;
    EXPECT_GT(r.rho, 0) << i;
  }
}

}  // namespace
}  // namespace pipesim
