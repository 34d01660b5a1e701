// schedule: {name: ilp, memory: 12GiB, k: 2, time_limit: 60s}: the ILP's
// optimal pattern (seed 000 §6, solved by CBC) unrolled and run like any
// other pattern, so that what the solver promised is simulated.
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/ilp/ilp.hpp"
#include "schedules/ilp/ilp_size.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "sim/input_error.hpp"
#include "sim/units.hpp"

namespace pipesim {
namespace {

// A parameter with a unit, parsed by `parse`; `fallback` when absent.
template <class Parse>
double unit_param(const Workload& w, const std::string& name, double fallback, Parse parse, const char* example,
                  bool zero_allowed = false) {
  const auto it = w.schedule_params.find(name);
  if (it == w.schedule_params.end()) return fallback;
  double value = 0;
  try {
    value = parse(it->second);
  } catch (const std::invalid_argument& e) {
    throw InputError(w.file, "schedule." + name, e.what());
  }
  if (!(value > 0 || (zero_allowed && value == 0)) || !std::isfinite(value))
    throw InputError(w.file, "schedule." + name,
                     std::string("expected a ") + (zero_allowed ? "" : "positive ") + "value like '" + example +
                         "', got '" + it->second + "'");
  return value;
}

// time_limit 0: CBC is not run, the heuristic's pattern is the answer (docs/ilp.md).
double time_limit_param(const Workload& w) { return unit_param(w, "time_limit", 60, parse_seconds, "60s", true); }

// The run's tasks as for any schedule (a task per layer and micro-batch
// each way, a transfer between any two layers), and the model the solver
// builds, which is often far larger: its pairs of ops grow as (k L)^2.
// Parameters the builder would refuse count as their defaults here.
ScheduleSize ilp_size(const Workload& w, const Platform& platform) {
  const double L = static_cast<double>(w.layers.size());
  ScheduleSize size{static_cast<double>(w.microbatches) * w.iterations * (4 * L - 2), 4 * L - 2,
                    std::to_string(w.layers.size()) + " layers"};
  int k = 1;
  std::optional<Allocation> allocation;
  WeightPolicy weights = WeightPolicy::TwoBW;
  try {
    if (time_limit_param(w) == 0) return size;  // no model built
    k = positive_param(w, "k", 1);
    weights = weights_param(w);
    if (w.schedule_params.count("allocation")) allocation = workload_allocation(w, platform);
  } catch (const std::exception&) {
    return size;  // the builder says why
  }
  size.pattern_items *= k;
  const ilp::ModelSize model =
      ilp::estimated_model_size(static_cast<int>(w.layers.size()), platform.size(), k, allocation, weights);
  char nonzeros[32];
  std::snprintf(nonzeros, sizeof nonzeros, "%.2g", model.nonzeros);
  size.builder_bytes = ilp::estimated_model_bytes(model);
  size.builder_field = k > 1 ? "schedule.k" : "layers";
  size.builder_what = "the ILP model (k = " + std::to_string(k) + " copies of " + std::to_string(w.layers.size()) +
                      " layers, " + (allocation ? "fixed" : "free") + " allocation: about " + nonzeros +
                      " nonzeros; time_limit: 0 runs the heuristic's pattern without it)";
  return size;
}

// The share of the time limit for the fixed-allocation improvement loop (default 0: none).
double allocation_search_param(const Workload& w) {
  return number_param(w, "allocation_search", 0, "a number from 0 to 1", [](double v) { return v >= 0 && v <= 1; });
}

const std::set<std::string> kParams = {"memory", "k", "time_limit", "weights", "allocation", "allocation_search"};

GeneratedSchedule ilp_schedule(const Workload& w, const Platform& platform) {
  check_params(w, kParams);
  IlpOptions options;
  options.copies = positive_param(w, "k", 1);
  options.weights = weights_param(w);
  options.time_limit = time_limit_param(w);
  options.allocation_search = allocation_search_param(w);
  if (w.schedule_params.count("allocation")) options.allocation = workload_allocation(w, platform);
  // The solver's limit; the run itself is checked against the platform's memory.
  Platform limited = platform;
  if (w.schedule_params.count("memory")) {
    const double memory = unit_param(w, "memory", 0, parse_bytes, "12GiB");
    for (Device& d : limited.devices) d.memory = memory;
  }
  IlpResult result;
  try {
    result = solve_optimal_pattern(w, limited, options);
  } catch (const std::invalid_argument& e) {
    throw InputError(w.file, "schedule", e.what());
  }
  if (!result.pattern)
    throw InputError(w.file, "schedule",
                     "the ILP found no pattern (" + std::string(to_string(result.status)) + "): " + result.message);
  Pattern p = std::move(*result.pattern);
  TaskGraph g =
      unroll_pattern(p, pattern_timing(p, w, platform), platform.size(), total_microbatches(w), w.microbatches);
  return {std::move(g), std::move(p)};
}

const bool registered = register_schedule({"ilp"}, ilp_schedule, ilp_size) && register_schedule_params("ilp", kParams);

}  // namespace
}  // namespace pipesim
