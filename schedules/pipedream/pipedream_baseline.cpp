#include "schedules/pipedream/pipedream_baseline.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>

#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "schedules/stages/stage_plan.hpp"

namespace pipesim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Prefix sums over the chain: [0, i) for i in 0..L.
struct Prefix {
  std::vector<double> flops, activation, weights;
  explicit Prefix(const Workload& w, double ref) : flops{0}, activation{0}, weights{0} {
    for (const Layer& l : w.layers) {
      flops.push_back(flops.back() + cost_flops(l.forward, ref) + cost_flops(l.backward, ref));
      activation.push_back(activation.back() + l.activation);
      weights.push_back(weights.back() + l.weights);
    }
  }
};

// Min over partitions of layers [0, L) into S <= P contiguous stages (stage s
// on device s) of the largest stage cost or boundary cost; ties: fewer stages,
// then earlier cuts. cost(s, first, last) and boundary(s, last) may be inf.
PipeDreamPlan min_max_partition(int L, int P, const std::function<double(int, int, int)>& cost,
                                const std::function<double(int, int)>& boundary) {
  const int S = std::min(P, L);
  std::vector<std::vector<double>> best(S, std::vector<double>(L, kInf));
  std::vector<std::vector<int>> from(S, std::vector<int>(L, -1));
  for (int l = 0; l < L; ++l) best[0][l] = cost(0, 0, l);
  for (int s = 1; s < S; ++s)
    for (int l = s; l < L; ++l)
      for (int k = s - 1; k < l; ++k) {
        if (best[s - 1][k] == kInf) continue;
        const double v = std::max({best[s - 1][k], boundary(s - 1, k), cost(s, k + 1, l)});
        if (v < best[s][l]) best[s][l] = v, from[s][l] = k;
      }
  PipeDreamPlan plan;
  int stages = 0;
  for (int s = 0; s < S; ++s)
    if (best[s][L - 1] < (stages ? best[stages - 1][L - 1] : kInf)) stages = s + 1;
  if (stages == 0) return plan;
  plan.feasible = true;
  plan.bottleneck = best[stages - 1][L - 1];
  plan.last_layer.assign(stages, L - 1);
  for (int s = stages - 1; s > 0; --s) plan.last_layer[s - 1] = from[s][plan.last_layer[s]];
  plan.allocation.assign(L, 0);
  for (int s = 0, first = 0; s < stages; first = plan.last_layer[s] + 1, ++s)
    for (int l = first; l <= plan.last_layer[s]; ++l) plan.allocation[l] = s;
  return plan;
}

double estimate(const Prefix& p, int first, int last, int stage, int machines) {
  const double bytes = p.activation[last + 1] - p.activation[first] + p.weights[last + 1] - p.weights[first];
  return bytes * std::max(0, machines - 1 - stage);
}

void fill_estimates(PipeDreamPlan& plan, const Prefix& p, int machines) {
  plan.estimate.clear();
  for (std::size_t s = 0, first = 0; s < plan.last_layer.size(); first = plan.last_layer[s] + 1, ++s)
    plan.estimate.push_back(estimate(p, static_cast<int>(first), plan.last_layer[s], static_cast<int>(s), machines));
}

}  // namespace

double pipedream_memory_estimate(const Workload& workload, int first, int last, int stage, int machines) {
  return estimate(Prefix(workload, 1), first, last, stage, machines);
}

PipeDreamPlan pipedream_plan(const Workload& workload, const Platform& platform, double memory_target) {
  const int L = static_cast<int>(workload.layers.size());
  const int P = platform.size();
  if (L == 0 || P == 0) throw std::invalid_argument("PipeDream planner: no layers or no devices");
  const Prefix p(workload, reference_speed(workload, platform));
  auto cost = [&](int s, int first, int last) {
    if (memory_target > 0 && estimate(p, first, last, s, P) > memory_target) return kInf;
    return (p.flops[last + 1] - p.flops[first]) / platform.devices[s].speed;
  };
  auto boundary = [&](int s, int last) {
    const Path& path = platform.path(s, s + 1);
    const Path& back = platform.path(s + 1, s);
    if (!path.exists || !back.exists || !(path.bandwidth > 0) || !(back.bandwidth > 0)) return kInf;
    const double a = workload.layers[last].activation;
    return platform.transfer_time(s, s + 1, a) + platform.transfer_time(s + 1, s, a);
  };
  PipeDreamPlan plan = min_max_partition(L, P, cost, boundary);
  fill_estimates(plan, p, P);
  return plan;
}

std::pair<double, double> memory_target_range(const Workload& workload, const Platform& platform) {
  const int L = static_cast<int>(workload.layers.size());
  const int P = platform.size();
  const Prefix p(workload, 1);
  const PipeDreamPlan low = min_max_partition(
      L, P, [&](int s, int first, int last) { return estimate(p, first, last, s, P); }, [](int, int) { return 0.0; });
  const PipeDreamPlan high = pipedream_plan(workload, platform, 0);
  double top = 0;
  for (double e : high.estimate) top = std::max(top, e);
  return {low.bottleneck, std::max(top, low.bottleneck)};
}

std::vector<double> memory_target_grid(const Workload& workload, const Platform& platform, int count) {
  const auto [low, high] = memory_target_range(workload, platform);
  std::vector<double> grid;
  if (count <= 0) return grid;
  if (count == 1 || !(low > 0) || high <= low) return {high > 0 ? high : low};
  for (int i = 0; i < count; ++i) grid.push_back(low * std::pow(high / low, static_cast<double>(i) / (count - 1)));
  grid.back() = high;
  return grid;
}

std::vector<BaselineConfig> pipedream_configurations(const Workload& workload, const Platform& platform,
                                                     const BaselineOptions& options) {
  std::vector<double> targets = memory_target_grid(workload, platform, options.grid);
  targets.insert(targets.end(), options.memory_targets.begin(), options.memory_targets.end());
  std::sort(targets.begin(), targets.end());
  std::vector<int> noams = options.noams;
  if (noams.empty())
    for (int n = 1; n <= platform.size(); ++n) noams.push_back(n);

  std::vector<BaselineConfig> configs;
  std::map<std::pair<Allocation, int>, bool> seen;
  for (double target : targets) {
    const PipeDreamPlan plan = pipedream_plan(workload, platform, target);
    if (!plan.feasible) continue;
    for (int noam : noams)
      if (seen.emplace(std::make_pair(plan.allocation, noam), true).second) configs.push_back({target, noam, plan});
  }
  return configs;
}

TaskGraph baseline_graph(const BaselineConfig& config, const Workload& workload, const Platform& platform,
                         int microbatches) {
  const StagePlan plan = allocation_plan(config.plan.allocation, workload, platform);
  return pipedream_schedule(plan, microbatches, config.noam, platform.size());
}

std::string describe(const BaselineConfig& config) {
  std::string s = "noam=" + std::to_string(config.noam) + " stages=";
  for (std::size_t i = 0, first = 0; i < config.plan.last_layer.size(); first = config.plan.last_layer[i] + 1, ++i) {
    const int last = config.plan.last_layer[i];
    s += (i ? "|" : "") + std::to_string(first) + (last == static_cast<int>(first) ? "" : "-" + std::to_string(last));
  }
  return s;
}

}  // namespace pipesim
