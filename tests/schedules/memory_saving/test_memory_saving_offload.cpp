// Seed 002's program with offloading (β > 0) against an exhaustive search
// over its class of sequences, against rematerialization (β = 0, large β),
// monotonicity, infeasible limits; the replay with transfers by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "schedules/memory_saving/chain_internal.hpp"
#include "schedules/memory_saving/offloading.hpp"
#include "schedules/memory_saving/rematerialization.hpp"
#include "schedules/memory_saving/transfer_replay_internal.hpp"
#include "tests/schedules/memory_saving/test_memory_saving_class_search.hpp"
#include "tests/schedules/memory_saving/test_memory_saving_exhaustive.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::memory_saving {
namespace {

using pipesim::testing::error_message;

using testing::class_optimum;
using testing::kNever;
using testing::random_integer_chain;

// Integer sizes and N = limit: the grid is exact.
Solution solve_exact(const Chain& chain, double limit, double bandwidth) {
  return solve_offloading(chain, limit, static_cast<int>(limit), bandwidth);
}

void expect_replay_matches(const Solution& s, double limit, const std::string& where) {
  EXPECT_NEAR(finish_time(s.ops), s.makespan, 1e-9 * s.makespan) << where;
  EXPECT_LE(s.peak_memory, limit + 1e-9) << where;
}

TEST(MemorySavingOffload, EqualsExhaustiveSearchOverItsClass) {
  std::mt19937 rng(2002);
  int feasible = 0, infeasible = 0, offloading_helps = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const Chain chain = random_integer_chain(rng, 1 + trial % 5);
    const double bandwidth = (trial % 3 + 1) * 0.5;  // 0.5, 1, 1.5
    const double least = min_feasible_limit_offloading(chain, bandwidth);
    for (double limit = least - 1; limit <= least + 5; limit += 1) {
      if (limit <= 0) continue;
      const std::string where = "trial " + std::to_string(trial) + " limit " + std::to_string(limit);
      const double expected = class_optimum(chain, limit, bandwidth);
      const Solution s = solve_exact(chain, limit, bandwidth);
      ASSERT_EQ(s.feasible, expected != kNever) << where;
      if (!s.feasible) {
        ++infeasible;
        continue;
      }
      ++feasible;
      ASSERT_NEAR(s.makespan, expected, 1e-9 * expected) << where;
      expect_replay_matches(s, limit, where);
      const Solution remat = solve_rematerialization(chain, limit, static_cast<int>(limit));
      offloading_helps += !remat.feasible || s.makespan < remat.makespan - 1e-9;
    }
  }
  EXPECT_EQ(feasible, 900);
  EXPECT_EQ(infeasible, 150);
  EXPECT_EQ(offloading_helps, 82);  // strictly faster than rematerialization alone
}

TEST(MemorySavingOffload, ZeroBandwidthIsRematerialization) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> size(0.1, 3.0), time(0.5, 4.0);
  for (int trial = 0; trial < 20; ++trial) {
    Chain chain;
    chain.input_size = size(rng);
    for (int i = 0; i < 6 + trial; ++i) {
      const double a = size(rng);
      chain.layers.push_back({time(rng), time(rng), a, a + size(rng), size(rng), 0.1, 0.2});
    }
    for (double factor : {1.0, 1.3, 2.0}) {
      const double limit = factor * min_feasible_limit(chain);
      const Solution remat = solve_rematerialization(chain, limit, 100);
      const Solution off = solve_offloading(chain, limit, 100, 0);
      ASSERT_EQ(off.feasible, remat.feasible) << trial;
      EXPECT_EQ(off.makespan, remat.makespan) << trial;  // exactly
      EXPECT_EQ(describe(off.ops), describe(remat.ops)) << trial;
      EXPECT_EQ(off.min_feasible_limit, remat.min_feasible_limit) << trial;
    }
  }
}

// Real-valued sizes on coarse grids: rounding up keeps every returned
// sequence within the true limit, the replay still gives the program's time,
// and on the same grid offloading never loses to rematerialization.
TEST(MemorySavingOffload, CoarseGridStaysUnderTheTrueLimit) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> size(0.1, 3.0), time(0.5, 4.0);
  int checked = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Chain chain;
    chain.input_size = size(rng);
    for (int i = 0; i < 12; ++i) {
      const double a = size(rng);
      chain.layers.push_back({time(rng), time(rng), a, a + size(rng), size(rng), 0.1, 0.1});
    }
    const double limit = 1.5 * min_feasible_limit(chain);
    for (int slots : {20, 50, 200})
      for (double bandwidth : {0.3, 1.0, 5.0}) {
        const Solution remat = solve_rematerialization(chain, limit, slots);
        const Solution s = solve_offloading(chain, limit, slots, bandwidth);
        if (remat.feasible) {
          ASSERT_TRUE(s.feasible) << trial;  // the tail alone is rematerialization
        }
        if (!s.feasible) continue;
        ++checked;
        expect_replay_matches(s, limit, "trial " + std::to_string(trial) + " N " + std::to_string(slots));
        if (remat.feasible) {
          EXPECT_LE(s.makespan, remat.makespan) << trial;
        }
      }
  }
  EXPECT_EQ(checked, 180);  // all 20 chains x 3 grids x 3 bandwidths
}

TEST(MemorySavingOffload, LargeBandwidthNeverLosesAndTimeFallsWithBandwidthAndMemory) {
  std::mt19937 rng(11);
  int strictly = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const Chain chain = random_integer_chain(rng, 4 + trial % 9);
    const double least = min_feasible_limit(chain);
    double previous_limit = kNever;
    for (double limit = least; limit <= least + 8; limit += 1) {
      const Solution remat = solve_rematerialization(chain, limit, static_cast<int>(limit));
      const Solution fast = solve_exact(chain, limit, 1e9);
      ASSERT_TRUE(fast.feasible);
      EXPECT_LE(fast.makespan, remat.makespan) << trial;
      strictly += fast.makespan < remat.makespan;
      double previous = kNever;
      for (double bandwidth : {0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 1e9}) {
        const Solution s = solve_exact(chain, limit, bandwidth);
        ASSERT_TRUE(s.feasible);
        EXPECT_LE(s.makespan, previous) << trial << " limit " << limit << " bandwidth " << bandwidth;
        previous = s.makespan;
        expect_replay_matches(s, limit, "trial " + std::to_string(trial));
      }
      const Solution mid = solve_exact(chain, limit, 1.0);
      EXPECT_LE(mid.makespan, previous_limit) << trial << " limit " << limit;
      previous_limit = mid.makespan;
    }
  }
  EXPECT_EQ(strictly, 191);  // of 270
}

TEST(MemorySavingOffload, InfeasibleLimitReportsTheSmallestThatWorks) {
  // Offloading does not lower the least limit of the model: a sequence can
  // always recompute from a^0, so the least is set by one forward or
  // backward beside a^0 (here B^4: a^0 + a^3 + ā^4 = 1 + 3 + 4).
  const Chain chain = homogeneous_chain(4, {1, 2, 3, 4, 0, 0, 0}, 1);
  const double least = min_feasible_limit_offloading(chain, 1);
  EXPECT_DOUBLE_EQ(least, 8);
  EXPECT_DOUBLE_EQ(min_feasible_limit(chain), 8);
  const Solution below = solve_exact(chain, least - 1, 1);
  EXPECT_FALSE(below.feasible);
  EXPECT_TRUE(below.ops.empty());
  EXPECT_TRUE(std::isinf(below.makespan));
  EXPECT_DOUBLE_EQ(below.min_feasible_limit, least);
  EXPECT_EQ(class_optimum(chain, least - 1, 1), kNever);
  const Solution at = solve_exact(chain, least, 1);
  ASSERT_TRUE(at.feasible);
  EXPECT_DOUBLE_EQ(class_optimum(chain, least, 1), at.makespan);
  expect_replay_matches(at, least, "least");
  // On random chains: the least limit of the class is feasible, one below is
  // not, and it is the rematerialization one.
  std::mt19937 rng(8);
  for (int trial = 0; trial < 40; ++trial) {
    const Chain c = random_integer_chain(rng, 1 + trial % 5);
    const double l = min_feasible_limit_offloading(c, 1);
    EXPECT_DOUBLE_EQ(l, min_feasible_limit(c)) << trial;
    EXPECT_NE(class_optimum(c, l, 1), kNever) << trial;
    EXPECT_EQ(class_optimum(c, l - 1, 1), kNever) << trial;
    EXPECT_TRUE(solve_exact(c, l, 1).feasible) << trial;
  }
}

// The class is a real restriction: in it an offload overlaps the forwards
// of one segment only. Here the free of a^2 one segment later (after F_ck 4
// rather than before it) lets the offload finish beside F_ck 4: 39 against
// the program's (and the class's) 41, within the same limit.
TEST(MemorySavingOffload, LaterFreeOutsideTheClassCanBeFaster) {
  Chain chain;
  chain.input_size = 2;
  chain.layers = {{4, 4, 2, 2, 0, 1, 0},
                  {1, 3, 3, 6, 2, 0, 1},
                  {4, 5, 0, 0, 1, 0, 1},
                  {2, 4, 0, 3, 1, 1, 0},
                  {1, 8, 2, 5, 1, 0, 0}};
  const double limit = 13, bandwidth = 0.5;
  const Solution s = solve_exact(chain, limit, bandwidth);
  ASSERT_TRUE(s.feasible);
  EXPECT_DOUBLE_EQ(s.makespan, 41);
  EXPECT_DOUBLE_EQ(class_optimum(chain, limit, bandwidth), 41);
  const std::vector<Operation> later = replay_with_transfers(chain,
                                                             {{OpKind::ForwardAll, 1},
                                                              {OpKind::ForwardCheckpoint, 2},
                                                              {OpKind::Offload, 2},
                                                              {OpKind::ForwardAll, 3},
                                                              {OpKind::ForwardCheckpoint, 4},
                                                              {OpKind::Free, 2},
                                                              {OpKind::ForwardAll, 5},
                                                              {OpKind::Backward, 5},
                                                              {OpKind::Prefetch, 2},
                                                              {OpKind::ForwardAll, 4},
                                                              {OpKind::Backward, 4},
                                                              {OpKind::Backward, 3},
                                                              {OpKind::ForwardAll, 2},
                                                              {OpKind::Backward, 2},
                                                              {OpKind::Backward, 1}},
                                                             bandwidth);
  EXPECT_DOUBLE_EQ(finish_time(later), 39);
  EXPECT_DOUBLE_EQ(peak_memory(later), 13);
}

TEST(MemorySavingOffload, ReplayTimesComputeAndLinkByHand) {
  // a^0 = 1, a^i = 2, ā^i = 3, δ = 0, u_f = 1, u_b = 2, bandwidth 1: a^1
  // takes 2 to move. F_ck 1 [0,1]; the offload of a^1 [1,3] runs beside
  // F_all 2 [1,2]; the free waits for the offload (3); the prefetch [3,5]
  // holds a^1 again from 3; B 2 needs a^1, so waits for it (5).
  const Chain chain = homogeneous_chain(2, {1, 2, 2, 3, 0, 0, 0}, 1);
  const std::vector<Operation> ops = replay_with_transfers(chain,
                                                           {{OpKind::ForwardCheckpoint, 1},
                                                            {OpKind::Offload, 1},
                                                            {OpKind::ForwardAll, 2},
                                                            {OpKind::Free, 1},
                                                            {OpKind::Prefetch, 1},
                                                            {OpKind::Backward, 2},
                                                            {OpKind::ForwardAll, 1},
                                                            {OpKind::Backward, 1}},
                                                           1);
  EXPECT_EQ(describe(ops),
            "F_ck 1 start=0 duration=1 memory=3\n"
            "offload 1 start=1 duration=2 memory=6\n"
            "F_all 2 start=1 duration=1 memory=6\n"
            "free 1 start=3 duration=0 memory=6\n"  // 4, and the prefetch takes 2 at once
            "prefetch 1 start=3 duration=2 memory=6\n"
            "B 2 start=5 duration=2 memory=6\n"
            "F_all 1 start=7 duration=1 memory=4\n"
            "B 1 start=8 duration=2 memory=4\n");
  EXPECT_DOUBLE_EQ(finish_time(ops), 10);
  EXPECT_DOUBLE_EQ(peak_memory(ops), 6);
}

TEST(MemorySavingOffload, ReplayRefusesWhatCannotRun) {
  const Chain chain = homogeneous_chain(3, {1, 2, 2, 3, 0, 0, 0}, 1);
  EXPECT_EQ(error_message<std::logic_error>([&] {
              replay_with_transfers(chain, {{OpKind::ForwardCheckpoint, 1}, {OpKind::Prefetch, 1}}, 1);
            }),
            "step 1 (prefetch 1): nothing to prefetch (a^i never offloaded)");
  EXPECT_EQ(error_message<std::logic_error>([&] {
              replay_with_transfers(chain, {{OpKind::ForwardCheckpoint, 1}, {OpKind::Offload, 1}}, 0);
            }),
            "step 1 (offload 1): transfer over a link of bandwidth 0");
  EXPECT_EQ(error_message<std::logic_error>([&] {
              replay_with_transfers(
                  chain,
                  {{OpKind::ForwardCheckpoint, 1}, {OpKind::Offload, 1}, {OpKind::Free, 1}, {OpKind::ForwardNone, 2}},
                  1);
            }),
            "step 3 (F_none 2): input activation missing");
}

TEST(MemorySavingOffload, UnusableBandwidthThrows) {
  const Chain chain = homogeneous_chain(3, {1, 2, 2, 3, 0, 0, 0}, 1);
  EXPECT_EQ(error_message<std::invalid_argument>([&] { solve_offloading(chain, 10, 10, -1); }),
            "bandwidth: a finite number >= 0 expected");
  EXPECT_THROW(solve_offloading(chain, 10, 10, std::nan("")), std::invalid_argument);
  const Chain long_chain = homogeneous_chain(1000, {1, 2, 2, 3, 0, 0, 0}, 1);
  // Remat alone would take N = 150.
  EXPECT_EQ(error_message<std::invalid_argument>([&] { solve_offloading(long_chain, 10, 150, 1); }),
            "slots: L(L+1) x (N+1) = 151151000 table cells, at most 100000000 supported; use fewer slots");
}

}  // namespace
}  // namespace pipesim::memory_saving
