// Seed 004 §IV-A: splitting each resource between forward and backward.
// Theorem 1's closed form, the exact general optimum against brute force,
// and the errors of bad allocations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "schedules/split/split_allocation.hpp"
#include "schedules/split/split_allocation_internal.hpp"
#include "tests/schedules/split/test_split_random.hpp"

namespace pipesim::split {
namespace {

using testing::SplitRng;

// max over beta in [0,1]^m of min(forward, backward speed), i.e. 1 / period.
double throughput(const StageRates& r, const std::vector<double>& beta) {
  double f = 0, b = 0;
  for (std::size_t j = 0; j < beta.size(); ++j) f += beta[j] * r.forward[j], b += (1 - beta[j]) * r.backward[j];
  return std::min(f, b);
}

// The best period over a grid of N points per resource.
double grid_period(const StageRates& r, int N) {
  const int m = static_cast<int>(r.forward.size());
  std::vector<int> idx(m, 0);
  std::vector<double> beta(m);
  double best = 0;
  while (true) {
    for (int j = 0; j < m; ++j) beta[j] = static_cast<double>(idx[j]) / (N - 1);
    best = std::max(best, throughput(r, beta));
    int j = 0;
    while (j < m && ++idx[j] == N) idx[j++] = 0;
    if (j == m) break;
  }
  return 1 / best;
}

// The LP's vertices: every beta in {0, 1} but at most one, which then makes
// forward and backward speeds equal. Exact, and blind to the ratio order.
double vertex_period(const StageRates& r) {
  const int m = static_cast<int>(r.forward.size());
  double best = 0;
  for (int free = -1; free < m; ++free)
    for (unsigned bits = 0; bits < (1u << m); ++bits) {
      std::vector<double> beta(m);
      double f = 0, b = 0;
      for (int j = 0; j < m; ++j)
        if (j != free) beta[j] = bits >> j & 1u, f += beta[j] * r.forward[j], b += (1 - beta[j]) * r.backward[j];
      if (free >= 0) {
        // f + x a = b + (1 - x) b_free  =>  x = (b + b_free - f) / (a + b_free)
        const double x = (b + r.backward[free] - f) / (r.forward[free] + r.backward[free]);
        if (!(x >= 0 && x <= 1)) continue;
        beta[free] = x;
      }
      best = std::max(best, throughput(r, beta));
    }
  return 1 / best;
}

int grid_points(int m) { return static_cast<int>(std::round(std::pow(1e5, 1.0 / m))); }

// Random devices whose resources all have the same backward/forward speed
// ratio k, on a random stage of a random chain: Theorem 1 applies.
TEST(SplitAllocation, Theorem1ClosedFormIsOptimalOnRandomDevicesAndChains) {
  SplitRng rng(4001);
  for (int trial = 0; trial < 60; ++trial) {
    const int m = rng.integer(1, 4);
    const double k = rng.uniform(0.3, 1.5);  // backward speed / forward speed, all resources
    // A random chain's stage: its forward and backward flops.
    double forward_flops = 0, backward_flops = 0;
    for (int l = rng.integer(1, 12); l > 0; --l) {
      const double w = rng.uniform(1e9, 1e11);
      forward_flops += w;
      backward_flops += w * rng.uniform(1.5, 2.5);
    }
    StageRates r;
    for (int j = 0; j < m; ++j) {
      const double speed = rng.uniform(1e9, 1e12);
      r.forward.push_back(speed / forward_flops);
      r.backward.push_back(k * speed / backward_flops);
    }
    // c = f(p, r_j) / g(p, r_j) = (F / s_j) / (B / (k s_j)) = F k / B.
    const double c = forward_flops * k / backward_flops;
    ASSERT_TRUE(common_ratio(r).has_value());
    EXPECT_NEAR(*common_ratio(r), c, 1e-9 * c);
    const Allocation best = optimal_allocation(r);
    const Allocation closed = theorem1_allocation(r);
    for (int j = 0; j < m; ++j) {
      EXPECT_NEAR(best.beta[j], c / (c + 1), 1e-12) << "trial " << trial;
      EXPECT_NEAR(closed.beta[j], c / (c + 1), 1e-12);
    }
    // Lemma 1: forward and backward take the same time.
    EXPECT_NEAR(best.forward_seconds, best.backward_seconds, 1e-12 * best.period());
    EXPECT_GE(grid_period(r, grid_points(m)), best.period() * (1 - 1e-9)) << "trial " << trial;
    EXPECT_NEAR(vertex_period(r), best.period(), 1e-12 * best.period());
  }
}

TEST(SplitAllocation, GeneralOptimumEqualsBruteForceWhenRatiosDiffer) {
  SplitRng rng(4002);
  int strictly_better_than_equal_betas = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int m = rng.integer(2, 4);
    StageRates r;
    for (int j = 0; j < m; ++j) {
      r.forward.push_back(rng.uniform(0.1, 10));
      r.backward.push_back(rng.uniform(0.1, 10));
    }
    ASSERT_FALSE(common_ratio(r).has_value());
    const Allocation best = optimal_allocation(r);
    EXPECT_NEAR(vertex_period(r), best.period(), 1e-12 * best.period()) << "trial " << trial;
    EXPECT_NEAR(best.forward_seconds, best.backward_seconds, 1e-12 * best.period());
    // At most one resource is shared between the passes.
    EXPECT_LE(std::count_if(best.beta.begin(), best.beta.end(), [](double b) { return b > 0 && b < 1; }), 1);
    if (trial < 40) {
      // The grid never beats the optimum, and comes as close as its step
      // allows: rounding the one fractional beta to the grid (the others are
      // 0 or 1, on it) loses at most max(a_k, b_k) / (2 (N - 1)) of speed.
      const int N = grid_points(m);
      const double grid = grid_period(r, N);
      double slack = 0;
      for (int j = 0; j < m; ++j) slack = std::max({slack, r.forward[j], r.backward[j]});
      slack /= 2.0 * (N - 1);
      EXPECT_GE(grid, best.period() * (1 - 1e-9)) << "trial " << trial;
      if (1 / best.period() > slack) {
        EXPECT_LE(grid, 1 / (1 / best.period() - slack) * (1 + 1e-12)) << "trial " << trial;
      }
    }
    // The best single beta for all resources (what §VI's Fig. 6 sweeps).
    double a = 0, b = 0;
    for (int j = 0; j < m; ++j) a += r.forward[j], b += r.backward[j];
    const double equal = evaluate_allocation(r, std::vector<double>(m, b / (a + b))).period();
    EXPECT_GE(equal, best.period() * (1 - 1e-12));
    if (equal > best.period() * (1 + 1e-9)) ++strictly_better_than_equal_betas;
  }
  EXPECT_EQ(strictly_better_than_equal_betas, 200);
}

// CPU: 1 stage/s forward or backward; GPU: 4 forward or 2 backward.
// The GPU gives up least backward speed per forward speed: it takes the
// forward pass alone, with half its time (docs/mobile.md, worked example).
TEST(SplitAllocation, WorkedExample) {
  const StageRates r{{1, 4}, {1, 2}};
  const Allocation best = optimal_allocation(r);
  EXPECT_EQ(best.beta, (std::vector<double>{0, 0.5}));
  EXPECT_DOUBLE_EQ(best.forward_seconds, 0.5);
  EXPECT_DOUBLE_EQ(best.backward_seconds, 0.5);
  // One beta for both: 3/8 balances them at 8/15 s, 6.7 % slower.
  const Allocation equal = evaluate_allocation(r, {0.375, 0.375});
  EXPECT_DOUBLE_EQ(equal.period(), 8.0 / 15);
  EXPECT_THROW(theorem1_allocation(r), std::invalid_argument);
}

// A forward-only accelerator (an NPU that cannot run backward) is used for
// forward only, and a resource that cannot run forward is left to backward.
TEST(SplitAllocation, ResourcesThatRunOnePassOnly) {
  const Allocation a = optimal_allocation({{3, 0, 1}, {0, 2, 1}});
  EXPECT_EQ(a.beta, (std::vector<double>{1, 0, 0}));
  EXPECT_DOUBLE_EQ(a.period(), 1 / 3.0);
  // The NPU alone outruns backward: part of it idles, times stay balanced.
  const Allocation b = optimal_allocation({{10, 0}, {0, 2}});
  EXPECT_DOUBLE_EQ(b.beta[0], 0.2);
  EXPECT_DOUBLE_EQ(b.beta[1], 0);
  EXPECT_DOUBLE_EQ(b.period(), 0.5);
}

std::string error_of(const StageRates& r, const std::vector<double>* beta) {
  try {
    if (beta)
      evaluate_allocation(r, *beta);
    else
      optimal_allocation(r);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(SplitAllocation, BadInputsThrowWithClearMessages) {
  const StageRates r{{1, 4}, {1, 2}};
  const std::vector<double> above{0.5, 1.5}, below{-0.1, 0.5}, nan{std::nan(""), 0.5}, short_beta{0.5};
  EXPECT_EQ(error_of(r, &above), "allocation: beta of resource 1 must be in [0, 1], got 1.5");
  EXPECT_EQ(error_of(r, &below), "allocation: beta of resource 0 must be in [0, 1], got -0.1");
  EXPECT_EQ(error_of(r, &nan), "allocation: beta of resource 0 must be in [0, 1], got nan");
  EXPECT_EQ(error_of(r, &short_beta), "allocation: 1 betas for 2 resources");
  const std::vector<double> all_forward{1, 1}, all_backward{0, 0};
  EXPECT_EQ(error_of(r, &all_forward), "allocation: beta gives the backward pass no speed");
  EXPECT_EQ(error_of(r, &all_backward), "allocation: beta gives the forward pass no speed");
  // Forward given only to a resource that cannot run it.
  const std::vector<double> wrong{1, 0};
  EXPECT_EQ(error_of({{0, 4}, {1, 2}}, &wrong), "allocation: beta gives the forward pass no speed");
  EXPECT_EQ(error_of({{0, 0}, {1, 2}}, nullptr),
            "allocation: no resource can run the forward pass (all forward speeds are zero)");
  EXPECT_EQ(error_of({{1, 2}, {0, 0}}, nullptr),
            "allocation: no resource can run the backward pass (all backward speeds are zero)");
  EXPECT_EQ(error_of({{1, -2}, {1, 1}}, nullptr), "allocation: resource 1: rates must be finite and >= 0, got -2");
  EXPECT_EQ(error_of({{}, {}}, nullptr), "allocation: the worker has no resource");
  EXPECT_EQ(error_of({{1}, {1, 2}}, nullptr), "allocation: 1 forward rates but 2 backward rates");
  try {
    theorem1_allocation(r);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "allocation: Theorem 1 needs the same forward/backward time ratio on every resource");
  }
}

}  // namespace
}  // namespace pipesim::split
