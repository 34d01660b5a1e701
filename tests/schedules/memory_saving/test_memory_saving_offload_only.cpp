// Offloading alone (no rematerialization): the program against an exhaustive
// search over its class and over all offload-only sequences, with infinite
// and zero bandwidth, and policy both (the faster of the two offloading
// programs) against each program alone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "schedules/memory_saving/combined.hpp"
#include "schedules/memory_saving/offload_only.hpp"
#include "schedules/memory_saving/offloading.hpp"
#include "schedules/memory_saving/rematerialization.hpp"
#include "schedules/memory_saving/transfer_replay_internal.hpp"
#include "tests/schedules/memory_saving/test_memory_saving_exhaustive.hpp"
#include "tests/schedules/memory_saving/test_memory_saving_offload_only_search.hpp"

namespace pipesim::memory_saving {
namespace {

using testing::least_time;
using testing::offload_only_candidates;
using testing::random_integer_chain;

// Integer sizes and N = limit: the grid is exact.
Solution solve_exact(const Chain& chain, double limit, double bandwidth) {
  return solve_offload_only(chain, limit, static_cast<int>(limit), bandwidth);
}

double compute_time(const Chain& chain) {
  double t = 0;
  for (const ChainLayer& l : chain.layers) t += l.forward_time + l.backward_time;
  return t;
}

// Keeping every tape: F_all^1..F_all^L, B^L..B^1.
double keep_all_peak(const Chain& chain) {
  std::vector<Step> steps;
  for (int i = 1; i <= chain.length(); ++i) steps.push_back({OpKind::ForwardAll, i});
  for (int i = chain.length(); i >= 1; --i) steps.push_back({OpKind::Backward, i});
  return peak_memory(replay_sequence(chain, steps));
}

// Each forward once, all F_all, the backwards in order; only tapes move.
void expect_offload_only(const Solution& s, const Chain& chain, double limit, const std::string& where) {
  EXPECT_NEAR(finish_time(s.ops), s.makespan, 1e-9 * s.makespan) << where;
  EXPECT_LE(s.peak_memory, limit + 1e-9) << where;
  int forwards = 0, backwards = 0;
  for (const Operation& op : s.ops) {
    EXPECT_NE(op.kind, OpKind::ForwardCheckpoint) << where;
    EXPECT_NE(op.kind, OpKind::ForwardNone) << where;
    if (op.kind == OpKind::ForwardAll) {
      EXPECT_EQ(op.layer, ++forwards) << where;
    } else if (op.kind == OpKind::Backward) {
      EXPECT_EQ(op.layer, chain.length() - backwards++) << where;
    }
  }
  EXPECT_EQ(forwards, chain.length()) << where;
  EXPECT_EQ(backwards, chain.length()) << where;
}

int offloads(const Solution& s) {
  int n = 0;
  for (const Operation& op : s.ops) n += op.kind == OpKind::Offload;
  return n;
}

TEST(MemorySavingOffloadOnly, EqualsExhaustiveSearchOverItsClass) {
  std::mt19937 rng(15015);
  int feasible = 0, infeasible = 0, offloading = 0;
  for (int trial = 0; trial < 90; ++trial) {
    const Chain chain = random_integer_chain(rng, 1 + trial % 6);
    const double bandwidth = (trial % 3 + 1) * 0.5;  // 0.5, 1, 1.5
    const auto candidates = offload_only_candidates(chain, bandwidth, true);
    const double least = min_feasible_limit_offload_only(chain, bandwidth);
    for (double limit = least - 1; limit <= keep_all_peak(chain) + 1; limit += 1) {
      if (limit <= 0) continue;
      const std::string where = "trial " + std::to_string(trial) + " limit " + std::to_string(limit);
      const double expected = least_time(candidates, limit, true);
      const Solution s = solve_exact(chain, limit, bandwidth);
      ASSERT_EQ(s.feasible, expected >= 0) << where;
      EXPECT_DOUBLE_EQ(s.min_feasible_limit, least) << where;
      if (!s.feasible) {
        ++infeasible;
        continue;
      }
      ++feasible;
      ASSERT_NEAR(s.makespan, expected, 1e-9 * expected) << where;
      expect_offload_only(s, chain, limit, where);
      offloading += offloads(s) > 0;
    }
  }
  EXPECT_EQ(feasible, 531);
  EXPECT_EQ(infeasible, 90);
  EXPECT_EQ(offloading, 351);
}

TEST(MemorySavingOffloadOnly, TheClassIsARestrictionOfAllOffloadOnlySequences) {
  // Overlapping transfers (a tape freed after the next one's offload began)
  // are offload-only sequences outside the class: never slower than the
  // program, sometimes faster.
  std::mt19937 rng(15016);
  int cases = 0, faster = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const Chain chain = random_integer_chain(rng, 3 + trial % 3);
    const double bandwidth = (trial % 3 + 1) * 0.5;
    const auto all = offload_only_candidates(chain, bandwidth, false);
    const double least = min_feasible_limit_offload_only(chain, bandwidth);
    for (double limit = least; limit <= keep_all_peak(chain); limit += 1) {
      const Solution s = solve_exact(chain, limit, bandwidth);
      ASSERT_TRUE(s.feasible);
      const double broad = least_time(all, limit, false);
      ASSERT_LE(broad, s.makespan + 1e-9);
      ++cases;
      faster += broad < s.makespan - 1e-9;
    }
  }
  EXPECT_EQ(cases, 178);
  EXPECT_EQ(faster, 14);
}

TEST(MemorySavingOffloadOnly, InfiniteBandwidthKeepsTwoTapesAndLosesNoTime) {
  // β -> ∞: each tape ā^i (i <= L-2) is on the GPU only during F^i, F^{i+1},
  // B^{i+1} and B^i, so the least limit keeps two tapes beside what an
  // operation needs, and from there on the time is the plain compute.
  std::mt19937 rng(15017);
  for (int trial = 0; trial < 40; ++trial) {
    const Chain chain = random_integer_chain(rng, 2 + trial % 11);
    const int L = chain.length();
    double least = 0;
    for (int x = 1; x <= L; ++x) {
      const ChainLayer& l = chain.layers[x - 1];
      const double two = chain.abar(x) + (x >= 2 ? chain.abar(x - 1) : 0);
      least = std::max({least, chain.delta(L) + two + l.forward_overhead,
                        two + chain.delta(x) + chain.delta(x - 1) + l.backward_overhead});
    }
    least += chain.input_size;
    const std::string where = "trial " + std::to_string(trial);
    EXPECT_DOUBLE_EQ(min_feasible_limit_offload_only(chain, 1e9), least) << where;
    for (double limit = least; limit <= least + 4; limit += 1) {
      const Solution s = solve_exact(chain, limit, 1e9);
      ASSERT_TRUE(s.feasible) << where;
      // A prefetch alone before its backward costs ā^i / β = 1e-9 per tape at most.
      EXPECT_NEAR(s.makespan, compute_time(chain), 1e-7) << where;
      expect_offload_only(s, chain, limit, where);
    }
    const Solution below = solve_exact(chain, least - 1, 1e9);
    EXPECT_FALSE(below.feasible) << where;
    EXPECT_TRUE(below.ops.empty()) << where;
    EXPECT_DOUBLE_EQ(below.min_feasible_limit, least) << where;
  }
}

TEST(MemorySavingOffloadOnly, ZeroBandwidthWorksOnlyWhereNothingNeedsSaving) {
  std::mt19937 rng(15018);
  for (int trial = 0; trial < 40; ++trial) {
    const Chain chain = random_integer_chain(rng, 1 + trial % 12);
    const double peak = keep_all_peak(chain);
    const std::string where = "trial " + std::to_string(trial);
    EXPECT_DOUBLE_EQ(min_feasible_limit_offload_only(chain, 0), peak) << where;
    for (double limit = std::max(1.0, peak - 3); limit <= peak + 2; limit += 1) {
      const Solution s = solve_exact(chain, limit, 0);
      ASSERT_EQ(s.feasible, limit >= peak) << where << " limit " << limit;
      if (!s.feasible) continue;
      EXPECT_DOUBLE_EQ(s.makespan, compute_time(chain)) << where;
      EXPECT_DOUBLE_EQ(s.peak_memory, peak) << where;
    }
  }
}

TEST(MemorySavingOffloadOnly, BothNeverLosesToEitherProgramAlone) {
  std::mt19937 rng(15019);
  int cases = 0, alone_beats_segments = 0, segments_beat_alone = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Chain chain = random_integer_chain(rng, 3 + trial % 10);
    const double bandwidth = (trial % 4 + 1) * 0.5;
    const double least = min_feasible_limit_combined(chain, bandwidth);
    for (double limit = std::ceil(least); limit <= keep_all_peak(chain) + 1; limit += 1) {
      const int N = static_cast<int>(limit);
      const Solution both = solve_combined(chain, limit, N, bandwidth);
      const Solution alone = solve_offload_only(chain, limit, N, bandwidth);
      const Solution segments = solve_offloading(chain, limit, N, bandwidth);
      const Solution remat = solve_rematerialization(chain, limit, N);
      const std::string where = "trial " + std::to_string(trial) + " limit " + std::to_string(limit);
      ASSERT_TRUE(both.feasible) << where;
      ++cases;
      for (const Solution* other : {&alone, &segments, &remat}) {
        if (other->feasible) {
          EXPECT_LE(both.makespan, other->makespan) << where;
        }
      }
      EXPECT_NEAR(finish_time(both.ops), both.makespan, 1e-9 * both.makespan) << where;
      EXPECT_LE(both.peak_memory, limit + 1e-9) << where;
      alone_beats_segments += alone.feasible && (!segments.feasible || alone.makespan < segments.makespan);
      segments_beat_alone += segments.feasible && (!alone.feasible || segments.makespan < alone.makespan);
    }
  }
  // Neither class contains the other.
  EXPECT_EQ(cases, 706);
  EXPECT_EQ(alone_beats_segments, 455);
  EXPECT_EQ(segments_beat_alone, 165);
}

TEST(MemorySavingOffloadOnly, ReplayMovesTapesAndUnusableInputsThrow) {
  // Two layers of tape 3 (output 1), β = 1: F_all 1, offload ā^1 (3 s) beside
  // F_all 2 (1 s), free ā^1 at 4, prefetch ā^1 (3 s) from 4 beside nothing:
  // B 2 reads a^1 and waits for the prefetch (7), B 1 after.
  Chain chain;
  chain.input_size = 1;
  chain.layers = {{1, 2, 1, 3, 0, 0, 0}, {1, 2, 1, 3, 0, 0, 0}};
  const std::vector<Step> steps = {{OpKind::ForwardAll, 1}, {OpKind::Offload, 1},  {OpKind::ForwardAll, 2},
                                   {OpKind::Free, 1},       {OpKind::Prefetch, 1}, {OpKind::Backward, 2},
                                   {OpKind::Backward, 1}};
  const std::vector<Operation> ops = replay_with_transfers(chain, steps, 1);
  ASSERT_EQ(ops.size(), 7u);
  EXPECT_EQ(ops[1].start, 1);  // offload of the tape: 3 units at β = 1
  EXPECT_EQ(ops[1].duration, 3);
  EXPECT_EQ(ops[3].start, 4);  // the free waits for it
  EXPECT_EQ(ops[4].start, 4);
  EXPECT_EQ(ops[5].start, 7);  // B 2 waits for a^1, inside the prefetched tape
  EXPECT_EQ(ops[6].start, 9);
  EXPECT_EQ(finish_time(ops), 11);
  EXPECT_EQ(ops[2].memory, 7);  // a^0 + ā^1 + ā^2
  EXPECT_EQ(ops[3].memory, 7);  // the free and the prefetch at 4: ā^1 leaves and comes back
  EXPECT_EQ(ops[5].memory, 7);  // B 2: a^0 + ā^1 + ā^2 (δ = 0)
  EXPECT_EQ(peak_memory(ops), 7);
  EXPECT_THROW(solve_offload_only(chain, 10, 10, -1), std::invalid_argument);
  EXPECT_THROW(solve_offload_only(chain, 10, 10, std::nan("")), std::invalid_argument);
  EXPECT_THROW(solve_offload_only(chain, 10, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace pipesim::memory_saving
