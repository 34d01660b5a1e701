// solve_optimal_pattern: heuristic warm start, model, CBC, solution ->
// validated pattern; read_ilp_solution and write_ilp_model.
#include "schedules/ilp/ilp.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sim/exact_period.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_validation.hpp"
#include "schedules/ilp/cbc_driver.hpp"
#include "schedules/ilp/ilp_formulation.hpp"
#include "schedules/ilp/ilp_heuristic.hpp"
#include "schedules/ilp/ilp_solution.hpp"
#include "schedules/ilp/ilp_solution_file.hpp"
#include "patterns/pattern_timing.hpp"

namespace pipesim {
namespace {

using Clock = std::chrono::steady_clock;
using namespace ilp;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string fmt(const char* format, double a, double b = 0) {
  char buf[200];
  std::snprintf(buf, sizeof buf, format, a, b);
  return buf;
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

void say(const IlpOptions& o, const std::string& line) {
  if (o.log) o.log(line);
}

}  // namespace

std::string_view to_string(IlpResult::Status status) {
  switch (status) {
    case IlpResult::Status::Optimal: return "optimal";
    case IlpResult::Status::Feasible: return "feasible";
    case IlpResult::Status::Infeasible: return "infeasible";
    case IlpResult::Status::Unknown: return "unknown";
  }
  return "unknown";
}

IlpResult solve_optimal_pattern(const Workload& workload, const Platform& platform, const IlpOptions& options) {
  const auto t0 = Clock::now();
  IlpResult result;
  // Checks the options before any work; its bounds are the answer's when no model is built.
  const Instance base = make_instance(workload, platform, options, 0);
  // time_limit counts from here; the heuristic always ends (its pattern is
  // the answer when the model is not solved), what follows stops in time.
  const bool solving = options.time_limit > 0;
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                                 solving ? options.time_limit : 0));
  auto seconds_left = [&] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };

  // Warm start: the given pattern, else the best heuristic pattern that fits.
  // A heuristic pattern with other copies (`other`) cannot start the model
  // (its k is fixed): it is the answer when the model finds nothing better.
  std::optional<Pattern> warm = options.warm_start;
  if (warm) warm->links = options.links;  // judged as the model judges it
  std::optional<Pattern> other;
  double other_period = 0, other_seconds = 0;
  if (!warm && options.heuristic) {
    HeuristicResult h = best_heuristic_pattern(workload, platform, options);
    say(options, fmt("ilp: %7.2f s  heuristic: ", since(t0)) + std::to_string(h.evaluated) +
                     " patterns (kFkB, PipeDream eager), " +
                     (h.best ? fmt("best fitting period %.9g", h.best_period) : std::string("none fits")) +
                     (h.other ? fmt(", with %g copies %.9g", h.other->copies, h.other_period) : std::string()));
    warm = h.best;
    if (h.other && options.other_copies) {
      const std::string bad = violations(*h.other, workload, platform);
      if (bad.empty()) other = std::move(h.other), other_period = h.other_period, other_seconds = since(t0);
      else say(options, "ilp: heuristic pattern with other copies rejected: " + bad);
    }
  }
  // A given warm start may be invalid (overlaps, memory): then it bounds nothing.
  const std::string invalid = warm ? violations(*warm, workload, platform) : "";
  auto take_warm = [&] {
    result.pattern = warm;
    result.period = exact(*warm, workload, platform);
    result.heuristic_period = result.period;
    result.first_solution_seconds = since(t0);
  };

  // The heuristic pattern with other copies, when it beats the model's answer
  // (per micro-batch; ties keep the model's) or the model has none: status
  // Feasible, bound the load bound (the model's bound holds for k copies only).
  auto take_other = [&](const std::string& model_outcome) {
    if (!other) return false;
    const int k = options.copies, k2 = other->copies;
    if (result.pattern && other_period / k2 >= result.period / k * (1 - 1e-12)) return false;
    const std::string model_best =
        result.pattern ? fmt("%.9g s per micro-batch", result.period / k) : std::string("no pattern");
    result.model_period = result.pattern ? result.period : 0;
    result.pattern = std::move(other);
    result.period = other_period;
    result.status = IlpResult::Status::Feasible;
    result.bound = std::min(base.T_lower / k * k2, result.period);
    result.gap = (result.period - result.bound) / result.period;
    if (result.first_solution_seconds < 0) result.first_solution_seconds = other_seconds;
    result.message = fmt("feasible: PipeDream's eager pattern of %g copies, %.9g s per micro-batch", k2,
                         result.period / k2) +
                     fmt(", beats the model's best with %g copies (", k) + model_best + "; " + model_outcome +
                     fmt("); load bound %.9g s per micro-batch", result.bound / k2);
    result.seconds = since(t0);
    say(options, "ilp: " + result.message);
    return true;
  };
  // Not solved (time limit 0, or spent before CBC could run): the warm start
  // is the answer, if valid, whether or not a model judged it.
  auto unsolved = [&](const std::string& why) {
    if (!result.pattern && warm && invalid.empty()) take_warm();
    result.model_period = result.pattern ? result.period : 0;
    if (take_other("not solved (" + why + ")")) return result;
    result.status = result.pattern ? IlpResult::Status::Feasible : IlpResult::Status::Unknown;
    result.message = "not solved (" + why + ")";
    result.bound = base.T_lower;
    result.gap = result.pattern ? (result.period - result.bound) / result.period : 0;
    result.seconds = since(t0);
    say(options, "ilp: " + result.message);
    return result;
  };
  // Without CBC the model only serves to be written.
  if (!solving && options.write_model.empty()) return unsolved("time limit 0");

  // The warm start's period bounds T when the model times it as the
  // platform does (fixed allocation, or alike devices and links); the model
  // is rebuilt without that bound if it rejects the warm start.
  const double upper = warm && invalid.empty() && (options.allocation || uniform(platform)) ? warm->period : 0;
  std::optional<Formulation> built;
  auto build = [&](double bound) {
    const auto build_start = Clock::now();
    built.reset();  // two models at once would double the memory
    built.emplace(make_instance(workload, platform, options, bound),
                  solving ? std::optional<Clock::time_point>(deadline) : std::nullopt);
    result.build_seconds = since(build_start);
  };
  std::vector<double> start;
  try {
    build(upper);
    if (warm) {
      std::string why = invalid;
      const double lp_seconds = solving ? std::max(1e-3, seconds_left()) : 0;
      auto values = invalid.empty() ? pattern_values(*built, *warm, workload, platform, why, lp_seconds) : std::nullopt;
      if (!values && upper > 0 && (!solving || seconds_left() > 0)) {
        build(0);
        values = pattern_values(*built, *warm, workload, platform, why, solving ? std::max(1e-3, seconds_left()) : 0);
      }
      if (values) {
        start = std::move(*values);
        take_warm();
      } else {
        say(options, "ilp: warm start rejected: " + why);
      }
    }
  } catch (const BuildTimeLimit& e) {
    return unsolved(e.what());
  }
  const Formulation& formulation = *built;
  const Instance& instance = formulation.instance();
  const LinearModel& model = formulation.model();
  result.variables = static_cast<int>(model.variables().size());
  result.integers = model.integer_count();
  result.constraints = static_cast<int>(model.rows().size());
  say(options, "ilp: model: " + std::to_string(result.variables) + " variables (" + std::to_string(result.integers) +
                   " integer), " + std::to_string(result.constraints) + " constraints, built in " +
                   fmt("%.3f s; T in [%.9g, ", result.build_seconds, instance.T_lower) +
                   fmt("%.9g]", instance.T_upper) +
                   fmt("; coefficients %.3g to %.3g", model.coefficient_range(false).first,
                       model.coefficient_range(false).second) +
                   fmt(", rows scaled %.3g to %.3g", model.coefficient_range(true).first,
                       model.coefficient_range(true).second));
  if (!options.write_model.empty()) {
    model.write(options.write_model);
    say(options, "ilp: model written to " + options.write_model);
  }
  if (!start.empty())
    say(options, fmt("ilp: %7.2f s  warm start: period %.9g", result.first_solution_seconds, result.period));

  auto finish_infeasible = [&](IlpResult::Status status, const std::string& why) {
    if (take_other(why)) return result;
    result.status = status;
    result.pattern.reset();
    result.period = 0;
    const HeuristicResult h = heuristic_memory_needed(workload, platform, options);
    result.heuristic_memory_needed = h.memory_needed;
    result.message = why + fmt("; a heuristic pattern fits with %.9g bytes per device", result.heuristic_memory_needed);
    result.seconds = since(t0);
    say(options, "ilp: " + result.message);
    return result;
  };
  if (!model.constant_violation().empty())
    return finish_infeasible(IlpResult::Status::Infeasible,
                             "no pattern fits: constraint " + model.constant_violation() + " fails for every pattern");

  if (!solving) return unsolved("time limit 0");
  if (seconds_left() <= 0) return unsolved("the time limit ended before CBC could run");

  const CbcRun run = solve_with_cbc(model, start, seconds_left(), options.threads, options.log, t0);
  result.bound = run.bound;
  std::string rejected;  // why CBC's answer was not used (a bug if ever)
  if (!run.solution.empty()) {
    try {
      Pattern p = solution_to_pattern(formulation, run.solution, workload, platform);
      rejected = violations(p, workload, platform);
      const double period = rejected.empty() ? exact(p, workload, platform) : 0;
      if (rejected.empty() && (!result.pattern || period <= result.period)) {
        result.pattern = std::move(p);
        result.period = period;
        if (result.first_solution_seconds < 0) result.first_solution_seconds = run.first_solution_seconds;
      }
    } catch (const std::invalid_argument& e) {
      rejected = e.what();
    }
    if (!rejected.empty()) say(options, "ilp: the solver's answer is no valid pattern: " + rejected);
  }
  if (!result.pattern) {
    if (run.outcome == CbcRun::Outcome::Infeasible)
      return finish_infeasible(IlpResult::Status::Infeasible, "no pattern fits in memory (CBC proved it)");
    return finish_infeasible(IlpResult::Status::Unknown,
                             rejected.empty() ? "no pattern found within the time limit"
                                              : "the solver's answer was no valid pattern (" + rejected + ")");
  }
  result.model_period = result.period;
  if (take_other(std::string(run.outcome == CbcRun::Outcome::Optimal && rejected.empty() ? "optimal" : "feasible") +
                 fmt(", bound %.9g", run.bound)))
    return result;
  result.status = run.outcome == CbcRun::Outcome::Optimal && rejected.empty() ? IlpResult::Status::Optimal
                                                                              : IlpResult::Status::Feasible;
  if (result.status == IlpResult::Status::Optimal) result.bound = std::min(result.bound, result.period);
  result.gap = result.period > 0 ? std::max(0.0, (result.period - result.bound) / result.period) : 0;
  result.message =
      std::string(to_string(result.status)) + fmt(": period %.9g, bound %.9g", result.period, result.bound) +
      (rejected.empty() ? "" : "; the solver's answer was no valid pattern (" + rejected + "), kept the warm start");
  result.seconds = since(t0);
  return result;
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
