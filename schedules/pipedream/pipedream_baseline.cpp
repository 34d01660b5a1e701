#include "schedules/pipedream/pipedream_baseline.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

#include "schedules/pipedream/pipedream.hpp"
#include "schedules/pipedream/pipedream_baseline_internal.hpp"
#include "schedules/stages/stage_plan.hpp"

namespace pipesim {
namespace {

PipeDreamPlan plan_of(const PipeDreamPartition& p, int layers) {
  PipeDreamPlan plan;
  if (!p.feasible) return plan;
  plan.feasible = true;
  plan.last_layer = p.last_layer;
  plan.bottleneck = p.time_per_stage;
  plan.estimate = p.estimate;
  plan.allocation.assign(layers, 0);
  for (std::size_t s = 0, first = 0; s < p.last_layer.size(); first = p.last_layer[s] + 1, ++s)
    for (int l = static_cast<int>(first); l <= p.last_layer[s]; ++l) plan.allocation[l] = static_cast<int>(s);
  return plan;
}

}  // namespace

double pipedream_memory_estimate(const Workload& workload, int first, int last, int slot, int machines) {
  double activations = 0, weights = 0;
  for (int l = first; l <= last; ++l)
    activations += operator_activations(workload.layers[l]), weights += workload.layers[l].weights;
  return (activations + weights) * std::max(0, machines - 1 - slot);
}

PipeDreamSettings pipedream_settings(const Platform& platform, const PipeDreamFlags& flags) {
  PipeDreamSettings s;
  s.machines = platform.size();
  s.memory_size = flags.memory_target;
  s.use_fewer_machines = flags.fewer_machines;
  s.compression_ratio = flags.communication ? 1 : 0;
  double bandwidth = std::numeric_limits<double>::infinity();
  for (int d = 0; d + 1 < platform.size(); ++d)
    for (const Path* path : {&platform.path(d, d + 1), &platform.path(d + 1, d)})
      if (path->exists && path->bandwidth > 0) bandwidth = std::min(bandwidth, path->bandwidth);
  if (bandwidth < std::numeric_limits<double>::infinity()) s.bandwidth = bandwidth;
  return s;
}

PipeDreamPlan pipedream_plan(const Workload& workload, const Platform& platform, const PipeDreamFlags& flags) {
  if (workload.layers.empty() || platform.size() == 0)
    throw std::invalid_argument("PipeDream planner: no layers or no devices");
  return plan_of(pipedream_partition(pipedream_chain(workload, platform), pipedream_settings(platform, flags)),
                 static_cast<int>(workload.layers.size()));
}

std::vector<BaselineConfig> pipedream_configurations(const Workload& workload, const Platform& platform,
                                                     const BaselineOptions& options, bool* capped) {
  if (capped) *capped = false;
  const int L = static_cast<int>(workload.layers.size());
  const PipeDreamChain chain = pipedream_chain(workload, platform);
  std::vector<double> targets = pipedream_memory_thresholds(chain, platform.size());
  for (double t : options.memory_targets)
    if (t > 0) targets.push_back(t);
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  std::vector<int> noams = options.noams;
  if (noams.empty())
    for (int n = 1; n <= platform.size(); ++n) noams.push_back(n);

  // Per setting, only the targets that can give something: from the first
  // feasible one (feasibility grows with the target) to the largest estimate
  // of the unconstrained plan (from there on, the plan is that one).
  struct Setting {
    bool communication, fewer;
    std::size_t from, to;  // targets[from, to)
    PipeDreamPartition free;
  };
  std::vector<Setting> settings;
  for (bool communication : options.communication)
    for (bool fewer : options.fewer_machines) {
      auto plan = [&](double target) {
        return pipedream_partition(chain, pipedream_settings(platform, {target, communication, fewer}));
      };
      const PipeDreamPartition free = plan(0);
      if (!free.feasible) continue;
      const double top = *std::max_element(free.estimate.begin(), free.estimate.end());
      std::size_t lo = 0, hi = std::upper_bound(targets.begin(), targets.end(), top) - targets.begin();
      const std::size_t to = hi;
      while (lo < hi) {  // the first feasible target
        const std::size_t mid = (lo + hi) / 2;
        if (plan(targets[mid]).feasible)
          hi = mid;
        else
          lo = mid + 1;
      }
      settings.push_back({communication, fewer, lo, to, free});
    }

  // The plans at one setting: the planner's own, or with ties > 1 up to that
  // many of the partitions PipeDream may return (one more is asked for: it
  // says the ties were capped, and is dropped).
  auto plans_at = [&](const PipeDreamSettings& s) {
    if (options.ties <= 1) return std::vector{pipedream_partition(chain, s)};
    std::vector<PipeDreamPartition> plans = pipedream_tied_partitions(chain, s, options.ties + 1);
    if (plans.size() > options.ties) {
      plans.resize(options.ties);
      if (capped) *capped = true;
    }
    return plans;
  };
  std::vector<BaselineConfig> configs;
  std::set<std::pair<std::vector<int>, int>> seen;
  // TARGET < 0: each partition's own largest estimate.
  auto add = [&](const std::vector<PipeDreamPartition>& plans, double target, const Setting& setting) {
    for (const PipeDreamPartition& p : plans)
      for (int noam : noams)
        if (seen.emplace(p.last_layer, noam).second)
          configs.push_back({target >= 0 ? target : *std::max_element(p.estimate.begin(), p.estimate.end()), noam,
                             plan_of(p, L), setting.communication, setting.fewer});
  };
  for (std::size_t t = 0; t < targets.size(); ++t)
    for (const Setting& setting : settings)
      if (t >= setting.from && t < setting.to)
        add(plans_at(pipedream_settings(platform, {targets[t], setting.communication, setting.fewer})), targets[t],
            setting);
  // Without a memory target: the planner's own plan is nothing new (unless no
  // target was tried: one device), but its ties may need more memory than
  // any target above gave, so they are only here.
  for (const Setting& setting : settings)
    add(options.ties > 1 ? plans_at(pipedream_settings(platform, {0, setting.communication, setting.fewer}))
                         : std::vector{setting.free},
        -1, setting);
  return configs;
}

std::string describe_stages(const std::vector<int>& last_layer) {
  std::string s;
  for (std::size_t i = 0, first = 0; i < last_layer.size(); first = last_layer[i] + 1, ++i) {
    const int last = last_layer[i];
    s += (i ? "|" : "") + std::to_string(first) + (last == static_cast<int>(first) ? "" : "-" + std::to_string(last));
  }
  return s;
}

std::string describe(const BaselineConfig& config) {
  return "noam=" + std::to_string(config.noam) + " stages=" + describe_stages(config.plan.last_layer);
}

}  // namespace pipesim
