// The ILP outside CBC's run: the model written as .lp and .mps (read back
// by COIN-OR and solved to the same optimum), solution files of CBC,
// Gurobi, CPLEX and HiGHS read back into patterns, bad files; infeasible
// instances, model-only runs and the progress log.
#include <gtest/gtest.h>

#include <CbcModel.hpp>
#include <OsiClpSolverInterface.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "analysis/run_validation.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_validation.hpp"
#include "reports/violations_report.hpp"
#include "schedules/ilp/ilp.hpp"
#include "schedules/ilp/ilp_formulation.hpp"
#include "schedules/ilp/ilp_solution.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pytorch/orders_validation.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

Workload three() { return chain_workload({1, 2, 1.5}, {2, 3, 2}, {3, 2, 1}, 2, {1, 2, 1}); }

Platform with_memory(int devices, double memory) {
  Platform p = pattern_platform(devices, 0, 1e30);
  for (Device& d : p.devices) d.memory = memory;
  return p;
}

IlpOptions options() {
  IlpOptions o;
  o.threads = 1;
  o.time_limit = 60;
  return o;
}

std::string temp(const std::string& name) { return ::testing::TempDir() + "pipesim_ilp_" + name; }

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

double exact(const Pattern& p, const Workload& w, const Platform& platform) {
  return exact_period(pattern_event_graph(p, pattern_timing(p, w, platform))).period;
}

// Solves a model file with CBC's library (no pipesim code): its optimum and its values by name.
double solve_file(const std::string& path, std::vector<std::pair<std::string, double>>* values = nullptr) {
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  const bool lp = path.size() > 3 && path.substr(path.size() - 3) == ".lp";
  const int errors = lp ? solver.readLp(path.c_str()) : solver.readMps(path.c_str(), "");
  EXPECT_EQ(errors, 0) << path;
  CbcModel model(solver);
  model.setLogLevel(0);
  model.branchAndBound();
  EXPECT_TRUE(model.isProvenOptimal()) << path;
  if (values)
    for (int i = 0; i < model.getNumCols(); ++i)
      values->push_back({solver.getColName(i), model.bestSolution()[i]});  // the clone has no names
  return model.getObjValue();
}

TEST(IlpIo, WrittenModelsSolveToTheSameOptimum) {
  const Workload w = three();
  const Platform p = with_memory(2, 26);
  IlpOptions o = options();
  o.write_model = temp("three.lp");
  const IlpResult r = solve_optimal_pattern(w, p, o);
  ASSERT_EQ(r.status, IlpResult::Status::Optimal);
  EXPECT_NEAR(r.period, 8.5, 1e-9);
  EXPECT_NEAR(solve_file(o.write_model), 8.5, 1e-6);
  // The same model without the heuristic's bound, as .mps.
  write_ilp_model(temp("three.mps"), w, p, o);
  EXPECT_NEAR(solve_file(temp("three.mps")), 8.5, 1e-6);
  EXPECT_THROW(write_ilp_model(temp("three.txt"), w, p, o), std::invalid_argument);
}

// An external solver's answer, in each solver's format, back to a pattern.
TEST(IlpIo, SolutionFilesOfOtherSolvers) {
  const Workload w = three();
  const Platform p = with_memory(2, 26);
  IlpOptions o = options();
  o.allocation = Allocation{0, 1, 0};
  const std::string model_file = temp("fixed.lp");
  write_ilp_model(model_file, w, p, o);
  std::vector<std::pair<std::string, double>> values;
  const double objective = solve_file(model_file, &values);
  ASSERT_GT(objective, 0);

  std::string cbc = "Optimal - objective value " + std::to_string(objective) + "\n";
  std::string gurobi = "# Solution for model pipesim\n# Objective value = " + std::to_string(objective) + "\n";
  std::string cplex =
      "<?xml version = \"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<CPLEXSolution version=\"1.2\">\n"
      " <header objectiveValue=\"" +
      std::to_string(objective) + "\"/>\n <variables>\n";
  std::string highs = "Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective " +
                      std::to_string(objective) + "\n# Columns " + std::to_string(values.size()) + "\n";
  char line[300];
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& [name, v] = values[i];
    if (std::abs(v) > 1e-12) {  // CBC leaves zeros out
      std::snprintf(line, sizeof line, "%7zu %-20s %.15g 0\n", i, name.c_str(), v);
      cbc += line;
    }
    std::snprintf(line, sizeof line, "%s %.15g\n", name.c_str(), v);
    gurobi += line;
    highs += line;
    std::snprintf(line, sizeof line, "  <variable name=\"%s\" index=\"%zu\" value=\"%.15g\"/>\n", name.c_str(), i, v);
    cplex += line;
  }
  cplex += " </variables>\n</CPLEXSolution>\n";
  highs += "\n# Dual solution values\nFeasible\n# Columns " + std::to_string(values.size()) + "\n";
  for (const auto& [name, v] : values) highs += name + " 12345\n";  // duals: must not be read as values
  const std::vector<std::pair<std::string, std::string>> files = {
      {"cbc.sol", cbc}, {"gurobi.sol", gurobi}, {"cplex.sol", cplex}, {"highs.sol", highs}};
  for (const auto& [name, text] : files) {
    write_text(temp(name), text);
    const auto pattern = read_ilp_solution(temp(name), w, p, o);
    ASSERT_TRUE(pattern) << name;
    EXPECT_NEAR(exact(*pattern, w, p), objective, 1e-6 * objective) << name;
    EXPECT_TRUE(validate_pattern(*pattern, pattern_timing(*pattern, w, p), p, w).empty()) << name;
  }
  // What a solver says when there is none; errors.
  write_text(temp("none.sol"), "Infeasible - objective value 0.00000000\n");
  EXPECT_FALSE(read_ilp_solution(temp("none.sol"), w, p, o));
  write_text(temp("alien.sol"), "T 8\nsomething_else 1\n");
  EXPECT_THROW(read_ilp_solution(temp("alien.sol"), w, p, o), std::invalid_argument);
  write_text(temp("empty.sol"), "hello\n");
  EXPECT_THROW(read_ilp_solution(temp("empty.sol"), w, p, o), std::invalid_argument);
  EXPECT_THROW(read_ilp_solution(temp("missing.sol"), w, p, o), std::invalid_argument);
  // Values that are no pattern: every w = 0 leaves the orders undecided; z may
  // still be fine, but all-zero v's on a cycle deadlock.
  write_text(temp("zeros.sol"), "T 8\n");
  EXPECT_THROW(read_ilp_solution(temp("zeros.sol"), w, p, o), std::invalid_argument);
}

// Memory too small for any pattern: Infeasible, with the memory the best
// heuristic pattern needs; with that memory, a pattern.
TEST(IlpInfeasible, ReportsTheMemoryTheHeuristicNeeds) {
  const Workload w = three();
  for (const bool fixed : {false, true}) {
    IlpOptions o = options();
    if (fixed) o.allocation = Allocation{0, 1, 0};
    const IlpResult r = solve_optimal_pattern(w, with_memory(2, 10), o);
    EXPECT_EQ(r.status, IlpResult::Status::Infeasible) << r.message;
    EXPECT_FALSE(r.pattern);
    EXPECT_GT(r.heuristic_memory_needed, 10);
    EXPECT_NE(r.message.find("fits with"), std::string::npos) << r.message;
    const IlpResult enough = solve_optimal_pattern(w, with_memory(2, r.heuristic_memory_needed), o);
    ASSERT_TRUE(enough.pattern) << enough.message;
    EXPECT_EQ(enough.status, IlpResult::Status::Optimal);
  }
}

TEST(IlpInfeasible, BadOptionsThrow) {
  const Workload w = three();
  IlpOptions o = options();
  o.copies = 0;
  EXPECT_THROW(solve_optimal_pattern(w, with_memory(2, 100), o), std::invalid_argument);
  o.copies = 1;
  o.allocation = Allocation{0, 1};
  EXPECT_THROW(solve_optimal_pattern(w, with_memory(2, 100), o), std::invalid_argument);
  o.allocation = Allocation{0, 1, 2};
  EXPECT_THROW(solve_optimal_pattern(w, with_memory(2, 100), o), std::invalid_argument);
}

// time_limit 0: the heuristic's pattern, CBC not run, the model built only
// to be written; the log's lines.
TEST(IlpIo, ModelOnlyAndLog) {
  const Workload w = three();
  std::vector<std::string> lines;
  IlpOptions o = options();
  o.time_limit = 0;
  o.log = [&](const std::string& s) { lines.push_back(s); };
  const IlpResult only = solve_optimal_pattern(w, with_memory(2, 26), o);
  EXPECT_EQ(only.status, IlpResult::Status::Feasible);
  ASSERT_TRUE(only.pattern);
  EXPECT_NEAR(only.period, only.heuristic_period, 1e-12);
  EXPECT_EQ(only.variables, 0);
  EXPECT_EQ(only.message, "not solved (time limit 0)");
  o.write_model = temp("only.lp");
  const IlpResult written = solve_optimal_pattern(w, with_memory(2, 26), o);
  EXPECT_GT(written.variables, 0);
  EXPECT_NEAR(written.period, only.period, 1e-12);
  o.write_model.clear();
  o.time_limit = 60;
  lines.clear();
  o.heuristic = false;  // CBC finds its own first solution
  const IlpResult r = solve_optimal_pattern(w, with_memory(2, 26), o);
  EXPECT_EQ(r.status, IlpResult::Status::Optimal);
  EXPECT_GE(r.first_solution_seconds, 0);
  EXPECT_LE(r.first_solution_seconds, r.seconds);
  bool incumbent = false;
  for (const std::string& s : lines)
    incumbent |= s.find("incumbent") != std::string::npos && s.find("bound") != std::string::npos;
  EXPECT_TRUE(incumbent);
  EXPECT_NEAR(r.gap, 0, 1e-9);
}

// The time limit covers building the model: a model of 40 copies takes
// seconds to build, so a limit of 10 ms stops the build, and the answer is
// the heuristic's pattern.
TEST(IlpIo, TimeLimitStopsTheModelsBuild) {
  const Workload w = chain_workload({1, 2, 1, 1}, {2, 4, 2, 1}, {1, 1, 1, 1}, 1, {1, 1, 1, 1});
  IlpOptions o = options();
  o.copies = 40;
  o.time_limit = 0.01;
  const IlpResult r = solve_optimal_pattern(w, with_memory(4, 1e12), o);
  EXPECT_EQ(r.status, IlpResult::Status::Feasible);
  ASSERT_TRUE(r.pattern);
  EXPECT_EQ(r.message, "not solved (the time limit ended while building the model)");
  EXPECT_EQ(r.variables, 0);  // never completed
  EXPECT_NEAR(r.period, r.heuristic_period, 1e-12);
}

// A given warm start: used when it fits the model, reported when not.
TEST(IlpIo, GivenWarmStart) {
  const Workload w = three();
  const Platform p = with_memory(2, 26);
  std::vector<std::string> lines;
  IlpOptions o = options();
  o.log = [&](const std::string& s) { lines.push_back(s); };
  o.warm_start = solve_optimal_pattern(w, p, options()).pattern;  // an optimal one
  ASSERT_TRUE(o.warm_start);
  const IlpResult used = solve_optimal_pattern(w, p, o);
  EXPECT_EQ(used.status, IlpResult::Status::Optimal);
  EXPECT_NEAR(used.period, 8.5, 1e-9);
  EXPECT_NEAR(used.heuristic_period, 8.5, 1e-9);
  for (const Allocation& a : {Allocation{0, 1, 0}, Allocation{0, 0, 0}}) {
    o.warm_start = kfkb_pattern(1, a, w, p);  // too much memory (or too slow to matter)
    lines.clear();
    const IlpResult r = solve_optimal_pattern(w, p, o);
    EXPECT_NEAR(r.period, 8.5, 1e-9) << to_string(a);
  }
  o.warm_start = kfkb_pattern(2, {0, 1, 0}, w, p);  // two copies for a k = 1 model
  lines.clear();
  const IlpResult other = solve_optimal_pattern(w, p, o);
  EXPECT_NEAR(other.period, 8.5, 1e-9);
  EXPECT_EQ(other.heuristic_period, 0);
  bool said = false;
  for (const std::string& s : lines) said |= s.find("warm start rejected") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace pipesim
