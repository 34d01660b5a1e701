// The memory lower bound on the period (schedules/ilp/ilp_memory_bound.hpp)
// against its closed form, and never above the period of a valid pattern
// given exactly the memory it needs.
#include <gtest/gtest.h>

#include <random>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "schedules/ilp/ilp.hpp"
#include "schedules/ilp/ilp_instance.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

// Two layers (F 1, 2 s; B 2, 3 s), input 4 bytes, a_0 = 3, weights 1 each,
// flush (two copies of the weights), on two devices. F_0's stash (the
// input) is held at least h_0 = d(F_0) + d(F_1) + d(B_1) = 6 s, F_1's (a_0)
// h_1 = d(F_1) = 2 s: at period T, 4 * 6 / T + 2 and 3 * 2 / T + 2 bytes on
// average. With 6 bytes per device, layer 0 alone needs T >= 24 / 4 = 6,
// above the load bound 5 (layer 1's 2 + 3 s); with 12, the load bound stands.
TEST(IlpMemoryBound, ClosedForm) {
  const Workload w = chain_workload({1, 2}, {2, 3}, {3, 1}, 4, {1, 1});
  for (const auto& [memory, bound] : {std::pair{6.0, 6.0}, std::pair{12.0, 5.0}}) {
    Platform p = pattern_platform(2);
    for (Device& d : p.devices) d.memory = memory;
    IlpOptions o;
    o.weights = WeightPolicy::Flush;
    EXPECT_NEAR(ilp::make_instance(w, p, o, 0).T_lower, bound, 1e-9 * bound) << memory;
  }
  // Fixed mode, layer 0 on device 0 and layer 1 on device 1, 6 bytes each:
  // device 0 holds 24 / T + 2, so again T >= 6, above the allocation's load bound 5.
  Platform p = pattern_platform(2);
  for (Device& d : p.devices) d.memory = 6;
  IlpOptions o;
  o.weights = WeightPolicy::Flush;
  o.allocation = Allocation{0, 1};
  EXPECT_NEAR(ilp::make_instance(w, p, o, 0).T_lower, 6, 1e-9);
}

// Valid patterns given exactly the memory they need: PipeDream's eager
// patterns (NOAM 1..stages, weight stashing) and 1F1B kFkB patterns (flush,
// 2bw) of random chains whose input dwarfs the rest, so that few
// micro-batches fit and the period exceeds the load. In fixed mode (each
// device its pattern's peak) and in free mode (every device the largest),
// the bound never exceeds the pattern's exact period, and memory raises it
// above the load bound in 15 of the 270.
TEST(IlpMemoryBound, NeverAbovePatternsThatFitTheirOwnPeaks) {
  int cases = 0, binding = 0;
  for (int seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(seed);
    auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
    const int L = 3 + seed % 4, P = 2 + seed % 2;
    std::vector<double> f, b, a, weights;
    for (int l = 0; l < L; ++l) {
      f.push_back(uniform(0.5, 2)), b.push_back(uniform(1, 3));
      a.push_back(std::floor(uniform(1e6, 1e7))), weights.push_back(std::floor(uniform(1e5, 1e6)));
    }
    const Workload w = chain_workload(f, b, a, std::floor(uniform(1e8, 1e9)), weights);
    Platform platform = pattern_platform(P);
    Allocation allocation(L);
    for (int l = 0; l < L; ++l) allocation[l] = l * P / L;  // contiguous, every device used
    std::vector<Pattern> patterns;
    for (int noam = 1; noam <= P; ++noam) patterns.push_back(pipedream_pattern(allocation, noam, w, platform));
    for (const WeightPolicy policy : {WeightPolicy::Flush, WeightPolicy::TwoBW})
      patterns.push_back(kfkb_pattern(1, allocation, w, platform, policy));
    for (const Pattern& pattern : patterns) {
      const PatternTiming timing = pattern_timing(pattern, w, platform);
      const double period = exact_period(pattern_event_graph(pattern, timing)).period;
      const PatternMemory memory = pattern_memory(pattern, timing, w, platform.size());
      IlpOptions o;
      o.copies = pattern.copies;
      o.weights = pattern.weights;
      for (const bool fixed : {true, false}) {
        SCOPED_TRACE("seed " + std::to_string(seed) + (fixed ? " fixed " : " free ") +
                     std::string(to_string(pattern.weights)));
        if (fixed)
          o.allocation = allocation;
        else
          o.allocation.reset();
        double largest = 0;
        for (const PatternDeviceMemory& d : memory.devices) largest = std::max(largest, d.peak);
        for (int d = 0; d < P; ++d) platform.devices[d].memory = fixed ? memory.devices[d].peak : largest;
        const double bound = ilp::make_instance(w, platform, o, 0).T_lower;
        EXPECT_LE(bound, period * (1 + 1e-9));
        for (Device& d : platform.devices) d.memory = 0;  // no limit: the load bound alone
        binding += bound > ilp::make_instance(w, platform, o, 0).T_lower * (1 + 1e-9);
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 270);
  EXPECT_EQ(binding, 15);
  std::cout << binding << " of " << cases << " bounds raised by memory\n";
}

}  // namespace
}  // namespace pipesim
