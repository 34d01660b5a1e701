// Collectives through the real engine (SimGrid, one forked run per graph):
// on platforms where no two steps share a link the makespan is the closed
// form of docs/collectives.md to 1e-9; where groups share an uplink, it is
// what SimGrid's sharing gives, computed by hand.
#include <algorithm>
#include <cmath>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "collectives/collective.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/sim/engine/analytic_test_support.hpp"
#include "tests/collectives/collective_test_support.hpp"

namespace pipesim {
namespace {

using testing::boxes_platform_xml;
using testing::complete_platform;
using testing::simgrid_timeline;
using testing::write_file;

CollectiveSpec spec(CollectiveOp op, CollectiveAlgorithm algorithm, const std::vector<int>& group, double bytes,
                    int chunks = 1) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm;
  s.group = group;
  s.bytes = bytes;
  s.chunks = chunks;
  return s;
}

std::vector<int> ranks(int n) {
  std::vector<int> group(n);
  for (int r = 0; r < n; ++r) group[r] = r;
  return group;
}

// Runs the collective alone; checks every rank is done by the makespan and
// the last at it. Returns the makespan.
double simulate(Simulation& sim, const CollectiveSpec& s) {
  TaskGraph g(sim.platform().size());
  const CollectiveTasks tasks = add_collective(g, s, sim.platform(), {}, Task{});
  const Timeline tl = simgrid_timeline(sim, g);
  EXPECT_TRUE(tl.completed()) << tl.deadlock;
  double last = 0;
  for (const TaskId d : tasks.done) last = std::max(last, tl.finish[d]);
  EXPECT_DOUBLE_EQ(last, tl.makespan);
  return tl.makespan;
}

// The simulation, the closed form and the formula written out agree to 1e-9.
void expect_time(Simulation& sim, const CollectiveSpec& s, double formula, const std::string& what) {
  const double closed = collective_closed_form(s, sim.platform());
  EXPECT_NEAR(closed, formula, 1e-9 * formula) << what;
  EXPECT_NEAR(simulate(sim, s), formula, 1e-9 * formula) << what;
}

// alpha = 1 ms, B = 1 GB/s on every pair's own link; S = 1 GB.
constexpr double kAlpha = 1e-3, kB = 1e9, kS = 1e9;

TEST(CollectiveEngine, RingAllReduceReduceScatterAndAllGatherMeetTheirClosedForms) {
  Simulation sim(complete_platform(5, "1GBps", "1ms"));
  const double n = 5;
  // Patarasuk & Yuan: 2(n-1) alpha + 2(n-1)/n S/B; half of it for each half.
  expect_time(sim, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, ranks(5), kS),
              2 * (n - 1) * kAlpha + 2 * (n - 1) / n * kS / kB, "all-reduce");
  expect_time(sim, spec(CollectiveOp::ReduceScatter, CollectiveAlgorithm::Ring, ranks(5), kS),
              (n - 1) * kAlpha + (n - 1) / n * kS / kB, "reduce-scatter");
  expect_time(sim, spec(CollectiveOp::AllGather, CollectiveAlgorithm::Ring, ranks(5), kS),
              (n - 1) * kAlpha + (n - 1) / n * kS / kB, "all-gather");
  // Another rank order: the same ring time.
  expect_time(sim, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Auto, {4, 1, 3, 0, 2}, kS),
              2 * (n - 1) * kAlpha + 2 * (n - 1) / n * kS / kB, "shuffled all-reduce");
}

TEST(CollectiveEngine, ChunkedRingPaysOneLatencyPerChunkAndStep) {
  Simulation sim(complete_platform(5, "1GBps", "1ms"));
  const double n = 5, c = 4;
  expect_time(sim, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, ranks(5), kS, 4),
              2 * (n - 1) * c * kAlpha + 2 * (n - 1) / n * kS / kB, "all-reduce, 4 chunks");
  expect_time(sim, spec(CollectiveOp::AllGather, CollectiveAlgorithm::Ring, ranks(5), kS, 4),
              (n - 1) * c * kAlpha + (n - 1) / n * kS / kB, "all-gather, 4 chunks");
}

TEST(CollectiveEngine, BroadcastAlongTheChainIsPipelinedByChunks) {
  Simulation sim(complete_platform(5, "1GBps", "1ms"));
  const double n = 5;
  for (const int c : {1, 4}) {
    auto s = spec(CollectiveOp::Broadcast, CollectiveAlgorithm::Auto, ranks(5), kS, c);
    s.root = 2;
    // (n - 1 + c - 1) (alpha + S/(cB)): the last chunk leaves c - 1 steps after the first.
    expect_time(sim, s, (n - 1 + c - 1) * (kAlpha + kS / c / kB), "broadcast, chunks " + std::to_string(c));
  }
}

TEST(CollectiveEngine, DoubleBinaryTreeMeetsItsClosedForm) {
  Simulation sim(complete_platform(8, "1GBps", "1ms"));
  // 8 ranks: both trees are 3 high (0 - 4 - 2 - 1 and its mirror).
  const double height = 3;
  for (const int c : {1, 4})
    expect_time(sim, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Tree, ranks(8), kS, c),
                (2 * height + c - 1) * (kAlpha + kS / (2.0 * c) / kB), "tree, chunks " + std::to_string(c));
}

TEST(CollectiveEngine, HierarchicalAllReduceIsTheSumOfItsThreePhases) {
  // 2 boxes x 4 GPUs: 10 GB/s and 10 us inside a box, 1 GB/s and 1 ms between.
  Simulation sim(write_file("boxes-2x4.xml", boxes_platform_xml(2, 4, "10GBps", "10us", "1GBps", "1ms")));
  const double m = 4, nodes = 2, ai = 1e-5, bi = 1e10;
  for (const int c : {1, 2})
    expect_time(sim, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Hierarchical, ranks(8), kS, c),
                2 * c * (m - 1) * ai + 2 * (m - 1) / m * kS / bi +                         // in the box, there and back
                    2 * c * (nodes - 1) * kAlpha + 2 * (nodes - 1) / nodes * kS / m / kB,  // S/m across
                "hierarchical, chunks " + std::to_string(c));
}

TEST(CollectiveEngine, RingAcrossBoxesRunsAtItsSlowestStep) {
  Simulation sim(write_file("boxes-2x4.xml", boxes_platform_xml(2, 4, "10GBps", "10us", "1GBps", "1ms")));
  // Two of the eight ring steps cross boxes: every round waits for them.
  expect_time(sim, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, ranks(8), kS),
              2 * 7 * (kAlpha + kS / 8 / kB), "ring across boxes");
}

TEST(CollectiveEngine, OnOneLinkPerGpuTheRingIsContentionFreeAndTheTreesChildrenShareTheirParentsLink) {
  // platforms/nvswitch-4gpu.xml: each GPU has its own 300 GB/s, 1 us split-duplex NVLink to one switch.
  Simulation sim(std::string(PIPESIM_SOURCE_DIR) + "/platforms/nvswitch-4gpu.xml");
  const double s = 3e9, b = 300e9, hop = 2e-6;  // a path: two links
  // The ring sends one flow up and receives one flow down each GPU's link: its closed form.
  expect_time(sim, spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, ranks(4), s), 6 * (hop + s / 4 / b),
              "ring");
  // Tree 0 is 0 - 2 - {1, 3}, tree 1 is 3 - 1 - {2, 0}: 4 steps of S/2, contention-free 4 (2 us + S/(2B)).
  const auto tree = spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Tree, ranks(4), s);
  EXPECT_NEAR(collective_closed_form(tree, sim.platform()), 4 * (hop + s / 2 / b), 1e-15);
  // On the platform, the leaves' first steps (1 and 3 -> 2; 2 and 0 -> 1)
  // share gpu2's and gpu1's link down, and the last (2 -> 1 and 3; 1 -> 2
  // and 0) their links up: those two steps run at B/2, S/B each.
  const double shared = 4 * hop + s / b + s / (2 * b) + s / (2 * b) + s / b;
  EXPECT_NEAR(simulate(sim, tree), shared, 1e-9 * shared);
}

// Two boxes of two GPUs, each GPU on its own 100 GB/s link to its box, the
// boxes joined by one 1 GB/s, 1 ms split-duplex uplink.
std::string uplink_platform() {
  testing::PlatformXml x;
  const std::vector<std::string> hosts = {"a0", "a1", "b0", "b1"};
  for (const auto& h : hosts) x.host(h, "1Tf", {{"memory", "1TiB"}, {"node", "box" + h.substr(0, 1)}});
  for (const auto& h : hosts) x.link(h + "-link", "100GBps", "0s", "SPLITDUPLEX");
  x.link("uplink", "1GBps", "1ms", "SPLITDUPLEX");
  for (std::size_t i = 0; i < hosts.size(); ++i)
    for (std::size_t j = i + 1; j < hosts.size(); ++j) {
      std::vector<testing::LinkUse> route = {{hosts[i] + "-link", "UP"}};
      if (hosts[i][0] != hosts[j][0]) route.push_back({"uplink", "UP"});
      route.push_back({hosts[j] + "-link", "DOWN"});
      x.route(hosts[i], hosts[j], route);
    }
  return x.write("uplink.xml");
}

TEST(CollectiveEngine, TwoAllReducesSharingAnUplinkTakeWhatSimGridsSharingGives) {
  Simulation sim(uplink_platform());
  const Platform& p = sim.platform();
  const int a0 = p.find("a0"), a1 = p.find("a1"), b0 = p.find("b0"), b1 = p.find("b1");
  const auto first = spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, {a0, b0}, kS);
  const auto second = spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, {a1, b1}, kS);
  // Alone: two steps of S/2 each way, 1 ms + 0.5 s each.
  const double alone = 2 * (kAlpha + kS / 2 / kB);
  EXPECT_NEAR(collective_closed_form(first, p), alone, 1e-9 * alone);
  EXPECT_NEAR(simulate(sim, first), alone, 1e-9 * alone);
  // Together: in each step both groups send S/2 from box a to box b through
  // the uplink's one direction (and S/2 back through the other): max-min
  // fair sharing gives each flow B/2, so a step takes 1 ms + (S/2)/(B/2).
  TaskGraph g(p.size());
  const CollectiveTasks x = add_collective(g, first, p, {}, Task{});
  const CollectiveTasks y = add_collective(g, second, p, {}, Task{});
  const Timeline tl = simgrid_timeline(sim, g);
  ASSERT_TRUE(tl.completed());
  const double shared = 2 * (kAlpha + kS / 2 / (kB / 2));
  for (const TaskId d : {x.done[0], x.done[1], y.done[0], y.done[1]}) EXPECT_NEAR(tl.finish[d], shared, 1e-9 * shared);
  EXPECT_EQ(g.collectives().size(), 2u);
}

}  // namespace
}  // namespace pipesim
