#include "schedules/split/split_planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "schedules/schedule_params.hpp"
#include "schedules/split/split_allocation.hpp"
#include "schedules/split/split_partition.hpp"
#include "sim/format.hpp"
#include "sim/input_error.hpp"
#include "workloads/costs.hpp"

namespace pipesim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string param(const Workload& w, const std::string& name, const std::string& fallback) {
  const auto it = w.schedule_params.find(name);
  return it == w.schedule_params.end() ? fallback : it->second;
}

// A number parameter: the whole text must be a finite number.
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

// The bandwidth of worker k for h: its route to the next worker (the
// previous one for the last); infinite for a single worker.
double worker_bandwidth(const Platform& platform, int k, int workers) {
  double b = kInf;
  if (k + 1 < workers) b = std::min(b, platform.path(k, k + 1).bandwidth);
  if (k > 0) b = std::min(b, platform.path(k, k - 1).bandwidth);
  if (!(b > 0)) throw InputError(platform.file, "host '" + platform.devices[k].name + "'", "no route to its neighbour worker");
  return b;
}

split::Device split_device(const Device& d) {
  split::Device out{d.name, {}};
  for (const ComputeResource& r : device_resources(d)) out.resources.push_back({r.type, r.forward_speed, r.backward_speed});
  return out;
}

// "device 'pi0': no resource ..." from the algorithms, as the platform's error.
[[noreturn]] void platform_error(const Platform& platform, const Device& d, const std::string& message) {
  const std::string prefix = "device '" + d.name + "': ";
  const std::string what = message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
  throw InputError(platform.file, "host '" + d.name + "' resources", what);
}

bool identical(const std::vector<split::WorkerProfile>& profiles) {
  for (const auto& p : profiles)
    if (p.resources != profiles[0].resources || p.bandwidth != profiles[0].bandwidth) return false;
  for (const auto& p : profiles)
    for (std::size_t j = 0; j < p.times.size(); ++j)
      if (p.times[j].forward != profiles[0].times[j].forward || p.times[j].backward != profiles[0].times[j].backward)
        return false;
  return true;
}

}  // namespace

std::vector<ComputeResource> device_resources(const Device& device) {
  if (!device.resources.empty()) return device.resources;
  return {{device.kind.empty() ? "gpu" : device.kind, device.name, device.speed, device.speed, device.speed}};
}

SplitPlan plan_split(const Workload& w, const Platform& platform) {
  check_params(w, {"workers", "partition", "epsilon", "allocation", "beta", "in_flight"});
  if (!w.placement.automatic)
    throw InputError(w.file, "placement",
                     "schedule 'split' cuts the chain itself (eq. 1); give placement: auto or {stages: N} "
                     "(or schedule.workers), not a list of hosts");
  const int workers = positive_param(w, "workers", w.placement.stages > 0 ? w.placement.stages : platform.size());
  if (workers > platform.size())
    throw InputError(w.file, "schedule.workers",
                     std::to_string(workers) + " workers for " + std::to_string(platform.size()) +
                         " devices: each worker is one device");
  SplitPlan plan;
  plan.partition = param(w, "partition", "exact");
  if (plan.partition != "exact" && plan.partition != "algorithm1")
    throw InputError(w.file, "schedule.partition", "expected exact or algorithm1, got '" + plan.partition + "'");
  plan.allocation = param(w, "allocation", "optimal");
  if (plan.allocation != "optimal" && plan.allocation != "none")
    throw InputError(w.file, "schedule.allocation", "expected optimal or none, got '" + plan.allocation + "'");
  const double beta = number_param(w, "beta", 0.5, "a number in [0, 1]", [](double v) { return v >= 0 && v <= 1; });
  if (plan.allocation == "optimal" && w.schedule_params.count("beta"))
    throw InputError(w.file, "schedule.beta", "a fixed beta needs allocation: none (optimal computes it)");
  const double epsilon = number_param(w, "epsilon", 1e-6, "a finite number of seconds > 0",
                                      [](double v) { return v > 0 && std::isfinite(v); });
  if (w.schedule_params.count("epsilon") && plan.partition != "algorithm1")
    throw InputError(w.file, "schedule.epsilon", "only with partition: algorithm1");

  // The chain in flops; its cut per worker, each worker with its own profile.
  const double reference = reference_speed(w, platform);
  std::vector<split::Layer> chain;
  for (const Layer& l : w.layers)
    chain.push_back({cost_flops(l.forward, reference), cost_flops(l.backward, reference), l.activation});
  std::vector<split::WorkerProfile> profiles;
  for (int k = 0; k < workers; ++k) {
    const Device& d = platform.devices[k];
    try {
      profiles.push_back(split::profile_from_speeds(split_device(d), chain, worker_bandwidth(platform, k, workers)));
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      if (what.rfind("layer ", 0) == 0) throw InputError(w.file, "layers", what);
      platform_error(platform, d, what);
    }
  }
  split::SplitPartition cut;
  if (plan.partition == "exact") {
    cut = split::exact_partition(profiles);
  } else {
    if (!identical(profiles))
      throw InputError(w.file, "schedule.partition",
                       "algorithm1 needs identical workers (same resources, speeds and bandwidth); use exact");
    cut = split::algorithm1_partition(profiles[0], workers, epsilon).partition;
  }

  int first = 0;
  for (std::size_t s = 0; s < cut.last_layer.size(); ++s) {
    const Device& d = platform.devices[s];
    const split::StageCosts costs(profiles[s]);
    SplitStagePlan stage;
    stage.device = static_cast<int>(s);
    stage.first_layer = first;
    stage.last_layer = cut.last_layer[s];
    const split::StageRates rates = costs.rates(stage.first_layer, stage.last_layer);
    split::Allocation a;
    try {
      a = plan.allocation == "optimal" ? split::optimal_allocation(rates)
                                       : split::evaluate_allocation(rates, std::vector<double>(rates.forward.size(), beta));
    } catch (const std::invalid_argument& e) {
      if (plan.allocation == "none")
        throw InputError(w.file, "schedule.beta", "beta " + fmt::number(beta) + " on host '" + d.name + "': " + e.what());
      platform_error(platform, d, e.what());
    }
    stage.beta = a.beta;
    stage.forward_seconds = a.forward_seconds;
    stage.backward_seconds = a.backward_seconds;
    stage.communication_seconds = costs.communication(stage.first_layer, stage.last_layer);
    plan.period = std::max(plan.period, stage.period());
    plan.stages.push_back(stage);
    first = stage.last_layer + 1;
  }
  // No more in flight (nor weight versions) than there are micro-batches.
  const int in_flight = positive_param(w, "in_flight", 0), total = total_microbatches(w);
  for (std::size_t s = 0; s < plan.stages.size(); ++s)
    plan.stages[s].in_flight =
        std::min(total, in_flight > 0 ? in_flight : default_in_flight(plan, platform, static_cast<int>(s)));
  return plan;
}

int default_in_flight(const SplitPlan& plan, const Platform& platform, int stage) {
  const int S = static_cast<int>(plan.stages.size());
  double round_trip = 0;
  for (int t = stage; t < S; ++t) {
    round_trip += plan.stages[t].forward_seconds + plan.stages[t].backward_seconds;
    if (t + 1 < S)
      round_trip += 2 * plan.period + platform.path(plan.stages[t].device, plan.stages[t + 1].device).latency +
                    platform.path(plan.stages[t + 1].device, plan.stages[t].device).latency;
  }
  const double slots = std::ceil(round_trip / plan.period - 1e-9) + 1;
  return static_cast<int>(std::min(slots, 1e6));
}

}  // namespace pipesim
