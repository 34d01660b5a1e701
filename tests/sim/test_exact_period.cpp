#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "sim/exact_period.hpp"

using namespace pipesim;

namespace {

// The cycle as a set of nodes, whatever node Boost starts it from.
std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Reference: the largest lambda for which delay - lambda * tokens has a
// non-negative cycle, by bisection with Floyd-Warshall (max-plus).
double brute_force_period(const TimedEventGraph& g) {
  const int n = static_cast<int>(g.nodes.size());
  auto has_positive_cycle = [&](double lambda) {
    std::vector<std::vector<double>> d(n, std::vector<double>(n, -INFINITY));
    for (const EventArc& a : g.arcs) d[a.from][a.to] = std::max(d[a.from][a.to], a.delay - lambda * a.tokens);
    for (int k = 0; k < n; ++k)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) d[i][j] = std::max(d[i][j], d[i][k] + d[k][j]);
    for (int i = 0; i < n; ++i)
      if (d[i][i] > 0) return true;
    return false;
  };
  double lo = 0, hi = 0;
  for (const EventArc& a : g.arcs) hi += a.delay;
  for (int it = 0; it < 200; ++it) {
    const double mid = (lo + hi) / 2;
    (has_positive_cycle(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

TEST(ExactPeriod, TwoNodeCycle) {
  TimedEventGraph g;
  int a = g.add_node("a"), b = g.add_node("b");
  g.add_arc(a, b, 1, 0);
  g.add_arc(b, a, 2, 1);
  const ExactPeriod p = exact_period(g);
  EXPECT_DOUBLE_EQ(p.period, 3);
  EXPECT_EQ(sorted(p.critical_cycle), (std::vector<int>{0, 1}));
}

TEST(ExactPeriod, TakesTheMaximumOfTwoCycles) {
  TimedEventGraph g;
  for (const char* n : {"a", "b", "c"}) g.add_node(n);
  g.add_arc(0, 1, 1, 0);  // a <-> b: 3 / 1 = 3
  g.add_arc(1, 0, 2, 1);
  g.add_arc(1, 2, 4, 1);  // b <-> c: 8 / 2 = 4
  g.add_arc(2, 1, 4, 1);
  const ExactPeriod p = exact_period(g);
  EXPECT_DOUBLE_EQ(p.period, 4);
  EXPECT_EQ(sorted(p.critical_cycle), (std::vector<int>{1, 2}));
}

TEST(ExactPeriod, CriticalCycleIsInArcOrder) {
  TimedEventGraph g;
  for (const char* n : {"a", "b", "c"}) g.add_node(n);
  g.add_arc(0, 1, 1, 0);
  g.add_arc(1, 2, 1, 0);
  g.add_arc(2, 0, 1, 1);
  const ExactPeriod p = exact_period(g);
  EXPECT_DOUBLE_EQ(p.period, 3);
  ASSERT_EQ(p.critical_cycle.size(), 3u);
  const auto& c = p.critical_cycle;
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(c[(i + 1) % 3], (c[i] + 1) % 3);
}

TEST(ExactPeriod, SelfLoopAndMultipleTokens) {
  TimedEventGraph g;
  g.add_node("x");
  g.add_arc(0, 0, 5, 2);
  EXPECT_DOUBLE_EQ(exact_period(g).period, 2.5);
  EXPECT_EQ(exact_period(g).critical_cycle, std::vector<int>{0});
}

// Boost's default tolerance (0.005) would miss this difference in seconds.
TEST(ExactPeriod, ResolvesMillisecondDelays) {
  TimedEventGraph g;
  for (const char* n : {"a", "b", "c"}) g.add_node(n);
  g.add_arc(0, 1, 1.000e-3, 1);
  g.add_arc(1, 0, 1.000e-3, 1);  // 1.000e-3
  g.add_arc(1, 2, 1.000e-3, 1);
  g.add_arc(2, 1, 1.002e-3, 1);  // 1.001e-3
  const ExactPeriod p = exact_period(g);
  EXPECT_DOUBLE_EQ(p.period, 1.001e-3);
  EXPECT_EQ(sorted(p.critical_cycle), (std::vector<int>{1, 2}));
}

TEST(ExactPeriod, ZeroTokenCycleThrowsAndNamesIt) {
  TimedEventGraph g;
  g.add_node("F s0 mb0");
  g.add_node("F s1 mb0");
  g.add_node("other");
  g.add_arc(0, 1, 1, 0);
  g.add_arc(1, 0, 1, 0);
  g.add_arc(2, 2, 1, 1);
  try {
    exact_period(g);
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("zero tokens"), std::string::npos) << what;
    EXPECT_NE(what.find("F s0 mb0"), std::string::npos) << what;
    EXPECT_NE(what.find("F s1 mb0"), std::string::npos) << what;
    EXPECT_EQ(what.find("other"), std::string::npos) << what;
  }
}

TEST(ExactPeriod, AcyclicGraphThrows) {
  TimedEventGraph g;
  g.add_node("a");
  g.add_node("b");
  g.add_arc(0, 1, 1, 1);
  EXPECT_THROW(exact_period(g), std::invalid_argument);
  EXPECT_THROW(exact_period(TimedEventGraph{}), std::invalid_argument);
}

TEST(ExactPeriod, NegativeTokensThrow) {
  TimedEventGraph g;
  g.add_node("a");
  g.add_arc(0, 0, 1, -1);
  EXPECT_THROW(exact_period(g), std::invalid_argument);
}

TEST(ExactPeriod, ZeroDelaysGiveZeroPeriod) {
  TimedEventGraph g;
  g.add_node("a");
  g.add_node("b");
  g.add_arc(0, 1, 0, 0);
  g.add_arc(1, 0, 0, 1);
  const ExactPeriod p = exact_period(g);
  EXPECT_EQ(p.period, 0);
  EXPECT_EQ(sorted(p.critical_cycle), (std::vector<int>{0, 1}));
}

TEST(ExactPeriod, MatchesBruteForceOnRandomGraphs) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> delay(1e-4, 5e-3);
  for (int trial = 0; trial < 50; ++trial) {
    TimedEventGraph g;
    const int n = 3 + trial % 6;
    for (int i = 0; i < n; ++i) g.add_node("n" + std::to_string(i));
    for (int i = 0; i < n; ++i) {
      g.add_arc(i, (i + 1) % n, delay(rng), i + 1 == n ? 1 : 0);  // a ring: always a cycle
      const int j = static_cast<int>(rng() % n);
      // Zero-token arcs only go forward, so no cycle is token-free.
      g.add_arc(i, j, delay(rng), j > i ? static_cast<int>(rng() % 2) : 1 + static_cast<int>(rng() % 3));
    }
    const ExactPeriod p = exact_period(g);
    EXPECT_NEAR(p.period, brute_force_period(g), 1e-12) << "trial " << trial;
    // The reported cycle follows arcs of the graph.
    const auto& c = p.critical_cycle;
    ASSERT_FALSE(c.empty());
    for (std::size_t k = 0; k < c.size(); ++k) {
      const int from = c[k], to = c[(k + 1) % c.size()];
      EXPECT_TRUE(
          std::any_of(g.arcs.begin(), g.arcs.end(), [&](const EventArc& a) { return a.from == from && a.to == to; }))
          << "trial " << trial << ": no arc " << from << " -> " << to;
    }
  }
}

TEST(ExactPeriod, LargeRing) {
  TimedEventGraph g;
  const int n = 200000;
  for (int i = 0; i < n; ++i) g.add_node("n" + std::to_string(i));
  for (int i = 0; i < n; ++i) g.add_arc(i, (i + 1) % n, 1e-3, i % 1000 == 0 ? 1 : 0);
  const ExactPeriod p = exact_period(g);
  EXPECT_NEAR(p.period, 1.0, 1e-9);  // 1000 arcs of 1 ms per token
  EXPECT_EQ(p.critical_cycle.size(), static_cast<std::size_t>(n));
}
