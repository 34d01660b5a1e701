// Which algorithm a collective runs: names, `auto`'s choice, and the
// refusals of algorithms impossible for the group (collectives/collective.hpp).
#include <gtest/gtest.h>

#include "collectives/collective.hpp"
#include "tests/collectives/collective_test_support.hpp"

namespace pipesim {
namespace {

using testing::uniform_platform;

CollectiveSpec spec(CollectiveOp op, CollectiveAlgorithm algorithm, int n, double bytes) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm;
  s.bytes = bytes;
  for (int r = 0; r < n; ++r) s.group.push_back(r);
  return s;
}

std::vector<std::string> boxes(int n, int per_box) {
  std::vector<std::string> node;
  for (int r = 0; r < n; ++r) node.push_back("box" + std::to_string(r / per_box));
  return node;
}

std::string refusal(const CollectiveSpec& s, const Platform& p) {
  return testing::error_message<std::invalid_argument>([&] { choose_algorithm(s, p); });
}

TEST(CollectiveChoice, NamesRoundTrip) {
  for (const auto a : {CollectiveAlgorithm::Auto, CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree,
                       CollectiveAlgorithm::Hierarchical})
    EXPECT_EQ(parse_collective_algorithm(to_string(a)), a);
  EXPECT_EQ(parse_collective_algorithm("Ring"), std::nullopt);
  EXPECT_EQ(parse_collective_algorithm("nvls"), std::nullopt);
  EXPECT_EQ(to_string(CollectiveOp::AllReduce), "all-reduce");
  EXPECT_EQ(to_string(CollectiveOp::ReduceScatter), "reduce-scatter");
  EXPECT_EQ(to_string(CollectiveOp::AllGather), "all-gather");
  EXPECT_EQ(to_string(CollectiveOp::Broadcast), "broadcast");
}

TEST(CollectiveChoice, OneNodeOrNodesUnknownRunsARing) {
  const Platform one_box = uniform_platform(8, 1e-6, 1e10, boxes(8, 8));
  const Platform unknown = uniform_platform(8, 1e-6, 1e10);
  for (const double bytes : {1.0, 1e3, 1e9}) {
    EXPECT_EQ(choose_algorithm(spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Auto, 8, bytes), one_box),
              CollectiveAlgorithm::Ring);
    EXPECT_EQ(choose_algorithm(spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Auto, 8, bytes), unknown),
              CollectiveAlgorithm::Ring);
  }
}

TEST(CollectiveChoice, AcrossNodesSmallAllReducesRunATreeLargeOnesARing) {
  // 16 ranks, 2 boxes: the double binary tree is 4 high, so the threshold is
  // n (n - 1 - H) alpha B = 16 x 11 x 5 us x 10 GB/s = 8.8 MB.
  const Platform p = uniform_platform(16, 5e-6, 1e10, boxes(16, 8));
  auto s = spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Auto, 16, 0);
  EXPECT_NEAR(tree_threshold_bytes(s, p), 8.8e6, 1e-3);
  for (const double bytes : {0.0, 1e3, 1e6, 8.7e6}) {
    s.bytes = bytes;
    EXPECT_EQ(choose_algorithm(s, p), CollectiveAlgorithm::Tree) << bytes;
  }
  for (const double bytes : {8.9e6, 1e8, 1e10}) {
    s.bytes = bytes;
    EXPECT_EQ(choose_algorithm(s, p), CollectiveAlgorithm::Ring) << bytes;
  }
  // Only all-reduce has a tree: the other operations run rings at any size.
  for (const auto op : {CollectiveOp::ReduceScatter, CollectiveOp::AllGather, CollectiveOp::Broadcast})
    EXPECT_EQ(choose_algorithm(spec(op, CollectiveAlgorithm::Auto, 16, 1e3), p), CollectiveAlgorithm::Ring);
  // Two ranks: a tree sends twice the bytes of the ring for the same latency.
  EXPECT_EQ(choose_algorithm(spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Auto, 2, 1),
                             uniform_platform(2, 5e-6, 1e10, {"a", "b"})),
            CollectiveAlgorithm::Ring);
}

TEST(CollectiveChoice, AskedAlgorithmsAreKeptWhenPossible) {
  const Platform p = uniform_platform(8, 1e-6, 1e10, boxes(8, 4));
  EXPECT_EQ(choose_algorithm(spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, 8, 1), p),
            CollectiveAlgorithm::Ring);
  EXPECT_EQ(choose_algorithm(spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Tree, 8, 1e12), p),
            CollectiveAlgorithm::Tree);
  EXPECT_EQ(choose_algorithm(spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Hierarchical, 8, 1), p),
            CollectiveAlgorithm::Hierarchical);
  EXPECT_EQ(choose_algorithm(spec(CollectiveOp::AllGather, CollectiveAlgorithm::Ring, 8, 1), p),
            CollectiveAlgorithm::Ring);
}

TEST(CollectiveChoice, ImpossibleAlgorithmsAreRefusedWithTheReason) {
  const Platform no_nodes = uniform_platform(4, 1e-6, 1e10);
  EXPECT_EQ(refusal(spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Hierarchical, 4, 1), no_nodes),
            "hierarchical all-reduce needs the node of every device of the group (host property node), and gpu0 "
            "has none");
  const Platform uneven = uniform_platform(5, 1e-6, 1e10, {"box0", "box0", "box0", "box1", "box1"});
  EXPECT_EQ(refusal(spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Hierarchical, 5, 1), uneven),
            "hierarchical all-reduce needs as many ranks in every node, and node box0 holds 3 of the group while "
            "box1 holds 2");
  const Platform p = uniform_platform(4, 1e-6, 1e10, boxes(4, 2));
  EXPECT_EQ(refusal(spec(CollectiveOp::AllGather, CollectiveAlgorithm::Tree, 4, 1), p),
            "the tree algorithm runs only all-reduce (NCCL runs all-gather as a ring)");
  EXPECT_EQ(refusal(spec(CollectiveOp::Broadcast, CollectiveAlgorithm::Hierarchical, 4, 1), p),
            "the hierarchical algorithm runs only all-reduce, not a broadcast");
}

TEST(CollectiveChoice, MalformedSpecsAreRefused) {
  const Platform p = uniform_platform(4, 1e-6, 1e10);
  auto s = spec(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, 0, 1);
  EXPECT_EQ(refusal(s, p), "the all-reduce's group is empty: it needs at least one device");
  s.group = {0, 7};
  EXPECT_EQ(refusal(s, p), "the all-reduce's group names device 7, and the platform has 4");
  s.group = {0, 2, 2};
  EXPECT_EQ(refusal(s, p), "the all-reduce's group holds device gpu2 twice");
  s.group = {0, 1};
  s.chunks = 0;
  EXPECT_EQ(refusal(s, p), "the all-reduce is split into 0 chunks: at least 1");
  s.chunks = 1;
  s.bytes = -1;
  EXPECT_NE(refusal(s, p).find("a size must be finite and not negative"), std::string::npos);
  s = spec(CollectiveOp::Broadcast, CollectiveAlgorithm::Ring, 3, 1);
  s.root = 3;
  EXPECT_EQ(refusal(s, p), "the broadcast's root is rank 3, and its group has 3 ranks");
}

}  // namespace
}  // namespace pipesim
