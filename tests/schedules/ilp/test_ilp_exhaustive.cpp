// The ILP's optimal period against an independent exhaustive search
// (tests/schedules/ilp/test_ilp_exhaustive.hpp) on small chains (L <= 5, P <= 3), with and
// without memory limits, 1F1B and 2F2B, fixed and free allocations.
// Transfers take no time there (1e30 B/s); without memory limits the
// optimum is the best load bound over allocations (search_best_pattern),
// which also covers transfers that take time.
#include <gtest/gtest.h>

#include "analysis/run_validation.hpp"
#include "patterns/allocation_internal.hpp"
#include "patterns/pattern_validation.hpp"
#include "reports/violations_report.hpp"
#include "schedules/ilp/ilp.hpp"
#include "schedules/pytorch/orders_validation.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"
#include "tests/schedules/ilp/test_ilp_exhaustive.hpp"
#include "tests/schedules/periodic/pattern_search.hpp"

namespace pipesim {
namespace {

using namespace testing;

Platform with_memory(int devices, double memory) {
  Platform p = pattern_platform(devices, 0, 1e30);
  for (Device& d : p.devices) d.memory = memory;
  return p;
}

// Solves and compares; returns the period (infinity when infeasible).
double compare(const Workload& w, const Platform& p, std::optional<Allocation> fixed, int k,
               WeightPolicy policy = WeightPolicy::TwoBW) {
  const std::vector<Allocation> allocations =
      fixed ? std::vector<Allocation>{*fixed}
            : enumerate_allocations(static_cast<int>(w.layers.size()), p.size(), false);
  const ExhaustiveResult ex = exhaustive_best(allocations, k, policy, w, p);
  IlpOptions o;
  o.copies = k;
  o.allocation = fixed;
  o.weights = policy;
  o.threads = 1;
  o.time_limit = 60;
  o.other_copies = false;  // the model's optimum over k-copy patterns, as the search's
  const IlpResult r = solve_optimal_pattern(w, p, o);
  const std::string what = "memory " + std::to_string(p.devices[0].memory) + ", k " + std::to_string(k);
  if (std::isinf(ex.period)) {
    EXPECT_EQ(r.status, IlpResult::Status::Infeasible) << what << ": " << r.message;
    EXPECT_FALSE(r.pattern) << what;
    return ex.period;
  }
  EXPECT_EQ(r.status, IlpResult::Status::Optimal) << what << ": " << r.message;
  EXPECT_NEAR(r.period, ex.period, 1e-6 * ex.period) << what;
  return r.period;
}

// Three layers, weights and activations of a few bytes.
Workload three() { return chain_workload({1, 2, 1.5}, {2, 3, 2}, {3, 2, 1}, 2, {1, 2, 1}); }
Workload four() { return chain_workload({1, 2, 1.5, 1}, {2, 3, 2, 2}, {3, 2, 2, 1}, 2, {1, 2, 1, 1}); }
Workload five() { return chain_workload({1, 2, 1.5, 1, 2}, {2, 3, 2, 2, 2}, {3, 2, 2, 1, 1}, 2, {1, 2, 1, 1, 1}); }

TEST(IlpExhaustive, ThreeLayersTwoDevicesFree) {
  const double unlimited = compare(three(), with_memory(2, 1e9), std::nullopt, 1);
  EXPECT_NEAR(unlimited, 6.5, 1e-9);
  EXPECT_NEAR(compare(three(), with_memory(2, 26), std::nullopt, 1), 8.5, 1e-9);  // memory binds
  EXPECT_NEAR(compare(three(), with_memory(2, 22), std::nullopt, 1), 11.5, 1e-9);
  EXPECT_TRUE(std::isinf(compare(three(), with_memory(2, 20), std::nullopt, 1)));  // nothing fits
}

TEST(IlpExhaustive, ThreeLayersThreeDevicesFree) {
  EXPECT_NEAR(compare(three(), with_memory(3, 1e9), std::nullopt, 1), 5, 1e-9);
  EXPECT_NEAR(compare(three(), with_memory(3, 24), std::nullopt, 1), 8.5, 1e-9);
  EXPECT_NEAR(compare(three(), with_memory(3, 22), std::nullopt, 1), 11.5, 1e-9);
}

TEST(IlpExhaustive, FourLayersTwoDevicesFree) {
  EXPECT_NEAR(compare(four(), with_memory(2, 28), std::nullopt, 1), 8, 1e-9);
  EXPECT_NEAR(compare(four(), with_memory(2, 26), std::nullopt, 1), 12.5, 1e-9);
}

TEST(IlpExhaustive, FourLayersThreeDevicesFree) {
  EXPECT_NEAR(compare(four(), with_memory(3, 28), std::nullopt, 1), 6.5, 1e-9);
}

TEST(IlpExhaustive, FourLayersFixed) {
  const Allocation a{0, 1, 1, 0};
  EXPECT_NEAR(compare(four(), with_memory(2, 1e9), a, 1), 8.5, 1e-9);
  EXPECT_NEAR(compare(four(), with_memory(2, 30), a, 1), 11.5, 1e-9);
  EXPECT_TRUE(std::isinf(compare(four(), with_memory(2, 26), a, 1)));
}

TEST(IlpExhaustive, FiveLayersThreeDevicesFixed) {
  const Allocation a{0, 0, 1, 1, 2};
  EXPECT_NEAR(compare(five(), with_memory(3, 1e9), a, 1), 8, 1e-9);
  EXPECT_NEAR(compare(five(), with_memory(3, 30), a, 1), 10.5, 1e-9);
  EXPECT_NEAR(compare(five(), with_memory(3, 26), a, 1), 16.5, 1e-9);
}

TEST(IlpExhaustive, WeightPolicies) {  // unlimited: 8.5 fixed, 8 free
  // Flush (2 W) and stashing (1 + in flight versions) move the thresholds.
  const Allocation a{0, 1, 1, 0};
  const Workload w = chain_workload({1, 2, 1.5, 1}, {2, 3, 2, 2}, {3, 2, 2, 1}, 2, {3, 2, 1, 2});
  EXPECT_NEAR(compare(w, with_memory(2, 30), a, 1, WeightPolicy::Flush), 9.5, 1e-9);
  EXPECT_NEAR(compare(w, with_memory(2, 28), a, 1, WeightPolicy::Flush), 14.5, 1e-9);
  EXPECT_NEAR(compare(w, with_memory(2, 40), a, 1, WeightPolicy::Stashing), 9.5, 1e-9);
  EXPECT_NEAR(compare(w, with_memory(2, 32), a, 1, WeightPolicy::Stashing), 14.5, 1e-9);
  EXPECT_NEAR(compare(w, with_memory(2, 32), std::nullopt, 1, WeightPolicy::Stashing), 11.5, 1e-9);
}

TEST(IlpExhaustive, TwoCopiesTwoLayers) {
  const Workload w = chain_workload({1, 2}, {2, 3}, {3, 1}, 2, {1, 2});
  EXPECT_NEAR(compare(w, with_memory(2, 1e9), std::nullopt, 2), 10, 1e-9);
  EXPECT_NEAR(compare(w, with_memory(2, 22), std::nullopt, 2), 16, 1e-9);
  EXPECT_NEAR(compare(w, with_memory(2, 26), Allocation{0, 1}, 2), 10, 1e-9);
  EXPECT_TRUE(std::isinf(compare(w, with_memory(2, 24), Allocation{0, 1}, 2)));
}

// Fixed allocation on unlike devices (speed and memory per device): exact.
TEST(IlpExhaustive, FixedAllocationHeterogeneousDevices) {
  Platform p = with_memory(3, 30);
  p.devices[1].speed = 0.5e12;  // twice as slow
  p.devices[2].memory = 12;
  EXPECT_NEAR(compare(five(), p, Allocation{0, 0, 1, 1, 2}, 1), 15, 1e-9);  // unlimited: 13
  p.devices[0].memory = 24;
  compare(five(), p, Allocation{0, 0, 1, 1, 2}, 1);
}

// Free allocation on unlike devices: the model assumes the slowest device,
// the slowest link and the smallest memory everywhere (docs/ilp.md), so its
// pattern is valid on the real platform and no slower than it claims.
TEST(IlpExhaustive, FreeAllocationHeterogeneousDevicesIsConservative) {
  Platform p = with_memory(2, 28);
  p.devices[1].speed = 2e12;
  p.devices[1].memory = 40;
  IlpOptions o;
  o.threads = 1;
  o.time_limit = 60;
  const IlpResult r = solve_optimal_pattern(four(), p, o);
  ASSERT_TRUE(r.pattern) << r.message;
  EXPECT_TRUE(validate_pattern(*r.pattern, pattern_timing(*r.pattern, four(), p), p, four()).empty());
  // As good as the homogeneous platform of the slow device (memory 28 everywhere): 8.
  EXPECT_LE(r.period, 8 * (1 + 1e-9));
}

// Without memory limits, transfers that take time: the best load bound over
// all allocations (every pattern is at least its allocation's bound, and
// kfkb_pattern reaches it), found by search_best_pattern.
TEST(IlpExhaustive, FiveLayersThreeDevicesUnlimitedWithTransfers) {
  const Workload w = chain_workload({1, 2, 1.5, 1, 2}, {2, 3, 2, 2, 2}, {3e8, 2e8, 5e8, 1e8, 1e8}, 2e8);
  const Platform p = pattern_platform(3, 0, 1e9);
  const auto make = [&](const Allocation& a) { return one_f_one_b_pattern(a, w, p); };
  const auto best = search_best_pattern(false, make, w, p);
  ASSERT_TRUE(best);
  IlpOptions o;
  o.threads = 1;
  o.time_limit = 60;
  const IlpResult r = solve_optimal_pattern(w, p, o);
  ASSERT_EQ(r.status, IlpResult::Status::Optimal) << r.message;
  EXPECT_NEAR(r.period, best->period, 1e-6 * best->period);
}

}  // namespace
}  // namespace pipesim
