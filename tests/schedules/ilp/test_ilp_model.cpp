// The ILP's model against the project's own analysis: the memory it
// assigns to every op (the left side of seed 000 (36)) is pattern_memory's,
// its period for a pattern's orders and shifts is the pattern's exact
// period, and values -> pattern -> values round trips. No solver here
// except Clp for the LP with the integers fixed.
#include <gtest/gtest.h>

#include <cmath>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "schedules/ilp/ilp_formulation.hpp"
#include "schedules/ilp/ilp_solution.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

double total(const MemoryBreakdown& b) {
  double s = 0;
  for (double v : b) s += v;
  return s;
}

double exact(const Pattern& p, const Workload& w, const Platform& platform) {
  return exact_period(pattern_event_graph(p, pattern_timing(p, w, platform))).period;
}

Allocation allocation_of(const Pattern& p) {
  Allocation a(p.layers, 0);
  for (const PatternOp& o : p.ops) a[o.layer] = o.device;
  return a;
}

// Checks one pattern against a formulation (fixed or free allocation).
void check_against_model(const Pattern& p, const Workload& w, const Platform& platform, bool fixed,
                         const std::string& what, bool tight = true) {
  IlpOptions options;
  options.copies = p.copies;
  options.weights = p.weights;
  if (fixed) options.allocation = allocation_of(p);
  const ilp::Formulation F(ilp::make_instance(w, platform, options, 0));
  std::string why;
  const auto x = ilp::pattern_values(F, p, w, platform, why);
  ASSERT_TRUE(x) << what << ": " << why;
  EXPECT_LT(F.model().max_violation(*x), 1e-6) << what;
  const PatternTiming t = pattern_timing(p, w, platform);
  const PatternMemory memory = pattern_memory(p, t, w, platform.size());
  const ilp::Instance& in = F.instance();
  for (int o = 0; o < in.ops(); ++o) {
    if (!(in.duration[o] > 0)) continue;
    const int i = p.find(in.task(o), in.copy(o));
    // With k > 1 the warm start relabels copies (F_1's in copy order): compared per task below.
    if (p.copies == 1) {
      EXPECT_NEAR(F.memory()[o].value(*x), total(memory.during[i]), 1e-6 * total(memory.during[i]) + 1e-9)
          << what << " op " << in.name(o);
    }
  }
  if (p.copies > 1) {  // per task, the copies' memories as sorted lists
    for (int j = 1; j <= in.tasks(); ++j) {
      std::vector<double> model, analysis;
      for (int c = 0; c < in.k; ++c) {
        if (!(in.duration[in.op(j, c)] > 0)) continue;
        model.push_back(F.memory()[in.op(j, c)].value(*x));
        analysis.push_back(total(memory.during[p.find(j, c)]));
      }
      std::sort(model.begin(), model.end());
      std::sort(analysis.begin(), analysis.end());
      for (std::size_t i = 0; i < model.size(); ++i)
        EXPECT_NEAR(model[i], analysis[i], 1e-6 * analysis[i] + 1e-9) << what << " task " << j;
    }
  }
  const double period = exact(p, w, platform);
  EXPECT_LE((*x)[F.T_index()], p.period * (1 + 1e-9)) << what;
  EXPECT_GE((*x)[F.T_index()], period * (1 - 1e-9)) << what;
  // A pattern at its load bound: its orders and shifts reach it in the model.
  if (tight) {
    EXPECT_NEAR((*x)[F.T_index()], period, 1e-9 * period) << what;
  }
  // Values -> pattern: at most the model's period (the orders and shifts at
  // their exact period), no more memory on any device.
  const Pattern back = ilp::solution_to_pattern(F, *x, w, platform);
  EXPECT_LE(exact(back, w, platform), (*x)[F.T_index()] * (1 + 1e-9)) << what;
  EXPECT_GE(exact(back, w, platform), period * (1 - 1e-9)) << what;
  EXPECT_EQ(find_overlap(back, pattern_timing(back, w, platform), platform), "") << what;
  const PatternMemory after = pattern_memory(back, pattern_timing(back, w, platform), w, platform.size());
  double before_peak = 0, after_peak = 0;
  for (const auto& d : memory.devices) before_peak = std::max(before_peak, d.peak);
  for (const auto& d : after.devices) after_peak = std::max(after_peak, d.peak);
  EXPECT_LE(after_peak, before_peak * (1 + 1e-12)) << what;
}

TEST(IlpModel, MemoryAndPeriodOfRandomPatternsFixedAllocation) {
  for (int seed = 0; seed < 40; ++seed) {
    const Platform platform = pattern_platform(random_devices(seed));
    const RandomCase rc = random_case(seed, platform);
    check_against_model(rc.pattern, rc.workload, platform, true, "seed " + std::to_string(seed), rc.tight);
  }
}

TEST(IlpModel, MemoryAndPeriodOfRandomPatternsFreeAllocation) {
  for (int seed = 0; seed < 40; ++seed) {
    const Platform platform = pattern_platform(random_devices(seed));
    const RandomCase rc = random_case(seed, platform);
    check_against_model(rc.pattern, rc.workload, platform, false, "seed " + std::to_string(seed), rc.tight);
  }
}

TEST(IlpModel, KfkbPatternsOnChains) {
  const Workload w = chain_workload({1, 2, 1.5, 1}, {2, 3, 2, 2}, {3e8, 2e8, 4e8, 1e8}, 1e8, {1e8, 2e8, 1e8, 3e8});
  const Platform platform = pattern_platform(3);
  for (const WeightPolicy policy : {WeightPolicy::Flush, WeightPolicy::TwoBW, WeightPolicy::Stashing})
    for (int k = 1; k <= 3; ++k)
      for (const Allocation& a : {Allocation{0, 1, 2, 0}, Allocation{0, 0, 1, 2}, Allocation{0, 1, 0, 1}}) {
        const Pattern p = kfkb_pattern(k, a, w, platform, policy);
        const std::string what = "k=" + std::to_string(k) + " " + to_string(a) + " " + std::string(to_string(policy));
        check_against_model(p, w, platform, true, what);
        check_against_model(p, w, platform, false, what + " free");
      }
}

}  // namespace
}  // namespace pipesim
