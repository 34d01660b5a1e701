// schedule: {name: ilp, memory: 12GiB, k: 2, time_limit: 60s}: the ILP's
// optimal pattern (seed 000 §6, solved by CBC) unrolled and run like any
// other pattern, so that what the solver promised is simulated.
#include <cmath>
#include <stdexcept>

#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/ilp/ilp.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "sim/input_error.hpp"
#include "sim/units.hpp"

namespace pipesim {
namespace {

// A parameter with a unit, parsed by `parse`; `fallback` when absent.
template <class Parse>
double unit_param(const Workload& w, const std::string& name, double fallback, Parse parse, const char* example) {
  const auto it = w.schedule_params.find(name);
  if (it == w.schedule_params.end()) return fallback;
  double value = 0;
  try {
    value = parse(it->second);
  } catch (const std::invalid_argument& e) {
    throw InputError(w.file, "schedule." + name, e.what());
  }
  if (!(value > 0) || !std::isfinite(value))
    throw InputError(w.file, "schedule." + name,
                     std::string("expected a positive value like '") + example + "', got '" + it->second + "'");
  return value;
}

const std::set<std::string> kParams = {"memory", "k", "time_limit", "weights", "allocation"};

GeneratedSchedule ilp_schedule(const Workload& w, const Platform& platform) {
  check_params(w, kParams);
  IlpOptions options;
  options.copies = positive_param(w, "k", 1);
  options.weights = weights_param(w);
  options.time_limit = unit_param(w, "time_limit", 60, parse_seconds, "60s");
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
    throw InputError(w.file, "schedule", "the ILP found no pattern (" + std::string(to_string(result.status)) +
                                             "): " + result.message);
  Pattern p = std::move(*result.pattern);
  TaskGraph g = unroll_pattern(p, pattern_timing(p, w, platform), platform.size(), total_microbatches(w), w.microbatches);
  return {std::move(g), std::move(p)};
}

const bool registered = register_schedule({"ilp"}, ilp_schedule) && register_schedule_params("ilp", kParams);

}  // namespace
}  // namespace pipesim
