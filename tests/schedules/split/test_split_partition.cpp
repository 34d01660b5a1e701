// Seed 004 §IV-B: Algorithm 1 (greedy feasibility, binary search on the
// limit) against the exact min-max partition of eq. 1, and the errors of
// bad workers and chains.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "schedules/split/split_model.hpp"
#include "schedules/split/split_partition.hpp"
#include "schedules/split/split_partition_internal.hpp"
#include "tests/schedules/split/test_split_random.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::split {
namespace {

using testing::SplitRng;
constexpr double kInf = std::numeric_limits<double>::infinity();

// A worker with m resources and per-layer times drawn independently per
// resource (so the forward/backward ratio differs between resources and
// Theorem 1 does not apply), §VI style.
WorkerProfile random_worker(SplitRng& rng, int layers, int m, double bandwidth) {
  TimeTable table;
  Device worker{"w", {}};
  for (int j = 0; j < m; ++j) {
    const std::string type = "r" + std::to_string(j);
    LayerTimes& t = table[type];
    for (int l = 0; l < layers; ++l) {
      const double f = rng.uniform(0.1, 1.0);
      t.forward.push_back(f);
      t.backward.push_back(f * rng.uniform(1.0, 3.0));
    }
    worker.resources.push_back({type, 0, 0});
  }
  std::vector<double> bytes;
  for (int l = 0; l < layers; ++l) bytes.push_back(rng.uniform(0.0, 1.0));
  return profile_from_table(worker, table, bytes, bandwidth);
}

// Every partition into at most `workers` stages.
double brute_force_period(const StageCosts& costs, int workers) {
  const int L = costs.layers();
  double best = kInf;
  // Bit l set: a stage ends after layer l (l < L - 1).
  for (unsigned cuts = 0; cuts < (1u << (L - 1)); ++cuts) {
    if (__builtin_popcount(cuts) + 1 > workers) continue;
    std::vector<int> last;
    for (int l = 0; l + 1 < L; ++l)
      if (cuts >> l & 1u) last.push_back(l);
    last.push_back(L - 1);
    best = std::min(best, partition_period(costs, last));
  }
  return best;
}

TEST(SplitPartition, ExactPartitionEqualsBruteForce) {
  SplitRng rng(4101);
  for (int trial = 0; trial < 200; ++trial) {
    const int L = rng.integer(1, 10);
    const int q = rng.integer(1, 5);
    const double bandwidth = trial % 2 ? kInf : rng.uniform(0.5, 5.0);
    const WorkerProfile w = random_worker(rng, L, rng.integer(1, 3), bandwidth);
    const SplitPartition exact = exact_partition(w, q);
    const StageCosts costs(w);
    EXPECT_NEAR(exact.period, brute_force_period(costs, q), 1e-12) << "trial " << trial;
    EXPECT_DOUBLE_EQ(partition_period(costs, exact.last_layer), exact.period);
    EXPECT_LE(static_cast<int>(exact.last_layer.size()), q);
    EXPECT_EQ(exact.last_layer.back(), L - 1);
  }
}

// Without communication a stage's cost only grows when layers are added, so
// the greedy check is exact and Algorithm 1 lands within epsilon.
TEST(SplitPartition, Algorithm1WithinEpsilonOfOptimumOn200RandomChains) {
  SplitRng rng(4102);
  const double eps = 1e-4;
  int probes = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int L = rng.integer(2, 30);
    const WorkerProfile w = random_worker(rng, L, rng.integer(1, 3), kInf);
    const int q = rng.integer(1, 6);
    const double optimum = exact_partition(w, q).period;
    const Algorithm1Result r = algorithm1_partition(w, q, eps);
    EXPECT_GE(r.partition.period, optimum - 1e-12) << "trial " << trial;
    EXPECT_LE(r.partition.period, r.limit) << "trial " << trial;
    EXPECT_LT(r.limit, optimum + eps) << "trial " << trial;
    EXPECT_LE(static_cast<int>(r.partition.last_layer.size()), q);
    probes += r.probes;
  }
  // 33.6 feasibility checks per chain: once x >= optimum every probe is
  // feasible and the paper's loop (until x = y) halves y - x down to
  // adjacent doubles (docs/mobile.md).
  EXPECT_EQ(probes, 6720);
}

// h(p_i, b) depends on where a stage starts and ends, not only on its
// length, so the longest feasible first stage can leave the next one a
// heavy gradient to send. Chain of 5 layers, one resource (1 s forward and
// 1 s backward per layer: 2 s per layer with beta = 1/2), 3 workers,
// 1 byte/s, activations 0.5, 3, 2, 2 bytes after layers 0..3.
TEST(SplitPartition, Algorithm1MissesTheOptimumWhenCommunicationCounts) {
  const TimeTable table{{"cpu", {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}}}};
  const WorkerProfile w = profile_from_table({"pi", {{"cpu", 0, 0}}}, table, {0.5, 3, 2, 2, 0}, 1.0);
  const SplitPartition exact = exact_partition(w, 3);
  EXPECT_EQ(exact.last_layer, (std::vector<int>{0, 2, 4}));  // h: 0.5, 2.5, 2; compute 2, 4, 4
  EXPECT_DOUBLE_EQ(exact.period, 4);
  const StageCosts costs(w);
  EXPECT_TRUE(greedy_partition(costs, 3, 4.5).empty());  // [0,1] then [2] or [2,3] send 5 bytes
  const Algorithm1Result r = algorithm1_partition(w, 3, 1e-6);
  EXPECT_EQ(r.partition.last_layer, (std::vector<int>{1, 3, 4}));
  EXPECT_DOUBLE_EQ(r.partition.period, 5);
  EXPECT_GE(r.limit, 5);
  EXPECT_LT(r.limit, 5 + 1e-6);
}

// How often that happens on random chains with communication.
TEST(SplitPartition, Algorithm1GapOnRandomChainsWithCommunication) {
  SplitRng rng(4103);
  const double eps = 1e-4;
  int missed = 0;
  double worst = 1;
  for (int trial = 0; trial < 200; ++trial) {
    const int L = rng.integer(2, 30);
    const WorkerProfile w = random_worker(rng, L, rng.integer(1, 3), rng.uniform(0.5, 5.0));
    const int q = rng.integer(1, 6);
    const double optimum = exact_partition(w, q).period;
    const Algorithm1Result r = algorithm1_partition(w, q, eps);
    EXPECT_GE(r.partition.period, optimum - 1e-12);
    if (r.partition.period > optimum + eps) ++missed, worst = std::max(worst, r.partition.period / optimum);
  }
  std::cout << "Algorithm 1 with communication: " << missed << " of 200 chains above optimum + eps, worst ratio "
            << worst << "\n";
  EXPECT_EQ(missed, 1);
  EXPECT_NEAR(worst, 1.0275, 1e-4);
}

// Under the max reading of h (each send its own operation, on links of
// its own), a stage's cost is the largest of its compute and the two
// tensors crossing its cuts, each a property of one cut: a cut is allowed
// at a limit or not, whatever the stages around it, and the longest-first
// greedy is again never behind any feasible partition (docs/mobile.md,
// "Communication"). So Algorithm 1 is within epsilon of the optimum with
// communication too: the chains of the test above, every one.
TEST(SplitPartition, Algorithm1WithinEpsilonWithCommunicationWhenSendsOverlap) {
  SplitRng rng(4103);
  const double eps = 1e-4;
  int communication_bound = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int L = rng.integer(2, 30);
    WorkerProfile w = random_worker(rng, L, rng.integer(1, 3), rng.uniform(0.5, 5.0));
    w.sends = SendOverlap::Max;
    const int q = rng.integer(1, 6);
    const SplitPartition optimum = exact_partition(w, q);
    const Algorithm1Result r = algorithm1_partition(w, q, eps);
    EXPECT_GE(r.partition.period, optimum.period - 1e-12) << trial;
    EXPECT_LT(r.partition.period, optimum.period + eps) << trial;
    const StageCosts costs(w);
    for (std::size_t s = 0, first = 0; s < optimum.last_layer.size(); first = optimum.last_layer[s++] + 1)
      if (costs.communication(static_cast<int>(first), optimum.last_layer[s]) == optimum.period) ++communication_bound;
  }
  EXPECT_GT(communication_bound, 0);  // the communication term did decide some optima
}

// The counterexample above under the max reading: the cut after layer 1
// (3 bytes) is never allowed below 3 s, and the greedy finds the optimum.
TEST(SplitPartition, Algorithm1FindsTheCounterexamplesOptimumWhenSendsOverlap) {
  const TimeTable table{{"cpu", {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}}}};
  WorkerProfile w = profile_from_table({"pi", {{"cpu", 0, 0}}}, table, {0.5, 3, 2, 2, 0}, 1.0);
  w.sends = SendOverlap::Max;
  const SplitPartition exact = exact_partition(w, 3);
  EXPECT_EQ(exact.last_layer, (std::vector<int>{0, 2, 4}));  // h: 0.5, 2, 2; compute 2, 4, 4
  EXPECT_DOUBLE_EQ(exact.period, 4);
  const Algorithm1Result r = algorithm1_partition(w, 3, 1e-6);
  EXPECT_DOUBLE_EQ(r.partition.period, 4);
  EXPECT_LT(r.limit, 4 + 1e-6);
}

TEST(SplitPartition, GapShrinksWithEpsilon) {
  SplitRng rng(4104);
  const WorkerProfile w = random_worker(rng, 24, 2, kInf);
  const std::vector<EpsilonGap> gaps = algorithm1_gap(w, 4, {1, 0.1, 0.01, 1e-3, 1e-6});
  ASSERT_EQ(gaps.size(), 5u);
  for (std::size_t i = 0; i < gaps.size(); ++i) {
    std::cout << "eps " << gaps[i].epsilon << ": limit " << gaps[i].limit << ", period " << gaps[i].period
              << ", optimum " << gaps[i].optimum << ", probes " << gaps[i].probes << "\n";
    EXPECT_GE(gaps[i].gap(), -1e-12);
    EXPECT_LT(gaps[i].limit - gaps[i].optimum, gaps[i].epsilon);
  }
  // x jumps to mid + epsilon, so the probe count is not monotone in epsilon.
  EXPECT_EQ(gaps[0].probes, 5);
  EXPECT_EQ(gaps[4].probes, 24);
  EXPECT_GT(gaps[0].limit - gaps[0].optimum, 0.09);
  EXPECT_LT(gaps[4].limit - gaps[4].optimum, 1e-5);
}

template <typename F>
std::string error_of(F f) {
  return pipesim::testing::error_message<std::invalid_argument>(f);
}

TEST(SplitPartition, BadInputsThrowWithClearMessages) {
  const std::vector<Layer> chain{{1e9, 2e9, 1e6}, {1e9, 2e9, 1e6}};
  const Device phone{"phone", {{"cpu", 1e9, 1e9}, {"npu", 4e9, 0}}};
  const WorkerProfile w = profile_from_speeds(phone, chain, 1e6);
  EXPECT_EQ(error_of([&] { exact_partition(w, 0); }), "partition: workers must be >= 1, got 0");
  EXPECT_EQ(error_of([&] { algorithm1_partition(w, 2, 0); }), "partition: epsilon must be > 0, got 0");
  EXPECT_EQ(error_of([&] {
              profile_from_speeds({"npu-only", {{"npu", 4e9, 0}}}, chain, 1e6);
            }),
            "device 'npu-only': no resource can run the backward pass (zero speed)");
  EXPECT_EQ(error_of([&] {
              profile_from_speeds({"dead", {{"gpu", 0, 1e9}}}, chain, 1e6);
            }),
            "device 'dead': no resource can run the forward pass (zero speed)");
  EXPECT_EQ(error_of([&] {
              profile_from_speeds({"p", {{"cpu", -1, 1}}}, chain, 1e6);
            }),
            "device 'p': resource 'cpu': forward_speed must be finite and >= 0, got -1");
  EXPECT_EQ(error_of([&] {
              profile_from_speeds({"p", {{"cpu", 1, kInf}}}, chain, 1e6);
            }),
            "device 'p': resource 'cpu': backward_speed must be finite and >= 0, got inf");
  EXPECT_EQ(error_of([&] {
              profile_from_speeds({"p", {{"cpu", 1, 1}, {"cpu", 2, 2}}}, chain, 1e6);
            }),
            "device 'p': resource 'cpu': listed twice");
  EXPECT_EQ(error_of([&] { profile_from_speeds({"p", {}}, chain, 1e6); }), "device 'p': no resource");
  EXPECT_EQ(error_of([&] { profile_from_speeds(phone, {}, 1e6); }), "chain: no layer");
  EXPECT_EQ(error_of([&] {
              profile_from_speeds(phone, {{0, 1, 1}}, 1e6);
            }),
            "layer 0: forward_flops and backward_flops must be > 0");
  EXPECT_EQ(error_of([&] { profile_from_speeds(phone, chain, 0); }), "bandwidth must be > 0 (infinity: free), got 0");
  const TimeTable table{{"cpu", {{1, 1}, {2, 2}}}, {"gpu", {{0.1, 0.1}, {0.2, 0.2}}}};
  EXPECT_EQ(error_of([&] {
              profile_from_table({"laptop", {{"npu", 0, 0}}}, table, {1, 1}, 1);
            }),
            "device 'laptop': resource 'npu': unknown resource type (the time table has: cpu, gpu)");
  EXPECT_EQ(error_of([&] {
              profile_from_table({"laptop", {{"cpu", 0, 0}}}, table, {1, 1, 1}, 1);
            }),
            "time table 'cpu': 2 forward and 2 backward times for 3 layers");
  const TimeTable zero{{"cpu", {{1, 0}, {2, 2}}}};
  EXPECT_EQ(error_of([&] {
              profile_from_table({"laptop", {{"cpu", 0, 0}}}, zero, {1, 1}, 1);
            }),
            "time table 'cpu': layer 1: forward and backward times must be > 0");
}

// The phone of the message test: its NPU only runs forward, so the CPU
// takes the backward pass.
TEST(SplitPartition, ForwardOnlyResourceTakesTheForwardPass) {
  const std::vector<Layer> chain{{1e9, 2e9, 1e6}, {1e9, 2e9, 1e6}};
  const WorkerProfile w = profile_from_speeds({"phone", {{"cpu", 1e9, 1e9}, {"npu", 4e9, 0}}}, chain, 1e6);
  const StageCosts costs(w);
  const Allocation a = optimal_allocation(costs.rates(0, 1));
  EXPECT_DOUBLE_EQ(a.beta[0], 0);
  // The whole NPU would take 0.5 s, the CPU 4 s backward: an eighth of the
  // NPU balances them (Lemma 1), the rest idles.
  EXPECT_DOUBLE_EQ(a.beta[1], 0.125);
  EXPECT_DOUBLE_EQ(a.forward_seconds, 4.0);
  EXPECT_DOUBLE_EQ(a.backward_seconds, 4.0);
  EXPECT_DOUBLE_EQ(costs.cost(0, 1), 4.0);
  EXPECT_DOUBLE_EQ(costs.communication(0, 0), 1.0);  // 1 MB at 1 MB/s
  EXPECT_DOUBLE_EQ(exact_partition(w, 2).period, 2.0);
}

}  // namespace
}  // namespace pipesim::split
