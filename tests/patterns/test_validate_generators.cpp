// The validator on the generators' own patterns: Lemma 2's allocations judged
// one by one, and every generator's output accepted.
#include <random>

#include <gtest/gtest.h>

#include "analysis/run_validation.hpp"
#include "patterns/allocation_internal.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_validation.hpp"
#include "reports/violations_report.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "schedules/pytorch/orders_validation.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

std::vector<Violation> validate(const Pattern& p, const Workload& w, const Platform& platform) {
  return validate_pattern(p, pattern_timing(p, w, platform), platform, w);
}

bool has_kind(const std::vector<Violation>& violations, const std::string& kind) {
  for (const Violation& v : violations)
    if (v.kind == kind) return true;
  return false;
}

// Seed 000 Lemma 2: costs (1,1,1), weights (1,2,1), two devices whose memory
// holds weights twice over (the Flush policy keeps W plus a gradient buffer,
// so the paper's memory 2 is 4 here). Every contiguous allocation puts layer 2
// with a neighbour and exceeds it; 0,1,0 fits, and the validator says so.
TEST(ValidateGenerators, Lemma2AllocationsOneByOne) {
  const Workload w = chain_workload({0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}, {0, 0, 0}, 0, {1, 2, 1});
  Platform p = pattern_platform(2);
  for (Device& d : p.devices) d.memory = 4;
  int contiguous = 0;
  for (const Allocation& a : enumerate_allocations(3, 2, false)) {
    const std::vector<Violation> v = validate(one_f_one_b_pattern(a, w, p, WeightPolicy::Flush), w, p);
    if (is_contiguous(a)) {
      ++contiguous;
      EXPECT_TRUE(has_kind(v, "memory")) << to_string(a);
    } else {
      EXPECT_TRUE(v.empty()) << to_string(a) << ": " << (v.empty() ? "" : v[0].message);
    }
  }
  EXPECT_EQ(contiguous, 3);  // 0,0,0 / 0,0,1 / 0,1,1
}

// kFkB (k = 1..3) and PipeDream patterns on random chains and allocations.
class ValidateGeneratorOutput : public ::testing::TestWithParam<int> {};

TEST_P(ValidateGeneratorOutput, IsAccepted) {
  const int seed = GetParam();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> cost(0.5, 2.0);
  std::uniform_int_distribution<int> layers(2, 6), bytes(0, 400);
  const int L = layers(rng), P = 3;
  std::vector<double> f, b, a, wts;
  for (int l = 0; l < L; ++l) {
    f.push_back(cost(rng));
    b.push_back(2 * cost(rng));
    a.push_back(1e6 * bytes(rng));
    wts.push_back(1e6 * bytes(rng));
  }
  const Workload w = chain_workload(f, b, a, 1e6, wts);
  const Platform platform = pattern_platform(P, 1e-4, 1e9);
  Allocation alloc(L);
  for (int l = 0; l < L; ++l) alloc[l] = std::uniform_int_distribution<int>(0, P - 1)(rng);
  for (int k = 1; k <= 3; ++k) {
    const std::vector<Violation> v = validate(kfkb_pattern(k, alloc, w, platform), w, platform);
    EXPECT_TRUE(v.empty()) << "k=" << k << " " << to_string(alloc) << ": " << v[0].kind << ": " << v[0].message;
  }
  Allocation contiguous(L);
  for (int l = 0; l < L; ++l) contiguous[l] = l * P / L;
  // PipeDream's eager steady state is exported only when it repeats every
  // micro-batch and no two transfers share a link at once (seed 000's model
  // cannot say otherwise); the generator says which.
  Pattern eager;
  try {
    eager = pipedream_pattern(contiguous, P, w, platform);
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("PipeDream pattern: ", 0), 0u) << e.what();
    return;
  }
  const std::vector<Violation> v = validate(eager, w, platform);
  EXPECT_TRUE(v.empty()) << "pipedream " << to_string(contiguous) << ": " << v[0].kind << ": " << v[0].message;
}

INSTANTIATE_TEST_SUITE_P(Random, ValidateGeneratorOutput, ::testing::Range(0, 20));

}  // namespace
}  // namespace pipesim
