#include "schedules/schedule_params.hpp"

#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "schedules/stages/stage_plan.hpp"
#include "sim/input_error.hpp"

namespace pipesim {

void check_params(const Workload& w, const std::set<std::string>& known) {
  for (const auto& [param, value] : w.schedule_params)
    if (!known.count(param)) {
      std::string expected;
      for (const std::string& k : known) expected += (expected.empty() ? "" : ", ") + k;
      throw InputError(w.file, "schedule." + param,
                       "unknown parameter '" + param + "' for schedule '" + w.schedule + "'" +
                           (known.empty() ? std::string(" (it takes none)") : " (expected: " + expected + ")"));
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

double number_param(const Workload& w, const std::string& name, double fallback, const std::string& expected,
                    bool (*valid)(double)) {
  const auto it = w.schedule_params.find(name);
  if (it == w.schedule_params.end()) return fallback;
  const std::string& text = it->second;
  char* end = nullptr;
  const double v = text.empty() ? std::nan("") : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !valid(v))
    throw InputError(w.file, "schedule." + name, "expected " + expected + ", got '" + text + "'");
  return v;
}

WeightPolicy weights_param(const Workload& w) {
  const auto it = w.schedule_params.find("weights");
  if (it == w.schedule_params.end()) return WeightPolicy::TwoBW;  // seed 000 eq. 33
  for (WeightPolicy p : {WeightPolicy::Flush, WeightPolicy::TwoBW, WeightPolicy::Stashing})
    if (it->second == to_string(p)) return p;
  throw InputError(w.file, "schedule.weights", "expected flush, 2bw or stashing, got '" + it->second + "'");
}

LinkModel links_param(const Workload& w) {
  const auto it = w.schedule_params.find("links");
  if (it == w.schedule_params.end()) return LinkModel::Platform;
  for (LinkModel m : {LinkModel::Platform, LinkModel::Pair})
    if (it->second == to_string(m)) return m;
  throw InputError(w.file, "schedule.links", "expected platform or pair, got '" + it->second + "'");
}

BufferPolicy memory_policy_param(const Workload& w) {
  const auto it = w.schedule_params.find("memory_policy");
  BufferPolicy policy = BufferPolicy::Lifetime;
  if (it != w.schedule_params.end() && !parse_buffer_policy(it->second, policy))
    throw InputError(w.file, "schedule.memory_policy", "expected lifetime or seed000, got '" + it->second + "'");
  return policy;
}

Allocation workload_allocation(const Workload& w, const Platform& platform) {
  const auto it = w.schedule_params.find("allocation");
  if (it == w.schedule_params.end()) {
    Allocation a(w.layers.size());
    for (const Stage& st : make_stage_plan(w, platform).stages)
      for (int l = st.first_layer; l <= st.last_layer; ++l) a[l] = st.device;
    return a;
  }
  if (!w.placement.automatic || w.placement.stages != 0 || w.placement.partition != PartitionRule::Auto)
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

}  // namespace pipesim
