// The memory lower bound on the period (schedules/ilp/ilp_memory_bound.hpp)
// against its closed form, and never above what the model reaches.
#include <gtest/gtest.h>

#include "schedules/ilp/ilp.hpp"
#include "schedules/ilp/ilp_instance.hpp"
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
    o.time_limit = 30;  // the optimum is at least the bound
    const IlpResult r = solve_optimal_pattern(w, p, o);
    if (r.pattern) {
      EXPECT_GE(r.period, bound * (1 - 1e-9)) << memory;
    }
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

}  // namespace
}  // namespace pipesim
