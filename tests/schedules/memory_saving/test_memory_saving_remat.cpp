// Seed 002's dynamic program with rematerialization alone (β = 0) against an
// exhaustive search, Revolve's binomial optimum and Chen et al.'s √L
// strategy; infeasible limits and the conservative grid.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "schedules/memory_saving/chain_internal.hpp"
#include "schedules/memory_saving/rematerialization.hpp"
#include "schedules/memory_saving/sequence_replay.hpp"
#include "tests/schedules/memory_saving/test_memory_saving_exhaustive.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::memory_saving {
namespace {

using pipesim::testing::error_message;

using testing::exhaustive_optimum;
using testing::kNever;
using testing::random_integer_chain;

TEST(MemorySavingRemat, EqualsExhaustiveSearchOnSmallChains) {
  std::mt19937 rng(2021);
  int feasible = 0, infeasible = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const Chain chain = random_integer_chain(rng, 1 + trial % 6);
    const double least = min_feasible_limit(chain);
    for (double limit = least - 1; limit <= least + 6; limit += 1) {
      if (limit <= 0) continue;
      const double expected = exhaustive_optimum(chain, limit);
      const Solution s = solve_rematerialization(chain, limit, static_cast<int>(limit));
      ASSERT_EQ(s.feasible, expected != kNever) << "trial " << trial << " limit " << limit;
      if (!s.feasible) {
        ++infeasible;
        continue;
      }
      ++feasible;
      ASSERT_DOUBLE_EQ(s.makespan, expected) << "trial " << trial << " limit " << limit;
      EXPECT_DOUBLE_EQ(end_time(s.ops), s.makespan);
      EXPECT_LE(s.peak_memory, limit);
    }
  }
  EXPECT_GT(feasible, 500);
  EXPECT_GT(infeasible, 100);
}

// Without seed 002's persistency assumption the search space is larger: the
// program never beats it, and on some chains it is beaten (a checkpoint
// consumed by a last F_∅ frees room for two tapes afterwards).
TEST(MemorySavingRemat, NonPersistentSequencesCanBeFaster) {
  std::mt19937 rng(2021);
  int strictly_better = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const Chain chain = random_integer_chain(rng, 1 + trial % 6);
    for (double limit = min_feasible_limit(chain); limit <= min_feasible_limit(chain) + 6; limit += 1) {
      const Solution s = solve_rematerialization(chain, limit, static_cast<int>(limit));
      const double any = exhaustive_optimum(chain, limit, /*persistent=*/false);
      EXPECT_LE(any, s.makespan) << trial;
      strictly_better += any < s.makespan;
    }
  }
  EXPECT_EQ(strictly_better, 2);  // of 840 (e.g. trial 29, limit 10: 59 against 60)
}

TEST(MemorySavingRemat, SmallestLimitIsTheExhaustiveOne) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const Chain chain = random_integer_chain(rng, 1 + trial % 6);
    const double least = min_feasible_limit(chain);
    EXPECT_NE(exhaustive_optimum(chain, least), kNever) << trial;
    EXPECT_EQ(exhaustive_optimum(chain, least - 1), kNever) << trial;
  }
}

TEST(MemorySavingRemat, InfeasibleLimitReportsTheSmallestThatWorks) {
  ChainLayer layer{1, 2, 2, 5, 1, 0, 0};
  const Chain chain = homogeneous_chain(4, layer, 2);
  // The least: B^4 with a^0, its input a^3, ā^4, δ^4 and δ^3 (2+2+5+1+1).
  const double least = min_feasible_limit(chain);
  EXPECT_DOUBLE_EQ(least, 11);
  const Solution s = solve_rematerialization(chain, least - 0.5, 100);
  EXPECT_FALSE(s.feasible);
  EXPECT_TRUE(s.ops.empty());
  EXPECT_TRUE(std::isinf(s.makespan));
  EXPECT_DOUBLE_EQ(s.min_feasible_limit, least);
  const Solution ok = solve_rematerialization(chain, least, static_cast<int>(least));
  EXPECT_TRUE(ok.feasible);
  EXPECT_DOUBLE_EQ(ok.peak_memory, least);
}

// Griewank and Walther's minimal number of forward steps to reverse l steps
// with c checkpoints (x_0 included): r l - binom(c + r, r - 1), r the least
// integer with binom(c + r, c) >= l.
double binomial(int n, int k) {
  if (k < 0) return 0;
  double b = 1;
  for (int i = 1; i <= k; ++i) b = b * (n - k + i) / i;
  return b;
}
double revolve_forwards(int l, int c) {
  int r = 0;
  while (binomial(c + r, c) < l) ++r;
  return r * l - binomial(c + r, r - 1);
}

TEST(MemorySavingRemat, HomogeneousChainsMatchRevolve) {
  // Mapping (docs/memory-saving.md): a^i = 1 slot, δ = 0, no overheads, and
  // a tape ā^i = 1 + T with T >= c so that only one tape ever fits, right
  // before its backward; limit = a^0 + c + 1 + T.
  for (int c = 1; c <= 5; ++c)
    for (int l = 1; l <= 30; ++l) {
      const int T = c + 1;
      const ChainLayer layer{1, 3, 1, 1.0 + T, 0, 0, 0};
      const Chain chain = homogeneous_chain(l, layer, 1);
      const int limit = 1 + c + 1 + T;
      const Solution s = solve_rematerialization(chain, limit, limit);
      ASSERT_TRUE(s.feasible) << "l " << l << " c " << c;
      EXPECT_DOUBLE_EQ(s.makespan, revolve_forwards(l, c) + l * (1 + 3)) << "l " << l << " c " << c;
    }
  EXPECT_DOUBLE_EQ(revolve_forwards(10, 1), 45);  // from x_0 each time
  EXPECT_DOUBLE_EQ(revolve_forwards(3, 2), 2);
}

// Chen et al. (2016): keep a^k every ~√L layers, recompute each segment once.
std::vector<Step> chen_sequence(int L, int segment) {
  std::vector<Step> steps;
  std::vector<int> starts;
  for (int s = 1; s <= L; s += segment) starts.push_back(s);
  for (std::size_t n = 0; n + 1 < starts.size(); ++n)
    for (int i = starts[n]; i < starts[n + 1]; ++i)
      steps.push_back({i == starts[n] ? OpKind::ForwardCheckpoint : OpKind::ForwardNone, i});
  for (std::size_t n = starts.size(); n-- > 0;) {
    const int end = n + 1 < starts.size() ? starts[n + 1] - 1 : L;
    for (int i = starts[n]; i <= end; ++i) steps.push_back({OpKind::ForwardAll, i});
    for (int i = end; i >= starts[n]; --i) steps.push_back({OpKind::Backward, i});
  }
  return steps;
}

TEST(MemorySavingRemat, NeverLosesToChenSqrtStrategy) {
  std::mt19937 rng(16);
  for (int trial = 0; trial < 20; ++trial) {
    const int L = 4 + trial * 2;
    const Chain chain = random_integer_chain(rng, L);
    const int segment = static_cast<int>(std::lround(std::sqrt(L)));
    const std::vector<Operation> chen = replay_sequence(chain, chen_sequence(L, segment));
    const double limit = peak_memory(chen);
    const Solution s = solve_rematerialization(chain, limit, static_cast<int>(limit));
    ASSERT_TRUE(s.feasible) << L;
    EXPECT_LE(s.makespan, end_time(chen)) << L;
    EXPECT_LE(s.peak_memory, limit);
  }
}

TEST(MemorySavingRemat, CoarseGridStaysUnderTheTrueLimit) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> size(0.1, 3.0), time(0.5, 4.0);
  for (int trial = 0; trial < 30; ++trial) {
    Chain chain;
    chain.input_size = size(rng);
    for (int i = 0; i < 12; ++i) {
      const double a = size(rng);
      chain.layers.push_back({time(rng), time(rng), a, a + size(rng), size(rng), 0, 0});
    }
    const double limit = 1.5 * min_feasible_limit(chain);
    const Solution fine = solve_rematerialization(chain, limit, 2000);
    for (int slots : {20, 50, 200}) {
      const Solution coarse = solve_rematerialization(chain, limit, slots);
      if (!coarse.feasible) continue;
      EXPECT_LE(coarse.peak_memory, limit) << trial << " " << slots;
      ASSERT_TRUE(fine.feasible);
      EXPECT_GE(coarse.makespan, fine.makespan - 1e-9) << trial << " " << slots;
    }
  }
}

TEST(MemorySavingRemat, SequenceIsTimedAndSizedByHand) {
  // a^0 = 1, δ = 1, a^i = 1, ā^i = 2, u_f = 1, u_b = 2; δ^2 counted from 0.
  const Chain chain = homogeneous_chain(2, {1, 2, 1, 2, 1, 0, 0}, 1);
  const Solution roomy = solve_rematerialization(chain, 100, 100);
  EXPECT_EQ(describe(roomy.ops),
            "F_all 1 start=0 duration=1 memory=4\n"
            "F_all 2 start=1 duration=1 memory=6\n"
            "B 2 start=2 duration=2 memory=7\n"
            "B 1 start=4 duration=2 memory=5\n");
  // At 6, B^2 cannot run beside ā^1: keep a^1 instead and recompute layer 1.
  const Solution tight = solve_rematerialization(chain, 6, 6);
  EXPECT_DOUBLE_EQ(tight.makespan, 7);
  EXPECT_EQ(describe(tight.ops),
            "F_ck 1 start=0 duration=1 memory=3\n"
            "F_all 2 start=1 duration=1 memory=5\n"
            "B 2 start=2 duration=2 memory=6\n"
            "F_all 1 start=4 duration=1 memory=4\n"
            "B 1 start=5 duration=2 memory=5\n");
  EXPECT_DOUBLE_EQ(tight.min_feasible_limit, 6);
}

TEST(MemorySavingRemat, UnusableInputsThrowWithTheField) {
  Chain chain = homogeneous_chain(3, {1, 1, 2, 1, 0, 0, 0}, 1);
  EXPECT_EQ(error_message<std::invalid_argument>([&] { solve_rematerialization(chain, 10, 10); }),
            "layers[0].tape_size: must be >= output_size (2)");
  chain.layers.assign(3, {1, 1, 1, 1, 0, 0, 0});
  EXPECT_THROW(solve_rematerialization(chain, -1, 10), std::invalid_argument);
  EXPECT_THROW(solve_rematerialization(chain, 10, 0), std::invalid_argument);
  chain.layers.assign(1000, {1, 1, 1, 1, 0, 0, 0});
  EXPECT_EQ(error_message<std::invalid_argument>([&] { solve_rematerialization(chain, 10, 1000); }),
            "slots: L(L+1)/2 x (N+1) = 501000500 table cells, at most 100000000 supported; use fewer slots");
}

}  // namespace
}  // namespace pipesim::memory_saving
