// The ILP model's size counted before it is built (schedules/ilp/ilp_size)
// against the model Formulation builds: never below (a refusal must not let
// a larger model through), and close enough (at most 4 x: fixed mode counts
// every pair of transfers) that a model that fits is not refused.
#include <gtest/gtest.h>

#include "schedules/ilp/ilp_formulation.hpp"
#include "schedules/ilp/ilp_size.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

double nonzeros(const ilp::LinearModel& m) {
  double n = 0;
  for (const ilp::Row& r : m.rows()) n += static_cast<double>(r.terms.size());
  return n;
}

TEST(IlpSize, EstimateBoundsTheBuiltModel) {
  const Workload w = chain_workload({1, 2, 1, 1, 2, 1}, {2, 4, 2, 1, 3, 2}, {1e6, 2e6, 1e6, 3e6, 1e6, 1e6}, 1e6,
                                    {1e7, 1e7, 2e7, 1e7, 1e7, 1e7});
  for (const int devices : {2, 3})
    for (const int k : {1, 2, 3})
      for (const WeightPolicy weights : {WeightPolicy::Flush, WeightPolicy::TwoBW, WeightPolicy::Stashing})
        for (const bool fixed : {false, true}) {
          IlpOptions o;
          o.copies = k;
          o.weights = weights;
          if (fixed) o.allocation = devices == 2 ? Allocation{0, 0, 1, 1, 0, 1} : Allocation{0, 1, 1, 2, 2, 0};
          const ilp::Formulation F(ilp::make_instance(w, pattern_platform(devices), o, 0));
          const ilp::ModelSize s = ilp::estimated_model_size(6, devices, k, o.allocation, weights);
          const std::string what = std::to_string(devices) + " devices, k " + std::to_string(k) + ", " +
                                   (fixed ? "fixed" : "free") + ", weights " + std::to_string(int(weights));
          const double built = nonzeros(F.model());
          EXPECT_GE(s.nonzeros, built) << what;
          EXPECT_LE(s.nonzeros, 4 * built) << what;
          EXPECT_GE(s.rows, F.model().rows().size()) << what;
          EXPECT_GE(s.variables, F.model().variables().size()) << what;
        }
}

// The pairs of ops dominate: ten times the copies cost about a hundred times (not ten).
TEST(IlpSize, GrowsWithTheSquareOfTheCopies) {
  const double one = ilp::estimated_model_size(26, 4, 10, std::nullopt, WeightPolicy::TwoBW).nonzeros;
  const double ten = ilp::estimated_model_size(26, 4, 100, std::nullopt, WeightPolicy::TwoBW).nonzeros;
  EXPECT_GT(ten / one, 80);
  EXPECT_LT(ten / one, 100);
}

}  // namespace
}  // namespace pipesim
