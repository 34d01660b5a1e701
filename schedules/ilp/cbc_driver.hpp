// Solving a LinearModel with COIN-OR CBC (its standalone solver's defaults:
// preprocessing, cuts, heuristics), with a time limit, threads, a MIP start
// and progress lines (time, incumbent, bound, gap) while it runs.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "schedules/ilp/linear_model.hpp"

namespace pipesim::ilp {

struct CbcRun {
  enum class Outcome { Optimal, Feasible, Infeasible, Unknown } outcome = Outcome::Unknown;
  std::vector<double> solution;  // empty when none
  double objective = 0;
  double bound = 0;                    // best lower bound CBC proved
  double first_solution_seconds = -1;  // since `start`, of CBC's first own solution
  long nodes = 0;
};

// start: a full assignment to pass as MIP start (may be empty). Lines go to
// log (if set): one when a solution is found, else at most one per second.
CbcRun solve_with_cbc(const LinearModel& model, const std::vector<double>& start, double time_limit, int threads,
                      const std::function<void(const std::string&)>& log,
                      std::chrono::steady_clock::time_point clock_start);

}  // namespace pipesim::ilp
