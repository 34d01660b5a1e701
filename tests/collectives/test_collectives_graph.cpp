// The tasks a collective adds (collectives/collective.hpp), without an
// engine: bytes each rank sends, records, tags, done markers, dependencies.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "collectives/collective.hpp"
#include "collectives/schedule.hpp"
#include "tests/collectives/collective_test_support.hpp"

namespace pipesim {
namespace {

using testing::uniform_platform;

CollectiveSpec spec(CollectiveOp op, CollectiveAlgorithm algorithm, int n, double bytes, int chunks = 1) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm;
  s.bytes = bytes;
  s.chunks = chunks;
  for (int r = 0; r < n; ++r) s.group.push_back(r);
  return s;
}

// Bytes each device sends in the graph's transfers.
std::vector<double> sent(const TaskGraph& g) {
  std::vector<double> bytes(g.device_count());
  for (const Task& t : g.tasks())
    if (t.device != t.peer) bytes[t.device] += t.amount;
  return bytes;
}

void expect_sent(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-9 * want[i] + 1e-9) << what << " rank " << i;
}

TEST(CollectiveGraph, EachRankSendsWhatTheAlgorithmMoves) {
  const double s = 6e9;
  for (const int n : {2, 3, 5, 8})
    for (const int c : {1, 4}) {
      const Platform p = uniform_platform(n, 1e-6, 1e9);
      const std::string what = "n " + std::to_string(n) + " chunks " + std::to_string(c);
      {  // ring all-reduce: 2(n-1)/n S per rank
        TaskGraph g(n);
        add_collective(g, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, n, s, c), p, {}, Task{});
        expect_sent(sent(g), std::vector<double>(n, 2.0 * (n - 1) / n * s), "ring all-reduce " + what);
      }
      for (const auto op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather}) {  // (n-1)/n S per rank
        TaskGraph g(n);
        add_collective(g, spec(op, CollectiveAlgorithm::Ring, n, s, c), p, {}, Task{});
        expect_sent(sent(g), std::vector<double>(n, double(n - 1) / n * s), std::string(to_string(op)) + " " + what);
      }
      {  // broadcast from rank 1 along the chain: every rank but the last sends S
        TaskGraph g(n);
        auto b = spec(CollectiveOp::Broadcast, CollectiveAlgorithm::Ring, n, s, c);
        b.root = 1;
        add_collective(g, b, p, {}, Task{});
        std::vector<double> want(n, s);
        want[(1 + n - 1) % n] = 0;
        expect_sent(sent(g), want, "broadcast " + what);
      }
      {  // tree: per tree, each non-root rank sends S/2 up and its parent S/2 down to it
        TaskGraph g(n);
        add_collective(g, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Tree, n, s, c), p, {}, Task{});
        std::vector<double> want(n);
        for (const auto& parent : collectives::double_binary_tree(n))
          for (int r = 0; r < n; ++r)
            if (parent[r] >= 0) {
              want[r] += s / 2;
              want[parent[r]] += s / 2;
            }
        expect_sent(sent(g), want, "tree " + what);
        double total = 0;
        for (const double b : sent(g)) total += b;
        EXPECT_NEAR(total, 2.0 * (n - 1) * s, 1e-6) << what;
      }
    }
  // Hierarchical, 3 nodes of 4: 2(m-1)/m S inside the node, 2(N-1)/N S/m across.
  std::vector<std::string> node;
  for (int r = 0; r < 12; ++r) node.push_back("box" + std::to_string(r / 4));
  TaskGraph g(12);
  add_collective(g, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Hierarchical, 12, s, 2),
                 uniform_platform(12, 1e-6, 1e9, node), {}, Task{});
  expect_sent(sent(g), std::vector<double>(12, 2.0 * 3 / 4 * s + 2.0 * 2 / 3 * s / 4), "hierarchical");
}

TEST(CollectiveGraph, DoubleBinaryTreesAreBinaryAndComplementary) {
  for (int n = 2; n <= 64; ++n) {
    const auto trees = collectives::double_binary_tree(n);
    std::vector<int> inner(n);
    for (const auto& parent : trees) {
      std::vector<int> children(n);
      int roots = 0;
      for (int r = 0; r < n; ++r) (parent[r] < 0 ? roots : children[parent[r]]) += 1;
      EXPECT_EQ(roots, 1) << n;
      EXPECT_LE(*std::max_element(children.begin(), children.end()), 2) << n;
      for (int r = 0; r < n; ++r) inner[r] += children[r] > 0;
      // A tree: every rank reaches the root.
      for (int r = 0; r < n; ++r) {
        int at = r, hops = 0;
        while (parent[at] >= 0 && hops <= n) at = parent[at], ++hops;
        EXPECT_LE(hops, n - 1) << n;
      }
    }
    // A rank is inner in at most one tree (for even n exactly; odd n shifts, which leaves one rank inner in both).
    const int both = static_cast<int>(std::count(inner.begin(), inner.end(), 2));
    EXPECT_LE(both, n % 2 == 0 ? 0 : 1) << n;
  }
  EXPECT_EQ(collectives::double_binary_tree(8)[0], (std::vector<int>{-1, 2, 4, 2, 0, 6, 4, 6}));
  EXPECT_EQ(collectives::double_binary_tree(8)[1], (std::vector<int>{1, 3, 1, 7, 5, 3, 5, -1}));
}

TEST(CollectiveGraph, TransfersCarryTheTagTheRecordAndEndInDoneMarkers) {
  const Platform p = uniform_platform(4, 1e-6, 1e9);
  TaskGraph g(4);
  Task before;
  before.device = 2;
  before.amount = 1e9;
  const TaskId compute = g.add(before);
  Task tag;
  tag.kind = TaskKind::Backward;  // ignored: the steps are transfers
  tag.stage = 3;
  tag.layer_first = 4;
  tag.layer_last = 7;
  tag.microbatch = 5;
  tag.iteration = 1;
  auto s = spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, 4, 1e6);
  s.group = {3, 1, 0, 2};
  s.purpose = "dp gradients";
  const CollectiveTasks first = add_collective(g, s, p, {{}, {}, {}, {compute}}, tag);
  ASSERT_EQ(g.collectives().size(), 1u);
  EXPECT_EQ(first.record, 0);
  const CollectiveRecord& record = g.collectives()[0];
  EXPECT_EQ(record.operation, "all-reduce");
  EXPECT_EQ(record.algorithm, "ring");
  EXPECT_EQ(record.purpose, "dp gradients");
  EXPECT_EQ(record.group, s.group);
  EXPECT_EQ(record.bytes, 1e6);
  ASSERT_EQ(first.done.size(), 4u);
  EXPECT_EQ(g.size(), 1u + 2 * 3 * 4 + 4);
  std::set<std::pair<int, int>> pairs;
  for (TaskId id = 1; id < g.size(); ++id) {
    const Task t = g.task(id);
    EXPECT_EQ(t.kind, TaskKind::Transfer);
    EXPECT_EQ(t.collective, 0);
    EXPECT_EQ(t.stage, 3);
    EXPECT_EQ(t.layer_first, 4);
    EXPECT_EQ(t.layer_last, 7);
    EXPECT_EQ(t.microbatch, 5);
    EXPECT_EQ(t.iteration, 1);
    if (t.device != t.peer) pairs.insert({t.device, t.peer});
  }
  // The ring follows the group's rank order.
  EXPECT_EQ(pairs, (std::set<std::pair<int, int>>{{3, 1}, {1, 0}, {0, 2}, {2, 3}}));
  for (int r = 0; r < 4; ++r) {
    const Task done = g.task(first.done[r]);
    EXPECT_EQ(done.device, s.group[r]);
    EXPECT_EQ(done.peer, s.group[r]);
    EXPECT_EQ(done.amount, 0);
  }
  // Rank 3 (device 2) sends only after the compute task: its first step depends on it.
  TaskId first_send = 0;
  for (TaskId id = 1; id < g.size() && !first_send; ++id)
    if (g.task(id).device == 2 && g.task(id).peer == 3) first_send = id;
  EXPECT_TRUE(std::find(g.deps_begin(first_send), g.deps_end(first_send), compute) != g.deps_end(first_send));
  EXPECT_TRUE(std::find(g.deps_begin(first.done[3]), g.deps_end(first.done[3]), compute) != g.deps_end(first.done[3]));

  // The same collective for the next micro-batch reuses the record.
  tag.microbatch = 6;
  const CollectiveTasks second = add_collective(g, s, p, {}, tag, first.record);
  EXPECT_EQ(second.record, 0);
  EXPECT_EQ(g.collectives().size(), 1u);
  EXPECT_EQ(g.task(second.done[0]).microbatch, 6);
  EXPECT_EQ(testing::error_message<std::invalid_argument>([&] { add_collective(g, s, p, {}, tag, 1); }),
            "collective record 1 does not exist");
  EXPECT_EQ(testing::error_message<std::invalid_argument>([&] {
              add_collective(g, s, p, {{}, {}}, tag);
            }),
            "the all-reduce has 4 ranks and 2 lists of ready tasks");
}

TEST(CollectiveGraph, OneRankAddsOnlyItsDoneMarker) {
  const Platform p = uniform_platform(3, 1e-6, 1e9);
  for (const auto op :
       {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather, CollectiveOp::Broadcast}) {
    TaskGraph g(3);
    Task compute;
    compute.device = 2;
    const TaskId before = g.add(compute);
    auto s = spec(op, CollectiveAlgorithm::Auto, 1, 1e9);
    s.group = {2};
    const CollectiveTasks tasks = add_collective(g, s, p, {{before}}, Task{});
    ASSERT_EQ(tasks.done.size(), 1u);
    EXPECT_EQ(g.size(), 2u);
    const Task done = g.task(tasks.done[0]);
    EXPECT_EQ(done.kind, TaskKind::Transfer);
    EXPECT_EQ(done.device, 2);
    EXPECT_EQ(done.peer, 2);
    EXPECT_EQ(std::vector<TaskId>(g.deps_begin(tasks.done[0]), g.deps_end(tasks.done[0])), std::vector<TaskId>{before});
    EXPECT_EQ(collective_closed_form(s, p), 0);
  }
}

TEST(CollectiveGraph, MissingRoutesAreRefused) {
  Platform p = uniform_platform(3, 1e-6, 1e9);
  p.paths[1 * 3 + 2].exists = false;
  TaskGraph g(3);
  const auto s = spec(CollectiveOp::AllGather, CollectiveAlgorithm::Ring, 3, 1e6);
  EXPECT_EQ(testing::error_message<std::invalid_argument>([&] { add_collective(g, s, p, {}, Task{}); }),
            "the all-gather needs a route from gpu1 to gpu2, and the platform has none");
  EXPECT_EQ(testing::error_message<std::invalid_argument>([&] { collective_closed_form(s, p); }),
            "the all-gather needs a route from gpu1 to gpu2, and the platform has none");
}

}  // namespace
}  // namespace pipesim
