// Seed 000's examples, measured: contiguous vs general allocations (§4.2.1,
// Theorem 1), memory (Lemma 2) and 2F2B against 1F1B (§4.3). Costs are in
// seconds on 1 Tf devices; "cost c" of a layer is F + B = c, split evenly.
// Simulations at the end, one SimGrid run per test.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "patterns/allocation_internal.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/pattern_simulation_check.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"
#include "tests/schedules/periodic/pattern_search.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

// F = B = cost / 2, no activations, optional weights.
Workload costs_chain(const std::vector<double>& cost, const std::vector<double>& weights = {}) {
  std::vector<double> half;
  for (double c : cost) half.push_back(c / 2);
  return chain_workload(half, half, std::vector<double>(cost.size(), 0), 0, weights);
}

// Theorem 1's chain C_k: k parts (k, e, k-1, e), then k, (k-2)(2k+1)+1 times
// e, and 1, with the proof's e = 1/(2k+1). (The proof needs that value: with
// a smaller e the last part weighs k + 1 + O(e) < 2k - 1 for k >= 3, and the
// best contiguous period drops, e.g. to 4.008 for k = 3, e = 1e-3.)
std::vector<double> chain_c(int k) {
  const double e = 1.0 / (2 * k + 1);
  std::vector<double> c;
  for (int i = 0; i < k; ++i) c.insert(c.end(), {double(k), e, double(k - 1), e});
  c.push_back(k);
  c.insert(c.end(), (k - 2) * (2 * k + 1) + 1, e);
  c.push_back(1);
  return c;
}

PatternMaker one_f_one_b(const Workload& w, const Platform& p, WeightPolicy policy = WeightPolicy::TwoBW) {
  return [&w, &p, policy](const Allocation& a) { return one_f_one_b_pattern(a, w, p, policy); };
}

double exact(const Pattern& p, const Workload& w, const Platform& platform) {
  return exact_period(pattern_event_graph(p, pattern_timing(p, w, platform))).period;
}

// §4.2.1: (1, 2, 1) on 2 devices. Contiguous: one device gets the 2 and a
// 1, period 3; general: layers 1 and 3 together, period 2, no idle time.
TEST(PaperContiguity, ChainOneTwoOneOnTwoDevices) {
  const Workload w = costs_chain({1, 2, 1});
  const Platform p = pattern_platform(2);
  const auto contiguous = best_pattern(enumerate_allocations(3, 2, true), one_f_one_b(w, p), w, p);
  ASSERT_TRUE(contiguous);
  EXPECT_DOUBLE_EQ(contiguous->period, 3);
  EXPECT_EQ(contiguous->allocation, (Allocation{0, 0, 1}));
  EXPECT_DOUBLE_EQ(exact(contiguous->pattern, w, p), 3);
  const auto general = best_pattern(enumerate_allocations(3, 2, false), one_f_one_b(w, p), w, p);
  ASSERT_TRUE(general);
  EXPECT_DOUBLE_EQ(general->period, 2);
  EXPECT_EQ(general->allocation, (Allocation{0, 1, 0}));
  EXPECT_EQ(find_overlap(general->pattern, pattern_timing(general->pattern, w, p), p), "");
  // Branch and bound agrees.
  EXPECT_DOUBLE_EQ(search_best_pattern(true, one_f_one_b(w, p), w, p)->period, 3);
  EXPECT_DOUBLE_EQ(search_best_pattern(false, one_f_one_b(w, p), w, p)->period, 2);
}

// Theorem 1: on C_k with 2k + 1 devices the best general period is k and
// the best contiguous one 2k - 1 + e, a ratio of 2 - 1/k + e/k.
void check_theorem_1(int k) {
  const std::vector<double> c = chain_c(k);
  const double e = 1.0 / (2 * k + 1);
  const Workload w = costs_chain(c);
  const Platform p = pattern_platform(2 * k + 1);
  const auto contiguous = search_best_pattern(true, one_f_one_b(w, p), w, p);
  const auto general = search_best_pattern(false, one_f_one_b(w, p), w, p);
  ASSERT_TRUE(contiguous && general);
  EXPECT_NEAR(general->period, k, 1e-9);
  EXPECT_NEAR(contiguous->period, 2 * k - 1 + e, 1e-9);
  EXPECT_NEAR(contiguous->period / general->period, 2 - 1.0 / k + e / k, 1e-9);
  EXPECT_TRUE(is_contiguous(contiguous->allocation));
  EXPECT_FALSE(is_contiguous(general->allocation));
  EXPECT_NEAR(exact(general->pattern, w, p), k, 1e-9);
  EXPECT_NEAR(exact(contiguous->pattern, w, p), 2 * k - 1 + e, 1e-9);
}

TEST(PaperContiguity, Theorem1ChainC2) {
  check_theorem_1(2);  // 3.2 / 2 = 1.6
  // The branch and bound against listing every allocation (386 contiguous, 422005 in all).
  const Workload w = costs_chain(chain_c(2));
  const Platform p = pattern_platform(5);
  EXPECT_NEAR(best_pattern(enumerate_allocations(11, 5, true), one_f_one_b(w, p), w, p)->period, 3.2, 1e-9);
  EXPECT_NEAR(best_pattern(enumerate_allocations(11, 5, false), one_f_one_b(w, p), w, p)->period, 2, 1e-9);
}

TEST(PaperContiguity, Theorem1ChainC3) { check_theorem_1(3); }  // (5 + 1/7) / 3 = 1.714...

// Lemma 2: costs (1, 1, 1), weights (1, 2, 1), no activations, memory 2 per
// device counting weights once. Our policies count more than the weights:
// Flush holds W plus one gradient buffer of the same size (2 W), so the
// paper's memory 2 is 4 here. Contiguous: 2 + 1 = 3 (6 with gradients) on
// one device, infeasible; {1, 3} and {2}: 2 each (4), feasible, period 2.
TEST(PaperMemory, Lemma2NeedsANonContiguousAllocation) {
  const Workload w = costs_chain({1, 1, 1}, {1, 2, 1});
  Platform p = pattern_platform(2);
  for (Device& d : p.devices) d.memory = 4;
  const PatternSearch memory{true};
  const auto maker = one_f_one_b(w, p, WeightPolicy::Flush);
  EXPECT_FALSE(best_pattern(enumerate_allocations(3, 2, true), maker, w, p, memory));
  EXPECT_FALSE(search_best_pattern(true, maker, w, p, memory));
  const auto general = best_pattern(enumerate_allocations(3, 2, false), maker, w, p, memory);
  ASSERT_TRUE(general);
  EXPECT_EQ(general->allocation, (Allocation{0, 1, 0}));
  EXPECT_DOUBLE_EQ(general->period, 2);
  EXPECT_EQ(general->peak, (std::vector<double>{4, 4}));
  // Without the memory limit the contiguous (0, 0, 1) would do as well: period 2.
  EXPECT_DOUBLE_EQ(best_pattern(enumerate_allocations(3, 2, true), maker, w, p)->period, 2);
  // The same with 2BW (3 W, the paper's eq. 33): memory 6.
  for (Device& d : p.devices) d.memory = 6;
  const auto two_bw = one_f_one_b(w, p, WeightPolicy::TwoBW);
  EXPECT_FALSE(search_best_pattern(true, two_bw, w, p, memory));
  EXPECT_EQ(search_best_pattern(false, two_bw, w, p, memory)->allocation, (Allocation{0, 1, 0}));
}

// §4.3, first example: times 3, 2, 2, 2 (F = B = those: the paper's 1F1B
// and 2F2B then both reach its throughput 1/6, 2F2B with T' = 12);
// activations a_0..a_3 = 1, 2, 2, 4; one layer per device.
struct FirstExample {
  Workload w = chain_workload({3, 2, 2, 2}, {3, 2, 2, 2}, {2, 2, 4, 0}, 1);
  Allocation a{0, 1, 2, 3};
};
// Second: times 1, 2, 1; a_0..a_2 = 2, 3, 2; layers 1 and 3 on one device.
// "Communication times negligibly small": 1e30 B/s, so that transfers take
// under 1e-29 s. (At 1 GB/s they take nanoseconds, which is enough to make
// the greedy placement miss the exact fits these stash counts need.)
struct SecondExample {
  Workload w = chain_workload({1, 2, 1}, {1, 2, 1}, {3, 2, 0}, 2);
  Allocation a{0, 1, 0};
};

std::vector<int> stashes(const Pattern& p, const Workload& w, const Platform& platform) {
  return pattern_memory(p, pattern_timing(p, w, platform), w, platform.size()).stash_counts;
}

TEST(PaperKfKb, FirstExampleStashes) {
  const FirstExample x;
  const Platform p = pattern_platform(4, 0, 1e30);
  const Pattern one = one_f_one_b_pattern(x.a, x.w, p, WeightPolicy::TwoBW, LinkModel::Pair);
  const Pattern two = kfkb_pattern(2, x.a, x.w, p, WeightPolicy::TwoBW, LinkModel::Pair);
  EXPECT_NEAR(exact(one, x.w, p), 6, 1e-6);   // one micro-batch per 6
  EXPECT_NEAR(exact(two, x.w, p), 12, 1e-6);  // two per 12: the same throughput
  EXPECT_EQ(stashes(one, x.w, p), (std::vector<int>{4, 3, 2, 1}));
  EXPECT_EQ(stashes(two, x.w, p), (std::vector<int>{4, 2, 2, 1}));
}

// What the buffer policy changes on §4.3's examples (docs/memory-model.md,
// "Seed 000 §4.3 under both policies"): per device, the analytic peak of
// 1F1B and 2F2B under seed000 (static send and receive buffers, k per edge
// end) and under lifetime (a buffer from its transfer to its consumer's end).
std::vector<double> peaks(Pattern p, BufferPolicy policy, const Workload& w, const Platform& platform) {
  p.buffers = policy;
  std::vector<double> out;
  for (const PatternDeviceMemory& d : pattern_memory(p, pattern_timing(p, w, platform), w, platform.size()).devices)
    out.push_back(d.peak);
  return out;
}

TEST(PaperKfKb, BufferPoliciesOnTheExamples) {
  const FirstExample x;
  const Platform p = pattern_platform(4, 0, 1e30);
  const Pattern one = one_f_one_b_pattern(x.a, x.w, p), two = kfkb_pattern(2, x.a, x.w, p);
  const SecondExample y;
  const Platform q = pattern_platform(2, 0, 1e30);
  const Pattern one2 = one_f_one_b_pattern(y.a, y.w, q), two2 = kfkb_pattern(2, y.a, y.w, q);
  using V = std::vector<double>;
  // Seed 000: the stashes plus k static send/receive buffers per edge end.
  EXPECT_EQ(peaks(one, BufferPolicy::Seed000, x.w, p), (V{11, 18, 22, 16}));
  EXPECT_EQ(peaks(two, BufferPolicy::Seed000, x.w, p), (V{15, 24, 34, 24}));
  EXPECT_EQ(peaks(one2, BufferPolicy::Seed000, y.w, q), (V{21, 21}));
  EXPECT_EQ(peaks(two2, BufferPolicy::Seed000, y.w, q), (V{29, 31}));
  // Lifetime: a buffer only from its transfer to its consumer's end; 2F2B's
  // second copy no longer doubles the buffers, so it needs less than 1F1B.
  EXPECT_EQ(peaks(one, BufferPolicy::Lifetime, x.w, p), (V{8, 12, 14, 8}));
  EXPECT_EQ(peaks(two, BufferPolicy::Lifetime, x.w, p), (V{9, 10, 10, 8}));
  EXPECT_EQ(peaks(one2, BufferPolicy::Lifetime, y.w, q), (V{13, 13}));
  EXPECT_EQ(peaks(two2, BufferPolicy::Lifetime, y.w, q), (V{9, 11}));
}

TEST(PaperKfKb, SecondExampleStashes) {
  const SecondExample x;
  const Platform p = pattern_platform(2, 0, 1e30);
  const Pattern one = one_f_one_b_pattern(x.a, x.w, p, WeightPolicy::TwoBW, LinkModel::Pair);
  const Pattern two = kfkb_pattern(2, x.a, x.w, p, WeightPolicy::TwoBW, LinkModel::Pair);
  EXPECT_NEAR(exact(one, x.w, p), 4, 1e-6);
  EXPECT_NEAR(exact(two, x.w, p), 8, 1e-6);
  EXPECT_EQ(stashes(one, x.w, p), (std::vector<int>{3, 2, 1}));
  EXPECT_EQ(stashes(two, x.w, p), (std::vector<int>{2, 2, 1}));
}

// ---- The patterns above on SimGrid: steady state = exact period, peaks = analytic.

struct SimCase {
  Workload w;
  Pattern p;
  double period;             // expected exact period of the pattern
  std::vector<int> stashes;  // expected stash counts; empty: not checked
};

SimCase make_case(const std::string& name, const Platform& platform) {
  auto best = [&](const Workload& w, bool contiguous) {
    return search_best_pattern(contiguous, one_f_one_b(w, platform), w, platform)->pattern;
  };
  if (name == "121-contiguous" || name == "121-general") {
    const Workload w = costs_chain({1, 2, 1});
    return {w, best(w, name == "121-contiguous"), name == "121-contiguous" ? 3.0 : 2.0, {}};
  }
  if (name == "C2-contiguous" || name == "C2-general") {
    const Workload w = costs_chain(chain_c(2));
    return {w, best(w, name == "C2-contiguous"), name == "C2-contiguous" ? 3.2 : 2.0, {}};
  }
  if (name == "first-1f1b" || name == "first-2f2b") {
    const FirstExample x;
    const int k = name == "first-1f1b" ? 1 : 2;
    const std::vector<int> stashes = k == 1 ? std::vector<int>{4, 3, 2, 1} : std::vector<int>{4, 2, 2, 1};
    return {x.w, kfkb_pattern(k, x.a, x.w, platform, WeightPolicy::TwoBW, LinkModel::Pair), 6.0 * k, stashes};
  }
  const SecondExample x;
  const int k = name == "second-1f1b" ? 1 : 2;
  const std::vector<int> stashes = k == 1 ? std::vector<int>{3, 2, 1} : std::vector<int>{2, 2, 1};
  return {x.w, kfkb_pattern(k, x.a, x.w, platform, WeightPolicy::TwoBW, LinkModel::Pair), 4.0 * k, stashes};
}

int devices_for(const std::string& name) {
  if (name.rfind("121", 0) == 0 || name.rfind("second", 0) == 0) return 2;
  return name.rfind("C2", 0) == 0 ? 5 : 4;
}

class PaperSimulation : public ::testing::TestWithParam<std::string> {};

TEST_P(PaperSimulation, SteadyStateAndPeaksMatchThePattern) {
  Simulation sim(complete_platform(devices_for(GetParam()), "1e30Bps", "0s"));
  const Platform& platform = sim.platform();
  const SimCase c = make_case(GetParam(), platform);
  const PatternTiming t = pattern_timing(c.p, c.w, platform);
  ASSERT_EQ(find_overlap(c.p, t, platform), "");
  const PatternMemory analytic = pattern_memory(c.p, t, c.w, platform.size());
  if (!c.stashes.empty()) {
    EXPECT_EQ(analytic.stash_counts, c.stashes);
  }
  // Period, and peaks under both buffer policies, as simulated.
  check_against_simulation(sim, c.p, c.w, c.period);
}

INSTANTIATE_TEST_SUITE_P(Examples, PaperSimulation,
                         ::testing::Values("121-contiguous", "121-general", "C2-contiguous", "C2-general", "first-1f1b",
                                           "first-2f2b", "second-1f1b", "second-2f2b"),
                         [](const auto& info) {
                           std::string s = info.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

}  // namespace
}  // namespace pipesim
