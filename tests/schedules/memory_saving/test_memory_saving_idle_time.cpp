// Lemma 1 of seed 002 (schedules/memory_saving/idle_time) against an
// event-by-event replay of a fixed sequence while the link offloads or
// prefetches at β.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/schedules/memory_saving/idle_time.hpp"

namespace pipesim::memory_saving {
namespace {

// Offload: the memory left to operations is m_min + β τ at time τ; each
// operation starts when the previous one ended and its memory is there.
double replay_offload(const std::vector<TimedNeed>& ops, double m_min, double beta) {
  double now = 0, busy = 0;
  for (const TimedNeed& o : ops) {
    if (m_min + beta * now < o.memory) now = (o.memory - m_min) / beta;  // wait for the link
    now += o.duration;
    busy += o.duration;
  }
  return now - busy;
}

// Prefetch: the memory left is m_min + β (T - τ) before the transfer ends at
// T, so an operation must END early enough; the operations run back to back
// from 0 and the transfer ends at T = busy + idle. Does `idle` suffice?
bool prefetch_fits(const std::vector<TimedNeed>& ops, double m_min, double beta, double idle) {
  double busy = 0;
  for (const TimedNeed& o : ops) busy += o.duration;
  const double end = busy + idle;
  double now = 0;
  for (const TimedNeed& o : ops) {
    now += o.duration;
    if (m_min + beta * (end - now) < o.memory - 1e-9) return false;
  }
  return true;
}

std::vector<TimedNeed> random_sequence(std::mt19937& rng) {
  std::uniform_int_distribution<int> length(1, 12);
  std::uniform_real_distribution<double> duration(0.1, 3.0), memory(0.0, 10.0);
  std::vector<TimedNeed> ops(length(rng));
  for (TimedNeed& o : ops) o = {duration(rng), memory(rng)};
  return ops;
}

TEST(MemorySavingIdleTime, OffloadFormulaEqualsReplay) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> m_min(0.0, 8.0), beta(0.2, 5.0);
  int positive = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const auto ops = random_sequence(rng);
    const double m = m_min(rng), b = beta(rng);
    const double idle = offload_idle_time(ops, m, b);
    EXPECT_NEAR(idle, replay_offload(ops, m, b), 1e-9) << trial;
    positive += idle > 0;
  }
  EXPECT_GT(positive, 100);  // the instances do make memory bind
}

TEST(MemorySavingIdleTime, PrefetchFormulaIsTheLeastIdleThatFits) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> m_min(0.0, 8.0), beta(0.2, 5.0);
  int positive = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const auto ops = random_sequence(rng);
    const double m = m_min(rng), b = beta(rng);
    const double idle = prefetch_idle_time(ops, m, b);
    EXPECT_TRUE(prefetch_fits(ops, m, b, idle)) << trial;
    if (idle > 0) {
      ++positive;
      EXPECT_FALSE(prefetch_fits(ops, m, b, idle - 1e-6)) << trial;
    }
  }
  EXPECT_GT(positive, 100);
}

TEST(MemorySavingIdleTime, HandComputedAndEdgeCases) {
  // Needs 5 then 9 with 4 left, β = 2. Offload: d = 0, 1, so
  // (max(5 - 0, 9 - 2) - 4) / 2 = 1.5 (the replay waits 0.5, then 1).
  const std::vector<TimedNeed> ops{{1, 5}, {2, 9}};
  EXPECT_DOUBLE_EQ(offload_idle_time(ops, 4, 2), 1.5);
  EXPECT_DOUBLE_EQ(replay_offload(ops, 4, 2), 1.5);
  // Prefetch: d = 2, 0, so (max(5 - 4, 9 - 0) - 4) / 2 = 2.5.
  EXPECT_DOUBLE_EQ(prefetch_idle_time(ops, 4, 2), 2.5);
  EXPECT_TRUE(std::isinf(offload_idle_time(ops, 4, 0)));
  EXPECT_DOUBLE_EQ(offload_idle_time(ops, 9, 0), 0);
  EXPECT_DOUBLE_EQ(prefetch_idle_time({}, 1, 1), 0);
}

}  // namespace
}  // namespace pipesim::memory_saving
