// The fixed-allocation improvement loop (docs/ilp.md, "Allocation search"):
// from the heuristic's pattern it moves one boundary layer at a time while
// the moved allocation's own model finds a faster pattern; what it returns is
// valid, never slower than its start, and, at a local optimum, no boundary
// neighbour's model does better.
#include <gtest/gtest.h>

#include <random>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_validation.hpp"
#include "schedules/ilp/ilp_allocation_search.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;
using Clock = std::chrono::steady_clock;

TEST(IlpAllocationSearch, BoundaryNeighboursMoveOneLayerAcrossEachBoundary) {
  const std::vector<Allocation> expected = {{0, 1, 1, 2}, {0, 0, 0, 2}, {0, 0, 2, 2}, {0, 0, 1, 1}};
  EXPECT_EQ(ilp::boundary_neighbours({0, 0, 1, 2}), expected);
  EXPECT_TRUE(ilp::boundary_neighbours({3, 3, 3}).empty());
  // Reach 2: up to two layers of either side's run cross the boundary.
  const std::vector<Allocation> reach2 = {{0, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {0, 0, 0, 1, 1}, {0, 0, 0, 0, 1}};
  EXPECT_EQ(ilp::boundary_neighbours({0, 0, 1, 1, 1}, 2), reach2);
  EXPECT_EQ(ilp::pattern_allocation(make_pattern(2, 1, 1, {F(0, 1, 0), B(0, 1, 0), F(1, 0, 0), B(1, 0, 0)}), 2),
            (Allocation{1, 0}));
}

struct Chain {
  Workload workload;
  Platform platform;
};

// 4-6 layers on 3 devices whose memory lets about two micro-batches of the
// whole chain's activations stay in flight: scarce enough that where the
// boundaries go matters.
Chain random_chain(int seed) {
  std::mt19937 rng(500 + seed);
  auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto integer = [&](long long a, long long b) { return std::uniform_int_distribution<long long>(a, b)(rng); };
  const int L = static_cast<int>(integer(4, 6));
  std::vector<double> f, b, a, w;
  double activations = 0;
  for (int l = 0; l < L; ++l) {
    f.push_back(uniform(0.5, 2.0));
    b.push_back(uniform(1.0, 3.0));
    a.push_back(static_cast<double>(integer(50'000'000, 400'000'000)));
    w.push_back(static_cast<double>(integer(1'000'000, 200'000'000)));
    activations += a.back();
  }
  Chain c{chain_workload(f, b, a, 100'000'000, w), pattern_platform(3, 0, 1e9)};
  for (Device& d : c.platform.devices) d.memory = std::floor(activations * uniform(1.6, 3.0));
  return c;
}

double per_microbatch(const IlpResult& r) { return r.period / r.pattern->copies; }

TEST(IlpAllocationSearch, NeverSlowerAndLocallyOptimal) {
  int improved = 0, local_optima = 0, cases = 0, neighbours = 0;
  for (int seed = 0; seed < 16; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Chain c = random_chain(seed);
    IlpOptions o;
    o.weights = WeightPolicy::Stashing;
    o.time_limit = 0;  // the heuristic's answer: the start
    const IlpResult start = solve_optimal_pattern(c.workload, c.platform, o);
    if (!start.pattern) continue;
    ++cases;
    const ilp::AllocationSearchResult s = ilp::search_allocations(
        c.workload, c.platform, o, {{*start.pattern, start.period}}, Clock::now() + std::chrono::seconds(60), 20);
    ASSERT_TRUE(s.best);
    const PatternTiming timing = pattern_timing(*s.best, c.workload, c.platform);
    EXPECT_TRUE(validate_pattern(*s.best, timing, c.platform, c.workload).empty());
    EXPECT_NEAR(exact_period(pattern_event_graph(*s.best, timing)).period, s.period, 1e-9 * s.period);
    const double best = s.period / s.best->copies;
    EXPECT_LE(best, per_microbatch(start) * (1 + 1e-12));
    const bool faster = best < per_microbatch(start) * (1 - 1e-9);
    if (faster && improved++ == 0) {  // inside solve_optimal_pattern: the heuristic descent, then this one
      IlpOptions searching = o;
      searching.time_limit = 8;
      searching.allocation_search = 1;
      const IlpResult r = solve_optimal_pattern(c.workload, c.platform, searching);
      ASSERT_TRUE(r.pattern) << r.message;
      EXPECT_LE(per_microbatch(r), r.allocation_search_period * (1 + 1e-9));  // then CBC, from it
      EXPECT_LT(r.allocation_search_period, per_microbatch(start));
      EXPECT_GT(r.allocation_solves, 0);
    }
    ASSERT_TRUE(s.local_optimum);  // tiny models: every solve ends well within its time
    ++local_optima;
    const int L = static_cast<int>(c.workload.layers.size());
    for (const Allocation& n : ilp::boundary_neighbours(ilp::pattern_allocation(*s.best, L))) {
      IlpOptions fixed = o;
      fixed.allocation = n;
      fixed.time_limit = 20;
      const IlpResult r = solve_optimal_pattern(c.workload, c.platform, fixed);
      if (r.pattern) {  // else no pattern of that allocation fits
        EXPECT_GE(per_microbatch(r), best * (1 - 1e-9)) << to_string(n);
        ++neighbours;
      }
    }
  }
  EXPECT_EQ(cases, 9);
  EXPECT_EQ(local_optima, cases);
  EXPECT_EQ(improved, 3);
  std::cout << neighbours << " neighbours re-solved\n";
  EXPECT_GT(neighbours, 0);
  std::cout << improved << " of " << cases << " chains improved on the heuristic\n";
}

}  // namespace
}  // namespace pipesim
