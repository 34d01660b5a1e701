// The periodic-pattern schedules: 1f1b-pattern, kfkb (seed 000 §4.2, §4.3)
// and pattern (a pattern file), unrolled without flush.
#include <stdexcept>

#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "patterns/pattern_yaml.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

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

GeneratedSchedule one_f_one_b_pattern_schedule(const Workload& w, const Platform& platform) {
  return unrolled(w, platform, false);
}

GeneratedSchedule kfkb_schedule(const Workload& w, const Platform& platform) { return unrolled(w, platform, true); }

// schedule: {name: pattern, file: F}: unrolled for microbatches x iterations
// micro-batches, iterations back to back.
GeneratedSchedule pattern_file_schedule(const Workload& w, const Platform& platform) {
  Pattern pattern = load_workload_pattern(w, platform);
  TaskGraph g = unroll_pattern(pattern, pattern_timing(pattern, w, platform), platform.size(), total_microbatches(w),
                               w.microbatches);
  return {std::move(g), std::move(pattern)};
}

const bool registered = register_schedule({"1f1b-pattern"}, one_f_one_b_pattern_schedule) &&
                        register_schedule({"kfkb"}, kfkb_schedule) &&
                        register_schedule({"pattern"}, pattern_file_schedule);

}  // namespace

}  // namespace pipesim
