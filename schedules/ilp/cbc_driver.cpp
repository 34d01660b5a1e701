#include "schedules/ilp/cbc_driver.hpp"

#include <CbcEventHandler.hpp>
#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <OsiClpSolverInterface.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>

namespace pipesim::ilp {
namespace {

using Clock = std::chrono::steady_clock;

struct ProgressState {
  std::mutex mutex;
  const std::function<void(const std::string&)>* log = nullptr;
  Clock::time_point start;
  double last_line = -1e9;
  double first_solution = -1;
  double last_incumbent = 1e50;

  double seconds() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
};

std::string progress_line(double t, double incumbent, double bound, long nodes, const char* what) {
  char buf[200];
  if (incumbent < 1e49) {
    const double gap = incumbent > 0 ? std::max(0.0, (incumbent - bound) / incumbent) : 0;
    std::snprintf(buf, sizeof buf, "ilp: %7.2f s  %-8s incumbent %.9g  bound %.9g  gap %.2f%%  nodes %ld", t, what,
                  incumbent, bound, 100 * gap, nodes);
  } else {
    std::snprintf(buf, sizeof buf, "ilp: %7.2f s  %-8s no incumbent  bound %.9g  nodes %ld", t, what, bound, nodes);
  }
  return buf;
}

// CBC clones handlers (per thread, per preprocessed model): clones share the state.
class Progress : public CbcEventHandler {
 public:
  explicit Progress(std::shared_ptr<ProgressState> state) : state_(std::move(state)) {}
  CbcEventHandler* clone() const override { return new Progress(*this); }

  CbcAction event(CbcEvent which) override {
    // Sub-searches (heuristics' small branch and bound) have a parent: not our progress.
    if (!model_ || model_->parentModel()) return noAction;
    const bool found = which == solution || which == heuristicSolution;
    if (!found && which != node && which != treeStatus) return noAction;
    std::lock_guard<std::mutex> lock(state_->mutex);
    const double t = state_->seconds();
    const double incumbent = model_->getMinimizationObjValue();
    if (found && state_->first_solution < 0) state_->first_solution = t;
    const bool better = incumbent < state_->last_incumbent - 1e-12;
    if (found && incumbent >= 1e49) return noAction;  // not stored yet
    if (!(found && better) && t - state_->last_line < 1.0) return noAction;
    if (found) state_->last_incumbent = std::min(state_->last_incumbent, incumbent);
    state_->last_line = t;
    if (state_->log && *state_->log)
      (*state_->log)(progress_line(t, incumbent, model_->getBestPossibleObjValue(), model_->getNodeCount(),
                                   found ? "solution" : "search"));
    return noAction;
  }

 private:
  std::shared_ptr<ProgressState> state_;
};

int no_callback(CbcModel*, int) { return 0; }

}  // namespace

CbcRun solve_with_cbc(const LinearModel& model, const std::vector<double>& start, double time_limit, int threads,
                      const std::function<void(const std::string&)>& log, Clock::time_point clock_start) {
  const auto solver = model.to_osi();
  solver->messageHandler()->setLogLevel(0);
  CbcModel cbc(*solver);
  cbc.messageHandler()->setLogLevel(0);
  auto state = std::make_shared<ProgressState>();
  state->log = &log;
  state->start = clock_start;
  Progress handler(state);
  cbc.passInEventHandler(&handler);
  if (!start.empty()) {
    std::vector<std::pair<std::string, double>> mip;
    for (std::size_t i = 0; i < start.size(); ++i) mip.push_back({model.variables()[i].name, start[i]});
    cbc.setMIPStart(mip);
  }
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  CbcMain0(cbc, data);
  const std::string seconds = std::to_string(std::max(0.01, time_limit));
  // Two threads or more: CBC's deterministic parallel mode (100 + n) keeps runs reproducible.
  const std::string thread_arg = std::to_string(100 + threads);
  // Wall-clock limit. No preprocessing: CBC 2.10.8 crashes (segfault in
  // CglPreProcess::postProcess) when the time limit ends a run during the
  // root node of a preprocessed model (ResNet-18, 1 s); without it the
  // small models solve as fast and ResNet-18 improves its warm start sooner.
  std::vector<const char*> argv = {"pipesim-ilp", "-log",          "0",           "-timeMode", "elapsed",
                                   "-sec",        seconds.c_str(), "-preprocess", "off"};
  if (threads > 1) {
    argv.push_back("-threads");
    argv.push_back(thread_arg.c_str());
  }
  argv.push_back("-solve");
  argv.push_back("-quit");
  CbcMain1(static_cast<int>(argv.size()), argv.data(), cbc, no_callback, data);

  CbcRun run;
  run.nodes = cbc.getNodeCount();
  run.bound = cbc.getBestPossibleObjValue();
  run.first_solution_seconds = state->first_solution;
  const double* best = cbc.bestSolution();
  if (best && cbc.getSolutionCount() > 0) {
    run.solution.assign(best, best + cbc.getNumCols());
    run.objective = cbc.getObjValue();
  }
  const bool infeasible = cbc.isProvenInfeasible() || (cbc.status() == 0 && cbc.secondaryStatus() == 1);
  if (!run.solution.empty())
    run.outcome = cbc.isProvenOptimal() && cbc.status() == 0 ? CbcRun::Outcome::Optimal : CbcRun::Outcome::Feasible;
  else
    run.outcome = infeasible ? CbcRun::Outcome::Infeasible : CbcRun::Outcome::Unknown;
  if (run.outcome == CbcRun::Outcome::Optimal) run.bound = run.objective;
  if (log) {
    const double t = std::chrono::duration<double>(Clock::now() - clock_start).count();
    log(progress_line(t, run.solution.empty() ? 1e50 : run.objective, run.bound, run.nodes, "done"));
  }
  return run;
}

}  // namespace pipesim::ilp
