// solve_optimal_pattern: heuristic warm start, model, CBC, solution ->
// validated pattern, one phase after the other (OptimalPatternSearch);
// read_ilp_solution and write_ilp_model.
#include "schedules/ilp/ilp.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_validation.hpp"
#include "schedules/ilp/cbc_driver.hpp"
#include "schedules/ilp/ilp_allocation_search.hpp"
#include "schedules/ilp/ilp_formulation.hpp"
#include "schedules/ilp/ilp_heuristic.hpp"
#include "schedules/ilp/ilp_solution.hpp"
#include "schedules/ilp/ilp_solution_file.hpp"
#include "sim/exact_period.hpp"
#include "sim/format.hpp"

namespace pipesim {
namespace {

using Clock = std::chrono::steady_clock;
using namespace ilp;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Nine significant digits: periods and bounds in messages and the log.
std::string g9(double v) { return fmt::number(v, 9); }

// "ilp:    1.25 s  ": a log line's elapsed time, aligned as the solver's
// progress lines (cbc_driver) align theirs.
std::string log_time(double seconds) {
  const std::string t = fmt::fixed(seconds, 2);
  return "ilp: " + std::string(t.size() < 7 ? 7 - t.size() : 0, ' ') + t + " s  ";
}

double exact(const Pattern& p, const Workload& w, const Platform& platform) {
  return exact_period(pattern_event_graph(p, pattern_timing(p, w, platform))).period;
}

// Every violation of a pattern on one line; "" when valid.
std::string violations(const Pattern& p, const Workload& w, const Platform& platform) {
  std::string text;
  for (const Violation& v : validate_pattern(p, pattern_timing(p, w, platform), platform, w))
    text += (text.empty() ? "" : "; ") + v.kind + ": " + v.message;
  return text;
}

// Alike devices (speed) and links (latency, bandwidth): the free-allocation
// model then times every op and transfer as the platform does.
bool uniform(const Platform& p) {
  for (const Device& d : p.devices)
    if (d.speed != p.devices[0].speed) return false;
  const Path* first = nullptr;
  for (int a = 0; a < p.size(); ++a)
    for (int b = 0; b < p.size(); ++b) {
      if (a == b) continue;
      const Path& path = p.path(a, b);
      if (!first) first = &path;
      if (path.exists != first->exists || path.latency != first->latency || path.bandwidth != first->bandwidth)
        return false;
    }
  return true;
}

// One solve_optimal_pattern call. Its phases run in order and each fills
// its part of the one result: the warm start, the model, then either no
// solve (time limit 0, or the limit spent before CBC could run) or CBC and
// its answer; at every end, a heuristic pattern with other copies replaces
// the answer when it is faster. time_limit counts from the start: the
// heuristic always ends (its pattern is the answer when the model is not
// solved), the model's build and the solver stop in time.
class OptimalPatternSearch {
 public:
  OptimalPatternSearch(const Workload& workload, const Platform& platform, const IlpOptions& options)
      : workload_(workload),
        platform_(platform),
        options_(options),
        // Checks the options before any work; its bounds are the answer's when no model is built.
        base_(make_instance(workload, platform, options, 0)) {}

  IlpResult run() {
    choose_warm_start();
    invalid_ = warm_ ? violations(*warm_, workload_, platform_) : "";
    if (!options_.allocation && solving_ && options_.allocation_search > 0) improve_allocation();
    // Without CBC the model only serves to be written.
    if (!solving_ && options_.write_model.empty()) return unsolved("time limit 0");
    try {
      build_model();
    } catch (const BuildTimeLimit& e) {
      return unsolved(e.what());
    }
    const LinearModel& model = formulation_->model();
    if (!model.constant_violation().empty())
      return no_pattern(IlpResult::Status::Infeasible,
                        "no pattern fits: constraint " + model.constant_violation() + " fails for every pattern");
    if (!solving_) return unsolved("time limit 0");
    if (seconds_left() <= 0) return unsolved("the time limit ended before CBC could run");
    return solve();
  }

 private:
  void say(const std::string& line) const {
    if (options_.log) options_.log(line);
  }

  // The given pattern, else the best heuristic pattern that fits. A
  // heuristic pattern with other copies cannot start the model (its k is
  // fixed): it is kept aside, the answer when the model finds nothing better.
  void choose_warm_start() {
    warm_ = options_.warm_start;
    if (warm_) warm_->links = options_.links;  // judged as the model judges it
    if (warm_ || !options_.heuristic) return;
    HeuristicResult h = best_heuristic_pattern(workload_, platform_, options_);
    say(log_time(since(t0_)) + "heuristic: " + std::to_string(h.evaluated) + " patterns (kFkB, PipeDream eager), " +
        (h.best ? "best fitting period " + g9(h.best_period) : std::string("none fits")) +
        (h.other ? ", with " + fmt::number(h.other->copies, 6) + " copies " + g9(h.other_period) : std::string()));
    warm_ = h.best;
    if (h.other && options_.other_copies) {
      const std::string bad = violations(*h.other, workload_, platform_);
      if (bad.empty())
        other_ = std::move(h.other), other_period_ = h.other_period, other_seconds_ = since(t0_);
      else
        say("ilp: heuristic pattern with other copies rejected: " + bad);
    }
    for (const Pattern& p : options_.candidates) take_candidate(p);
  }

  // A given candidate: the warm start (k copies) or the pattern with other
  // copies when it is valid and faster per micro-batch.
  void take_candidate(Pattern p) {
    p.links = options_.links;
    const std::string bad = violations(p, workload_, platform_);
    if (!bad.empty()) return say("ilp: a given candidate is no valid pattern here: " + bad);
    const double period = exact(p, workload_, platform_);
    const int k = options_.copies, k2 = p.copies;
    if (k2 == k) {
      if (!warm_ || period < exact(*warm_, workload_, platform_)) warm_ = std::move(p);
    } else if (options_.other_copies && (!other_ || period / k2 < other_period_ / other_->copies)) {
      other_ = std::move(p), other_period_ = period, other_seconds_ = since(t0_);
      other_source_ = "a given pattern";
    }
  }

  // The fixed-allocation loop from the heuristic's patterns, for its share
  // of the time limit: its best becomes the warm start (k copies) or the
  // pattern with other copies, whichever it competes with.
  void improve_allocation() {
    std::vector<TimedPattern> starts;
    if (warm_ && invalid_.empty()) starts.push_back({*warm_, exact(*warm_, workload_, platform_)});
    if (other_) starts.push_back({*other_, other_period_});
    if (starts.empty()) return;
    const double budget = std::min(1.0, options_.allocation_search) * options_.time_limit;
    auto at = [&](double seconds) {
      return t0_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    };
    // First each allocation by its heuristic pattern (up to half the
    // budget), then by its model from the best of that.
    AllocationSearchResult quick = search_allocations(workload_, platform_, options_, starts, at(budget / 2), 0, 3);
    if (quick.best) starts = {{*quick.best, quick.period}};
    say(log_time(since(t0_)) + "allocation search by heuristic patterns: " + std::to_string(quick.solves) +
        " allocations, " + std::to_string(quick.moves) + " moves" +
        (quick.best ? ", best " + g9(quick.period / quick.best->copies) + " s per micro-batch" : std::string()));
    AllocationSearchResult s = search_allocations(workload_, platform_, options_, starts, at(budget), budget / 4);
    result_.allocation_solves = s.solves;
    if (!s.best) return;
    const int k2 = s.best->copies;
    result_.allocation_search_period = s.period / k2;
    say(log_time(since(t0_)) + "allocation search: " + std::to_string(s.solves) + " fixed-allocation models, " +
        std::to_string(s.moves) + " moves, " + (s.local_optimum ? "a local optimum" : "stopped by its time") +
        ", best " + g9(s.period / k2) + " s per micro-batch (" + fmt::number(k2, 6) + " copies)");
    if (k2 == options_.copies) {
      warm_ = s.best;
      invalid_.clear();
    }
    // Also kept aside, as the heuristic's patterns with other copies are: the
    // answer if the model rejects it as a start and finds nothing as fast.
    if ((k2 == options_.copies || options_.other_copies) &&
        (!other_ || s.period / k2 < other_period_ / other_->copies)) {
      other_ = std::move(s.best), other_period_ = s.period, other_seconds_ = since(t0_);
      other_source_ = "the allocation search's pattern";
    }
  }

  double seconds_left() const { return std::chrono::duration<double>(deadline_ - Clock::now()).count(); }
  // What the warm start's completing LP may take: what is left, or no limit without a solve.
  double lp_seconds() const { return solving_ ? std::max(1e-3, seconds_left()) : 0; }

  void build_formulation(double upper_bound) {
    const auto start = Clock::now();
    formulation_.reset();  // two models at once would double the memory
    formulation_.emplace(make_instance(workload_, platform_, options_, upper_bound),
                         solving_ ? std::optional<Clock::time_point>(deadline_) : std::nullopt);
    result_.build_seconds = since(start);
  }

  void take_warm_start() {
    result_.pattern = warm_;
    result_.period = exact(*warm_, workload_, platform_);
    result_.heuristic_period = result_.period;
    result_.first_solution_seconds = since(t0_);
  }

  // The warm start's period bounds T when the model times it as the
  // platform does (fixed allocation, or alike devices and links); the model
  // is rebuilt without that bound if it rejects the warm start. A given
  // warm start may be invalid (overlaps, memory): then it bounds nothing.
  void build_model() {
    const double upper = warm_ && invalid_.empty() && (options_.allocation || uniform(platform_)) ? warm_->period : 0;
    build_formulation(upper);
    if (warm_) {
      std::string why = invalid_;
      auto values = invalid_.empty() ? pattern_values(*formulation_, *warm_, workload_, platform_, why, lp_seconds())
                                     : std::nullopt;
      if (!values && upper > 0 && (!solving_ || seconds_left() > 0)) {
        build_formulation(0);
        values = pattern_values(*formulation_, *warm_, workload_, platform_, why, lp_seconds());
      }
      if (values) {
        start_ = std::move(*values);
        take_warm_start();
      } else {
        say("ilp: warm start rejected: " + why);
      }
    }
    const LinearModel& model = formulation_->model();
    result_.variables = static_cast<int>(model.variables().size());
    result_.integers = model.integer_count();
    result_.constraints = static_cast<int>(model.rows().size());
    const auto [low, high] = model.coefficient_range(false);
    const auto [scaled_low, scaled_high] = model.coefficient_range(true);
    say("ilp: model: " + std::to_string(result_.variables) + " variables (" + std::to_string(result_.integers) +
        " integer), " + std::to_string(result_.constraints) + " constraints, built in " +
        fmt::fixed(result_.build_seconds, 3) + " s; T in [" + g9(instance().T_lower) + ", " + g9(instance().T_upper) +
        "]; coefficients " + fmt::number(low, 3) + " to " + fmt::number(high, 3) + ", rows scaled " +
        fmt::number(scaled_low, 3) + " to " + fmt::number(scaled_high, 3));
    if (!options_.write_model.empty()) {
      model.write(options_.write_model);
      say("ilp: model written to " + options_.write_model);
    }
    if (!start_.empty()) say(log_time(result_.first_solution_seconds) + "warm start: period " + g9(result_.period));
  }

  const Instance& instance() const { return formulation_->instance(); }

  // The heuristic pattern with other copies, when it beats the model's
  // answer (per micro-batch; ties keep the model's) or the model has none:
  // status Feasible, bound the load bound (the model's bound holds for k
  // copies only). MODEL_OUTCOME says what the model gave, for the message.
  bool prefer_other_copies(const std::string& model_outcome) {
    if (!other_) return false;
    const int k = options_.copies, k2 = other_->copies;
    if (result_.pattern && other_period_ / k2 >= result_.period / k * (1 - 1e-12)) return false;
    const std::string model_best =
        result_.pattern ? g9(result_.period / k) + " s per micro-batch" : std::string("no pattern");
    result_.model_period = result_.pattern ? result_.period : 0;
    result_.pattern = std::move(other_);
    result_.period = other_period_;
    result_.status = IlpResult::Status::Feasible;
    result_.bound = std::min(base_.T_lower / k * k2, result_.period);
    result_.gap = (result_.period - result_.bound) / result_.period;
    if (result_.first_solution_seconds < 0) result_.first_solution_seconds = other_seconds_;
    result_.message = "feasible: " + other_source_ + " of " + fmt::number(k2, 6) + " copies, " +
                      g9(result_.period / k2) + " s per micro-batch, beats the model's best with " + fmt::number(k, 6) +
                      " copies (" + model_best + "; " + model_outcome + "); load bound " + g9(result_.bound / k2) +
                      " s per micro-batch";
    result_.seconds = since(t0_);
    say("ilp: " + result_.message);
    return true;
  }

  // No pattern of the model's: STATUS and WHY, with the memory with which a
  // heuristic pattern would fit (unless a pattern with other copies is the answer).
  IlpResult no_pattern(IlpResult::Status status, const std::string& why) {
    if (prefer_other_copies(why)) return std::move(result_);
    result_.status = status;
    result_.pattern.reset();
    result_.period = 0;
    const HeuristicResult h = heuristic_memory_needed(workload_, platform_, options_);
    result_.heuristic_memory_needed = h.memory_needed;
    result_.message =
        why + "; a heuristic pattern fits with " + g9(result_.heuristic_memory_needed) + " bytes per device";
    result_.seconds = since(t0_);
    say("ilp: " + result_.message);
    return std::move(result_);
  }

  // Not solved (time limit 0, or spent before CBC could run): the warm
  // start is the answer, if valid, whether or not a model judged it.
  IlpResult unsolved(const std::string& why) {
    if (!result_.pattern && warm_ && invalid_.empty()) take_warm_start();
    result_.model_period = result_.pattern ? result_.period : 0;
    if (prefer_other_copies("not solved (" + why + ")")) return std::move(result_);
    result_.status = result_.pattern ? IlpResult::Status::Feasible : IlpResult::Status::Unknown;
    result_.message = "not solved (" + why + ")";
    result_.bound = base_.T_lower;
    result_.gap = result_.pattern ? (result_.period - result_.bound) / result_.period : 0;
    result_.seconds = since(t0_);
    say("ilp: " + result_.message);
    return std::move(result_);
  }

  // CBC's answer as a pattern, kept when valid and no slower than the warm
  // start; "" or why it was not used (a bug if ever).
  std::string take_solver_answer(const CbcRun& run) {
    if (run.solution.empty()) return "";
    std::string rejected;
    try {
      Pattern p = solution_to_pattern(*formulation_, run.solution, workload_, platform_);
      rejected = violations(p, workload_, platform_);
      const double period = rejected.empty() ? exact(p, workload_, platform_) : 0;
      if (rejected.empty() && (!result_.pattern || period <= result_.period)) {
        result_.pattern = std::move(p);
        result_.period = period;
        if (result_.first_solution_seconds < 0) result_.first_solution_seconds = run.first_solution_seconds;
      }
    } catch (const std::invalid_argument& e) {
      rejected = e.what();
    }
    if (!rejected.empty()) say("ilp: the solver's answer is no valid pattern: " + rejected);
    return rejected;
  }

  IlpResult solve() {
    const CbcRun run =
        solve_with_cbc(formulation_->model(), start_, seconds_left(), options_.threads, options_.log, t0_);
    result_.bound = run.bound;
    const std::string rejected = take_solver_answer(run);
    if (!result_.pattern) {
      if (run.outcome == CbcRun::Outcome::Infeasible)
        return no_pattern(IlpResult::Status::Infeasible, "no pattern fits in memory (CBC proved it)");
      return no_pattern(IlpResult::Status::Unknown,
                        rejected.empty() ? "no pattern found within the time limit"
                                         : "the solver's answer was no valid pattern (" + rejected + ")");
    }
    result_.model_period = result_.period;
    const bool optimal = run.outcome == CbcRun::Outcome::Optimal && rejected.empty();
    if (prefer_other_copies(std::string(optimal ? "optimal" : "feasible") + ", bound " + g9(run.bound)))
      return std::move(result_);
    result_.status = optimal ? IlpResult::Status::Optimal : IlpResult::Status::Feasible;
    if (optimal) result_.bound = std::min(result_.bound, result_.period);
    result_.gap = result_.period > 0 ? std::max(0.0, (result_.period - result_.bound) / result_.period) : 0;
    result_.message =
        std::string(to_string(result_.status)) + ": period " + g9(result_.period) + ", bound " + g9(result_.bound) +
        (rejected.empty() ? "" : "; the solver's answer was no valid pattern (" + rejected + "), kept the warm start");
    result_.seconds = since(t0_);
    return std::move(result_);
  }

  const Workload& workload_;
  const Platform& platform_;
  const IlpOptions& options_;
  const Clock::time_point t0_ = Clock::now();
  const bool solving_ = options_.time_limit > 0;
  const Clock::time_point deadline_ = t0_ + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(solving_ ? options_.time_limit : 0));
  const Instance base_;
  std::optional<Pattern> warm_;  // the model's warm start, if any
  std::string invalid_;          // why the warm start is no valid pattern; "" if valid
  // A valid pattern kept aside, the answer when faster than the model's: the
  // heuristic's with other copies, a candidate's, or the allocation search's.
  std::optional<Pattern> other_;
  double other_period_ = 0, other_seconds_ = 0;
  std::string other_source_ = "PipeDream's eager pattern";
  std::optional<Formulation> formulation_;
  std::vector<double> start_;  // the warm start's values of the model's variables; empty: none
  IlpResult result_;
};

}  // namespace

std::string_view to_string(IlpResult::Status status) {
  switch (status) {
    case IlpResult::Status::Optimal:
      return "optimal";
    case IlpResult::Status::Feasible:
      return "feasible";
    case IlpResult::Status::Infeasible:
      return "infeasible";
    case IlpResult::Status::Unknown:
      return "unknown";
  }
  return "unknown";
}

IlpResult solve_optimal_pattern(const Workload& workload, const Platform& platform, const IlpOptions& options) {
  return OptimalPatternSearch(workload, platform, options).run();
}

std::optional<Pattern> read_ilp_solution(const std::string& solution_file, const Workload& workload,
                                         const Platform& platform, const IlpOptions& options) {
  // The bounds of T do not change names: no heuristic needed to rebuild the model.
  const Formulation formulation(make_instance(workload, platform, options, 0));
  const auto values = read_solution_values(solution_file, formulation.model());
  if (!values) return std::nullopt;
  Pattern p = solution_to_pattern(formulation, *values, workload, platform);
  const std::string bad = violations(p, workload, platform);
  if (!bad.empty()) throw std::invalid_argument(solution_file + ": the solution is no valid pattern: " + bad);
  return p;
}

void write_ilp_model(const std::string& path, const Workload& workload, const Platform& platform,
                     const IlpOptions& options) {
  const Formulation formulation(make_instance(workload, platform, options, 0));
  formulation.model().write(path);
}

}  // namespace pipesim
