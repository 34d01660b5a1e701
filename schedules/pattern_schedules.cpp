// Registry glue for the generated schedules: parameters, allocation, unrolling.
#include <climits>
#include <set>
#include <stdexcept>

#include "schedules/pattern_generators.hpp"
#include "schedules/pattern_timing.hpp"
#include "schedules/pattern_unroll.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

void check_params(const Workload& w, const std::set<std::string>& known) {
  for (const auto& [param, value] : w.schedule_params)
    if (!known.count(param)) {
      std::string expected;
      for (const std::string& k : known) expected += (expected.empty() ? "" : ", ") + k;
      throw InputError(w.file, "schedule." + param,
                       "unknown parameter '" + param + "' for schedule '" + w.schedule + "' (expected: " + expected +
                           ")");
    }
}

int positive_param(const Workload& w, const std::string& name, int fallback) {
  const auto it = w.schedule_params.find(name);
  if (it == w.schedule_params.end()) return fallback;
  const std::string& v = it->second;
  if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < 1)
    throw InputError(w.file, "schedule." + name, "expected a positive integer, got '" + v + "'");
  return std::stoi(v);
}

WeightPolicy weights_param(const Workload& w) {
  const auto it = w.schedule_params.find("weights");
  if (it == w.schedule_params.end()) return WeightPolicy::TwoBW;  // seed 000 eq. 33
  for (WeightPolicy p : {WeightPolicy::Flush, WeightPolicy::TwoBW, WeightPolicy::Stashing})
    if (it->second == to_string(p)) return p;
  throw InputError(w.file, "schedule.weights", "expected flush, 2bw or stashing, got '" + it->second + "'");
}

// The `allocation` parameter ("0,1,0": device index per layer), else the
// stage plan's placement (automatic or explicit; contiguous).
Allocation workload_allocation(const Workload& w, const Platform& platform) {
  const auto it = w.schedule_params.find("allocation");
  if (it == w.schedule_params.end()) {
    Allocation a(w.layers.size());
    for (const Stage& st : make_stage_plan(w, platform).stages)
      for (int l = st.first_layer; l <= st.last_layer; ++l) a[l] = st.device;
    return a;
  }
  if (!w.placement.automatic || w.placement.stages != 0)
    throw InputError(w.file, "placement", "not used with schedule.allocation, which places every layer");
  try {
    return parse_allocation(it->second, static_cast<int>(w.layers.size()), platform.size());
  } catch (const std::invalid_argument& e) {
    throw InputError(w.file, "schedule.allocation", e.what());
  }
}

int total_microbatches(const Workload& w) {
  if (static_cast<long long>(w.microbatches) * w.iterations > INT_MAX)
    throw InputError(w.file, "iterations", "too many micro-batches in all (microbatches x iterations)");
  return w.microbatches * w.iterations;
}

GeneratedSchedule unrolled(const Workload& w, const Platform& platform, bool kfkb) {
  check_params(w, kfkb ? std::set<std::string>{"allocation", "k", "weights"}
                       : std::set<std::string>{"allocation", "weights"});
  const Allocation a = workload_allocation(w, platform);
  const int copies = kfkb ? positive_param(w, "k", 2) : 1;
  try {
    Pattern p = kfkb_pattern(copies, a, w, platform, weights_param(w));
    TaskGraph g =
        unroll_pattern(p, pattern_timing(p, w, platform), platform.size(), total_microbatches(w), w.microbatches);
    return {std::move(g), std::move(p)};
  } catch (const std::invalid_argument& e) {
    throw InputError(w.file, "schedule", e.what());
  }
}

}  // namespace

GeneratedSchedule one_f_one_b_pattern_schedule(const Workload& w, const Platform& platform) {
  return unrolled(w, platform, false);
}

GeneratedSchedule kfkb_schedule(const Workload& w, const Platform& platform) { return unrolled(w, platform, true); }

GeneratedSchedule pipedream_workload_schedule(const Workload& w, const Platform& platform) {
  check_params(w, {"allocation", "noam"});
  const Allocation a = workload_allocation(w, platform);
  if (!is_contiguous(a))
    throw InputError(w.file, "schedule.allocation", "PipeDream needs a contiguous allocation, got " + to_string(a));
  const StagePlan plan = allocation_plan(a, w, platform);
  const int noam = positive_param(w, "noam", static_cast<int>(plan.stages.size()));
  GeneratedSchedule out{pipedream_schedule(plan, total_microbatches(w), noam, platform.size()), std::nullopt};
  try {
    out.pattern = pipedream_pattern(a, noam, w, platform);
  } catch (const std::exception&) {
    // Its steady state is not 1-periodic, or two of its transfers share a link
    // at once: no seed 000 pattern says that. The run itself is unaffected.
  }
  return out;
}

}  // namespace pipesim
