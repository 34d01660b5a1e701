// placement.partition's two rules: Megatron-LM's even split and the
// balanced one (schedules/stages/stage_split.hpp), against brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

#include "schedules/stages/partition.hpp"
#include "schedules/stages/stage_split.hpp"
#include "tests/support/platform_table.hpp"

namespace pipesim {
namespace {

// Devices of 1 flop/s without latency, so a layer's cost is its seconds; a
// wide link makes the boundary transfers next to nothing.
Platform unit_platform(int devices) {
  Platform p = testing::table_platform(devices, {1, 16e9, 0, 1e18});
  return p;
}

// A chain with the given forward seconds (backward twice as long); KINDS
// names each layer's op ("embedding", "block", "head") or "" for none.
Workload chain(const std::vector<double>& forward, const std::vector<std::string>& kinds = {}) {
  Workload w;
  w.file = "work.yaml";
  w.reference_speed = 1;
  for (std::size_t l = 0; l < forward.size(); ++l) {
    Layer layer{"l" + std::to_string(l), {forward[l], false}, {2 * forward[l], false}, 1, 0};
    if (l < kinds.size() && !kinds[l].empty()) {
      layer.ops.emplace();
      layer.ops->forward.key = kinds[l] + ".forward";
    }
    w.layers.push_back(layer);
  }
  return w;
}

// A model's chain: an embedding of E, N blocks of 1 and a head of H (forward seconds).
Workload model_chain(int blocks, double embedding, double head) {
  std::vector<double> forward = {embedding};
  std::vector<std::string> kinds = {"embedding"};
  for (int b = 0; b < blocks; ++b) forward.push_back(1), kinds.push_back("block");
  forward.push_back(head), kinds.push_back("head");
  return chain(forward, kinds);
}

// The busiest device's forward + backward seconds under LAYERS.
double busiest(const Workload& w, const StageLayers& layers, const std::vector<int>& device) {
  std::vector<double> load(*std::max_element(device.begin(), device.end()) + 1, 0);
  for (std::size_t s = 0; s < layers.size(); ++s)
    for (int l = layers[s].first; l <= layers[s].second; ++l)
      load[device[s]] += w.layers[l].forward.value + w.layers[l].backward.value;
  return *std::max_element(load.begin(), load.end());
}

// The least busiest-device load over every contiguous partition into S non-empty stages.
double brute_force(const Workload& w, const std::vector<int>& device) {
  const int S = static_cast<int>(device.size()), L = static_cast<int>(w.layers.size());
  double best = std::numeric_limits<double>::infinity();
  StageLayers layers(S);
  const auto place = [&](auto&& self, int s, int first) -> void {
    if (s + 1 == S) {
      layers[s] = {first, L - 1};
      best = std::min(best, busiest(w, layers, device));
      return;
    }
    for (int last = first; last <= L - (S - s); ++last) {
      layers[s] = {first, last};
      self(self, s + 1, last + 1);
    }
  };
  place(place, 0, 0);
  return best;
}

// Interleaved (stage s on rank s mod R) and V (stage s on s, then 2R-1-s) placements.
std::vector<int> interleaved(int ranks, int per_rank) {
  std::vector<int> device;
  for (int s = 0; s < ranks * per_rank; ++s) device.push_back(s % ranks);
  return device;
}
std::vector<int> v_shape(int ranks) {
  std::vector<int> device;
  for (int s = 0; s < 2 * ranks; ++s) device.push_back(s < ranks ? s : 2 * ranks - 1 - s);
  return device;
}

TEST(StageSplit, EvenIsMegatronsSplitWhenTheStagesDivideTheBlocks) {
  const Workload w = model_chain(8, 0.1, 0.5);  // 10 layers: embedding, 8 blocks, head
  EXPECT_EQ(even_stage_layers(w, 4), (StageLayers{{0, 2}, {3, 4}, {5, 6}, {7, 9}}));
  // 8 blocks do not divide into 3: equal counts of the whole chain, as PyTorch's split.
  EXPECT_EQ(even_stage_layers(w, 3), (StageLayers{{0, 2}, {3, 5}, {6, 9}}));
  EXPECT_EQ(even_stage_layers(chain({1, 1, 1, 1}), 2), (StageLayers{{0, 1}, {2, 3}}));
}

TEST(StageSplit, OneStagePerDeviceIsPipeDreamsMinMaxPartition) {
  const Workload w = chain({3, 1, 1, 1, 1, 1, 2});
  const std::vector<int> device = {0, 1, 2};
  PartitionProblem pb;
  for (int s = 0; s < 3; ++s) {
    pb.layer_seconds.emplace_back();
    for (const Layer& l : w.layers) pb.layer_seconds.back().push_back(l.forward.value + l.backward.value);
  }
  pb.boundary_seconds.assign(2, std::vector<double>(w.layers.size(), 2e-18));
  const std::vector<int> last = partition_chain(pb).last_layer;
  const StageLayers layers = balanced_stage_layers(w, unit_platform(3), device);
  ASSERT_EQ(layers.size(), 3u);
  for (int s = 0; s < 3; ++s) EXPECT_EQ(layers[s].second, last[s]);
  EXPECT_DOUBLE_EQ(busiest(w, layers, device), 12);  // 3 | 1 1 1 1 | 1 2, or as good: the first layer's 9 s and 3 more
}

// The closed form: a V over 2 ranks puts the embedding's and the head's
// stages on rank 0, so rank 0 takes k blocks with them and rank 1 the other
// 12 - k; max(3(0.01 + 2 + k), 3(12 - k)) is least at k = 5 (21.03 s).
TEST(StageSplit, AVShapedPipelineGivesTheEndsRankFewerBlocks) {
  const Workload w = model_chain(12, 0.01, 2);
  const std::vector<int> device = v_shape(2);
  const StageLayers even = even_stage_layers(w, 4);
  EXPECT_DOUBLE_EQ(busiest(w, even, device), 3 * 2.01 + 3 * 6);  // 3 blocks a stage: rank 0 has 6 and the head
  const StageLayers balanced = balanced_stage_layers(w, unit_platform(2), device);
  EXPECT_NEAR(busiest(w, balanced, device), 3 * (2.01 + 5), 1e-12);
  EXPECT_NEAR(busiest(w, balanced, device), brute_force(w, device), 1e-12);
}

// On chains of a model (embedding, blocks, head of 0 to 3 blocks), every
// interleaved and V placement reaches the best partition brute force finds;
// on random chains, never worse than the even split or PipeDream's partition.
TEST(StageSplit, BalancedReachesTheBestPartitionOfModelChains) {
  int cases = 0;
  for (int ranks = 2; ranks <= 3; ++ranks)
    for (int blocks = 2 * ranks; blocks <= 10; ++blocks)
      for (const double head : {0.0, 0.4, 1.7, 3.0})
        for (const auto& device : {interleaved(ranks, 2), v_shape(ranks)}) {
          if (static_cast<int>(device.size()) > blocks + 2) continue;
          const Workload w = model_chain(blocks, 0.02, head);
          const StageLayers layers = balanced_stage_layers(w, unit_platform(ranks), device);
          EXPECT_NEAR(busiest(w, layers, device), brute_force(w, device), 1e-9)
              << ranks << " ranks, " << blocks << " blocks, head " << head;
          ++cases;
        }
  EXPECT_GE(cases, 60);
}

TEST(StageSplit, BalancedIsNeverWorseThanEvenOnRandomChains) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    const int ranks = std::uniform_int_distribution<int>(2, 3)(rng);
    const std::vector<int> device = seed % 2 ? v_shape(ranks) : interleaved(ranks, 2);
    const int L = std::uniform_int_distribution<int>(static_cast<int>(device.size()), 11)(rng);
    std::vector<double> forward(L);
    for (double& x : forward) x = std::uniform_real_distribution<double>(0.05, 1.0)(rng);
    const Workload w = chain(forward);
    const double got = busiest(w, balanced_stage_layers(w, unit_platform(ranks), device), device);
    EXPECT_LE(got, busiest(w, even_stage_layers(w, static_cast<int>(device.size())), device) + 1e-12) << seed;
    EXPECT_GE(got, brute_force(w, device) - 1e-12) << seed;
  }
}

}  // namespace
}  // namespace pipesim
