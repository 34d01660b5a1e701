// Row scaling of the ILP (CBC's tolerances are absolute, so rows in bytes
// and rows in seconds need one scale): rows reach the solver
// multiplied by a power of two that brings their largest coefficient into
// [1, 2), so memory rows in bytes and time rows in seconds are both of
// order 1; the solutions, in the model's own units, are unchanged.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include <cmath>

#include "schedules/ilp/ilp_formulation.hpp"
#include "schedules/ilp/linear_model.hpp"
#include "sim/engine/simulation.hpp"
#include "workloads/pipedream_profile.hpp"

namespace pipesim {
namespace {

using namespace ilp;

// min T subject to a memory row (bytes) and a time row (seconds).
TEST(IlpScaling, RowsOfBytesAndSecondsReachTheSolverScaledByPowersOfTwo) {
  LinearModel m;
  const int T = m.add_var("T", 0, 10, VarType::Continuous);
  const int z = m.add_var("z", 0, 1, VarType::Binary);
  const int n = m.add_var("n", 0, 4, VarType::Continuous);
  m.add("memory", LinExpr::var(n, 8.22e8) + LinExpr::var(z, 3e8), Sense::LessEqual, LinExpr(2e9));
  m.add("time", LinExpr::var(T), Sense::GreaterEqual, LinExpr::var(z, 4.19e-5) + LinExpr::var(n, 0.031) + 0.1);
  m.add("stash", LinExpr::var(n) + LinExpr::var(z), Sense::GreaterEqual, LinExpr(2.5));
  m.set_objective(LinExpr::var(T));

  EXPECT_EQ(LinearModel::row_scale(m.rows()[0]), std::ldexp(1.0, -29));  // 8.22e8 = 0.77 x 2^30
  EXPECT_EQ(LinearModel::row_scale(m.rows()[1]), 1);                     // largest 1 (T)
  EXPECT_EQ(LinearModel::row_scale(m.rows()[2]), 1);                     // n + z >= 2.5
  EXPECT_EQ(m.coefficient_range(false), std::make_pair(4.19e-5, 8.22e8));
  EXPECT_EQ(m.coefficient_range(true), std::make_pair(4.19e-5, 8.22e8 / std::ldexp(1.0, 29)));

  const auto solver = m.to_osi();
  const CoinPackedMatrix* rows = solver->getMatrixByRow();
  EXPECT_EQ(rows->getCoefficient(0, n), 8.22e8 * std::ldexp(1.0, -29));  // exact
  EXPECT_EQ(rows->getCoefficient(0, z), 3e8 * std::ldexp(1.0, -29));
  EXPECT_EQ(solver->getRowUpper()[0], 2e9 * std::ldexp(1.0, -29));
  EXPECT_EQ(rows->getCoefficient(1, z), -4.19e-5);  // T - 4.19e-5 z - 0.031 n >= 0.1
  // Same solutions, in the model's units: z = 1 would let n be 1.5, but
  // memory 1.233e9 + 3e8 fits and time 0.1 + 4.19e-5 + 1.5 x 0.031 = 0.1465419
  // beats z = 0 (n = 2.5: 0.1775; 2.055e9 bytes do not fit in 2e9 anyway).
  solver->messageHandler()->setLogLevel(0);
  solver->branchAndBound();
  ASSERT_TRUE(solver->isProvenOptimal());
  EXPECT_NEAR(solver->getColSolution()[T], 0.1465419, 1e-12);
  EXPECT_NEAR(solver->getColSolution()[n], 1.5, 1e-12);
  EXPECT_NEAR(solver->getColSolution()[z], 1, 1e-12);
  EXPECT_LT(m.max_violation({solver->getColSolution(), solver->getColSolution() + 3}), 1e-9);
}

// ResNet-18 (PipeDream's profile) on platforms/complete-4.xml at 8 GiB: the
// model's coefficients span 4.19e-5 (seconds) to 8.22e8 (bytes); scaled,
// 9.5e-7 to 1.63 (a memory row with a layer of a few KiB beside activations of 800 MB).
TEST(IlpScaling, ResNet18ModelIsScaled) {
  const std::string root = std::string(PIPESIM_SOURCE_DIR) + "/";
  Simulation sim(root + "platforms/complete-4.xml");
  Platform platform = sim.platform();
  for (Device& d : platform.devices) d.memory = 8.0 * (1 << 30);
  ImportOptions io;
  io.microbatches = 200;
  const Workload w = import_pipedream(root + "workloads/profiles/resnet18/graph.txt", io).workload;
  IlpOptions o;
  o.weights = WeightPolicy::Stashing;
  const Formulation f(make_instance(w, platform, o, 0));
  const auto [low, high] = f.model().coefficient_range(false);
  EXPECT_NEAR(low, 4.19e-5, 0.01e-5);
  EXPECT_NEAR(high, 8.22e8, 0.01e8);
  const auto [scaled_low, scaled_high] = f.model().coefficient_range(true);
  EXPECT_GT(scaled_low, 9e-7);
  EXPECT_LT(scaled_high, 2);
}

}  // namespace
}  // namespace pipesim
