#include "schedules/split/split_planner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "schedules/split/split_allocation.hpp"
#include "schedules/split/split_grouping.hpp"
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

// The bandwidth of worker k for h: the route from its first device to the
// next worker's (the previous one's for the last); infinite for a single worker.
double worker_bandwidth(const Platform& platform, const std::vector<std::vector<int>>& groups, int k) {
  const int workers = static_cast<int>(groups.size());
  double b = kInf;
  if (k + 1 < workers) b = std::min(b, platform.path(groups[k][0], groups[k + 1][0]).bandwidth);
  if (k > 0) b = std::min(b, platform.path(groups[k][0], groups[k - 1][0]).bandwidth);
  if (!(b > 0))
    throw InputError(platform.file, "host '" + platform.devices[groups[k][0]].name + "'",
                     "no route to its neighbour worker");
  return b;
}

// How worker k's two sends share its h: they take turns (sum) when the
// routes to its two neighbours cross a link in the same direction that
// divides its bandwidth (a Wi-Fi uplink, one NIC to a switch); otherwise
// each has its own links (max), as on a full-duplex point-to-point pair.
// Unknown routes (hand-made path tables) count as shared: h is then never
// under-estimated.
split::SendOverlap route_sends(const Platform& platform, const std::vector<std::vector<int>>& groups, int k) {
  const int workers = static_cast<int>(groups.size());
  if (k == 0 || k + 1 >= workers) return split::SendOverlap::Sum;  // one send: both readings agree
  const Path& next = platform.path(groups[k][0], groups[k + 1][0]);
  const Path& previous = platform.path(groups[k][0], groups[k - 1][0]);
  if (next.links.empty() || previous.links.empty()) return split::SendOverlap::Sum;
  for (const int link : next.links)
    if (platform.links[link].sharing != LinkSharing::FatPipe &&
        std::find(previous.links.begin(), previous.links.end(), link) != previous.links.end())
      return split::SendOverlap::Sum;
  return split::SendOverlap::Max;
}

split::Device split_device(const Device& d) {
  split::Device out{d.name, {}};
  for (const ComputeResource& r : device_resources(d))
    out.resources.push_back({r.type, r.forward_speed, r.backward_speed});
  return out;
}

// "device 'pi0': no resource ..." from the algorithms, as the platform's error.
[[noreturn]] void platform_error(const Platform& platform, const Device& d, const std::string& message) {
  const std::string prefix = "device '" + d.name + "': ";
  const std::string what = message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
  throw InputError(platform.file, "host '" + d.name + "' resources", what);
}

// A worker (one device, or a group of them): its resources summed type by
// type as §V sums resource vectors, so the allocation gives one beta per
// type; type_of[i][j] is the summed resource that resource j of devices[i] adds to.
struct Worker {
  std::vector<int> devices;
  split::Device resources;
  std::vector<std::vector<int>> type_of;
};

Worker make_worker(const Platform& platform, const std::vector<int>& devices) {
  Worker w{devices, split_device(platform.devices[devices[0]]), {}};
  if (devices.size() == 1) {  // as the device lists them (a type listed twice stays an error)
    w.type_of.emplace_back();
    for (std::size_t j = 0; j < w.resources.resources.size(); ++j) w.type_of[0].push_back(static_cast<int>(j));
    return w;
  }
  w.resources.resources.clear();
  for (const int v : devices) {
    w.type_of.emplace_back();
    for (const split::Resource& r : split_device(platform.devices[v]).resources) {
      auto& summed = w.resources.resources;
      auto it = std::find_if(summed.begin(), summed.end(), [&](const split::Resource& x) { return x.type == r.type; });
      if (it == summed.end()) it = summed.insert(summed.end(), {r.type, 0, 0});
      it->forward_speed += r.forward_speed;
      it->backward_speed += r.backward_speed;
      w.type_of.back().push_back(static_cast<int>(it - summed.begin()));
    }
  }
  return w;
}

// The workers' devices: devices 0..q-1 alone without grouping, else the
// method's q groups of all n devices, formed for the whole chain (a group's
// period scales with the flops, so only their forward/backward ratio
// counts), strongest first.
std::vector<std::vector<int>> worker_groups(const Workload& w, const Platform& platform, int workers,
                                            const std::string& grouping, const std::vector<split::Layer>& chain,
                                            double& period) {
  std::vector<std::vector<int>> groups;
  if (grouping == "none") {
    for (int k = 0; k < workers; ++k) groups.push_back({k});
    return groups;
  }
  split::GroupingProblem problem;
  problem.workers = workers;
  for (const Device& d : platform.devices) problem.devices.push_back(split_device(d));
  for (const split::Layer& l : chain)
    problem.forward_flops += l.forward_flops, problem.backward_flops += l.backward_flops;
  const split::GroupingMethod method =
      grouping == "algorithm2" ? split::GroupingMethod::LocalSearch : split::grouping_method(grouping);
  try {
    split::Grouping g = split::group_devices(problem, method);
    period = g.period;
    // The strongest group first (lowest period for the whole chain; ties: the
    // method's order): the partition uses workers 0..S-1 of the pipeline, so
    // every method's groups go into it the same way, and the weakest can be left idle.
    std::vector<double> alone;
    for (const auto& group : g.groups) alone.push_back(split::grouping_period(problem, {group}));
    std::vector<std::size_t> order(g.groups.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return alone[x] < alone[y]; });
    std::vector<std::vector<int>> sorted;
    for (const std::size_t k : order) sorted.push_back(g.groups[k]);
    return sorted;
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const Device& d : platform.devices)
      if (what.rfind("device '" + d.name + "': ", 0) == 0) platform_error(platform, d, what);
    const std::string prefix = "grouping: ";
    throw InputError(w.file, "schedule.grouping", what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what);
  }
}

// The workload's §VI time table (layers' `times`), by resource type; empty
// when the layers give none.
split::TimeTable time_table(const Workload& w) {
  split::TimeTable table;
  for (const Layer& layer : w.layers)
    for (const auto& [type, t] : layer.resource_times) {
      table[type].forward.push_back(t.forward);
      table[type].backward.push_back(t.backward);
    }
  return table;
}

// A worker's profile from the time table: a group's resources of one type
// add their rates (§V sums resource vectors), so its times divide by their count.
split::WorkerProfile table_profile(const Workload& w, const Platform& platform, const Worker& worker,
                                   const split::TimeTable& table, const std::vector<double>& output_bytes,
                                   double bandwidth) {
  for (const int v : worker.devices)
    for (const ComputeResource& r : device_resources(platform.devices[v]))
      if (!table.count(r.type)) {
        std::string known;
        for (const auto& [type, _] : table) known += (known.empty() ? "" : ", ") + type;
        throw InputError(w.file, "layers[0].times",
                         "no time for resource type '" + r.type + "' of host '" + platform.devices[v].name +
                             "' (the table has " + known + ")");
      }
  split::WorkerProfile p;
  try {
    p = split::profile_from_table(worker.resources, table, output_bytes, bandwidth);
  } catch (const std::invalid_argument& e) {
    throw InputError(w.file, "layers[0].times", e.what());
  }
  for (std::size_t j = 0; j < p.resources.size(); ++j) {
    double count = 0;
    for (const auto& types : worker.type_of) count += std::count(types.begin(), types.end(), static_cast<int>(j));
    for (double& t : p.times[j].forward) t /= count;
    for (double& t : p.times[j].backward) t /= count;
  }
  return p;
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

namespace {
const std::set<std::string> kParams = {"workers",    "grouping", "partition", "epsilon",
                                       "allocation", "beta",     "in_flight", "sends"};
// Declared here, beside the check, so that a sweep finds an unknown one before running.
const bool params_registered = register_schedule_params("split", kParams);
}  // namespace

SplitPlan plan_split(const Workload& w, const Platform& platform) {
  check_params(w, kParams);
  if (!w.placement.automatic)
    throw InputError(w.file, "placement",
                     "schedule 'split' cuts the chain itself (eq. 1); give placement: auto or {stages: N} "
                     "(or schedule.workers), not a list of hosts");
  if (w.placement.partition != PartitionRule::Auto)
    throw InputError(w.file, "placement.partition", "schedule 'split' cuts the chain itself (eq. 1); leave it out");
  const std::string grouping = param(w, "grouping", "none");
  if (grouping != "none" && grouping != "algorithm2" && grouping != "brute-force" && grouping != "sorting")
    throw InputError(w.file, "schedule.grouping",
                     "expected none, algorithm2, brute-force or sorting, got '" + grouping + "'");
  const int workers = positive_param(w, "workers", w.placement.stages > 0 ? w.placement.stages : platform.size());
  if (workers > platform.size())
    throw InputError(w.file, "schedule.workers",
                     std::to_string(workers) + " workers for " + std::to_string(platform.size()) + " devices: " +
                         (grouping == "none" ? "each worker is one device" : "each group needs at least one device"));
  SplitPlan plan;
  plan.grouping = grouping;
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

  const std::string sends = param(w, "sends", "auto");
  if (sends != "auto" && sends != "sum" && sends != "max")
    throw InputError(w.file, "schedule.sends", "expected auto, sum or max, got '" + sends + "'");

  // The chain in flops; its cut per worker, each worker with its own profile.
  const double reference = reference_speed(w, platform);
  std::vector<split::Layer> chain;
  for (const Layer& l : w.layers)
    chain.push_back({cost_flops(l.forward, reference), cost_flops(l.backward, reference), l.activation});
  plan.groups = worker_groups(w, platform, workers, grouping, chain, plan.grouping_period);
  const std::vector<std::vector<int>>& groups = plan.groups;
  const split::TimeTable table = time_table(w);
  std::vector<double> output_bytes;
  for (const split::Layer& l : chain) output_bytes.push_back(l.output_bytes);
  std::vector<Worker> worker;
  std::vector<split::WorkerProfile> profiles;
  for (int k = 0; k < workers; ++k) {
    const Device& d = platform.devices[groups[k][0]];
    try {
      worker.push_back(make_worker(platform, groups[k]));
      const double bandwidth = worker_bandwidth(platform, groups, k);
      profiles.push_back(table.empty() ? split::profile_from_speeds(worker.back().resources, chain, bandwidth)
                                       : table_profile(w, platform, worker.back(), table, output_bytes, bandwidth));
      profiles.back().sends = sends == "sum"   ? split::SendOverlap::Sum
                              : sends == "max" ? split::SendOverlap::Max
                                               : route_sends(platform, groups, k);
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
    const Device& d = platform.devices[groups[s][0]];
    const split::StageCosts costs(profiles[s]);
    SplitStagePlan stage;
    stage.device = groups[s][0];
    stage.devices = groups[s];
    stage.first_layer = first;
    stage.last_layer = cut.last_layer[s];
    const split::StageRates rates = costs.rates(stage.first_layer, stage.last_layer);
    split::Allocation a;
    try {
      a = plan.allocation == "optimal"
              ? split::optimal_allocation(rates)
              : split::evaluate_allocation(rates, std::vector<double>(rates.forward.size(), beta));
    } catch (const std::invalid_argument& e) {
      if (plan.allocation == "none")
        throw InputError(w.file, "schedule.beta",
                         "beta " + fmt::number(beta) + " on host '" + d.name + "': " + e.what());
      platform_error(platform, d, e.what());
    }
    for (const std::vector<int>& types : worker[s].type_of) {
      stage.beta.emplace_back();
      for (const int t : types) stage.beta.back().push_back(a.beta[t]);
    }
    for (std::size_t i = 0; i < stage.devices.size(); ++i) {
      stage.resource_forward_seconds.emplace_back();
      stage.resource_backward_seconds.emplace_back();
      const std::vector<ComputeResource> resources = device_resources(platform.devices[stage.devices[i]]);
      for (const ComputeResource& r : resources) {
        // The stage's seconds on the whole resource: the table's sum, or its flops
        // over the pass speed (infinite when it cannot run the pass).
        auto seconds = [&](bool forward) {
          double sum = 0;
          for (int l = stage.first_layer; l <= stage.last_layer; ++l)
            sum += table.empty() ? (forward ? chain[l].forward_flops : chain[l].backward_flops)
                                 : (forward ? table.at(r.type).forward[l] : table.at(r.type).backward[l]);
          if (!table.empty()) return sum;
          const double speed = forward ? r.forward_speed : r.backward_speed;
          return speed > 0 ? sum / speed : kInf;
        };
        stage.resource_forward_seconds.back().push_back(seconds(true));
        stage.resource_backward_seconds.back().push_back(seconds(false));
      }
    }
    stage.forward_seconds = a.forward_seconds;
    stage.backward_seconds = a.backward_seconds;
    stage.communication_seconds = costs.communication(stage.first_layer, stage.last_layer);
    stage.sends = profiles[s].sends == split::SendOverlap::Max ? "max" : "sum";
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
