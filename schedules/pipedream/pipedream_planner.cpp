#include "schedules/pipedream/pipedream_planner.hpp"

#include <algorithm>
#include <stdexcept>

#include "workloads/costs.hpp"

namespace pipesim {
namespace {

// One entry A[j][m] of the recursion: the best time per stage for layers
// 0..j on slots 0..m and where its last stage starts. PipeDream's tuple
// (time, (k, m'), 1), plus the slot its last stage sits in (an entry copied
// from A[j][m - 1] keeps its own).
struct Entry {
  bool set = false;  // Python's None
  double time = 0;
  int split = -1;    // k: the last stage is (k, j]; -1: one stage from layer 0
  int prev = -1;     // m' of A[k][m'] before it
  int slot = 0;
};

// Prefix sums in chain order, as PipeDream's states hold them (its sums run
// over a set of predecessors; in chain order when that set iterates so).
struct Prefix {
  std::vector<double> compute, activations, parameters;
  explicit Prefix(const PipeDreamChain& c) {
    double t = 0, a = 0, p = 0;
    for (std::size_t l = 0; l < c.compute.size(); ++l) {
      compute.push_back(t += c.compute[l]);
      activations.push_back(a += c.activations[l]);
      parameters.push_back(p += c.parameters[l]);
    }
  }
  // compute_times[k + 1][j] etc. of the optimizer; k = -1: row 0 (from layer 0).
  double time(int k, int j) const { return k < 0 ? compute[j] : compute[j] - compute[k]; }
  double bytes(int k, int j) const {
    return k < 0 ? activations[j] + parameters[j]
                 : (activations[j] - activations[k]) + (parameters[j] - parameters[k]);
  }
};

// math.ceil((machines - (m + 1)) / m_prime) with m_prime = 1.
double copies(int machines, int slot) { return static_cast<double>(machines - 1 - slot); }

}  // namespace

PipeDreamChain pipedream_chain(const Workload& workload, const Platform& platform) {
  if (platform.devices.empty()) throw std::invalid_argument("PipeDream planner: no devices");
  double slowest = platform.devices[0].speed;
  for (const Device& d : platform.devices) slowest = std::min(slowest, d.speed);
  const double ref = reference_speed(workload, platform);
  auto seconds = [&](const Cost& c) {
    if (c.flops) return c.value / slowest;
    return ref == slowest ? c.value : c.value * ref / slowest;
  };
  PipeDreamChain chain;
  for (const Layer& l : workload.layers) {
    chain.compute.push_back(seconds(l.forward) + seconds(l.backward));
    chain.activations.push_back(operator_activations(l));
    chain.outputs.push_back(l.activation);
    chain.parameters.push_back(l.weights);
  }
  return chain;
}

PipeDreamPartition pipedream_partition(const PipeDreamChain& chain, const PipeDreamSettings& s) {
  const int L = static_cast<int>(chain.compute.size());
  const int P = s.machines;
  if (L == 0 || P < 1) throw std::invalid_argument("PipeDream planner: no layers or no machines");
  const Prefix prefix(chain);
  const bool constrained = s.memory_size > 0;
  const bool transfers = s.compression_ratio > 0;
  auto fits = [&](double stash) { return !constrained || !(stash > s.memory_size); };

  std::vector<std::vector<Entry>> A(L, std::vector<Entry>(P));
  for (int j = 0; j < L; ++j)
    if (fits(copies(P, 0) * prefix.bytes(-1, j))) A[j][0] = {true, prefix.time(-1, j), -1, -1, 0};
  for (int m = 1; m < P; ++m)
    for (int j = 1; j < L; ++j) {  // the optimizer's j starts at i + 1: A[0][m >= 1] stays unset
      Entry best = A[j][m];
      if (s.use_fewer_machines && (!best.set || (A[j][m - 1].set && A[j][m - 1].time < best.time)))
        best = A[j][m - 1];
      for (int k = 0; k < j; ++k) {
        if (!fits(prefix.bytes(k, j) * copies(P, m))) continue;
        const Entry& before = A[k][m - 1];
        if (!before.set) continue;
        double time = std::max(before.time, prefix.time(k, j));
        if (transfers) {
          time = std::max(time, (2.0 * chain.outputs[k]) / s.bandwidth / s.compression_ratio);
          if (j < L - 1) time = std::max(time, (2.0 * chain.outputs[j]) / s.bandwidth / s.compression_ratio);
        }
        if (!best.set || best.time > time) best = {true, time, k, m - 1, m};
      }
      A[j][m] = best;
    }

  PipeDreamPartition plan;
  const Entry* e = &A[L - 1][P - 1];
  if (!e->set) return plan;
  plan.feasible = true;
  plan.time_per_stage = e->time;
  std::vector<int> first;  // walked backwards
  for (int end = L - 1;; e = &A[e->split][e->prev]) {
    plan.last_layer.push_back(end);
    plan.slot.push_back(e->slot);
    first.push_back(e->split);
    if (e->split < 0) break;
    end = e->split;
  }
  std::reverse(plan.last_layer.begin(), plan.last_layer.end());
  std::reverse(plan.slot.begin(), plan.slot.end());
  std::reverse(first.begin(), first.end());
  for (std::size_t i = 0; i < first.size(); ++i)
    plan.estimate.push_back(prefix.bytes(first[i], plan.last_layer[i]) * copies(P, plan.slot[i]));
  return plan;
}

std::vector<double> pipedream_memory_thresholds(const PipeDreamChain& chain, int machines) {
  const int L = static_cast<int>(chain.compute.size());
  const Prefix prefix(chain);
  std::vector<double> values;
  for (int j = 0; j < L; ++j) values.push_back(prefix.bytes(-1, j) * copies(machines, 0));
  for (int m = 1; m + 1 < machines; ++m)  // the last slot stashes nothing
    for (int j = 1; j < L; ++j)
      for (int k = 0; k < j; ++k) values.push_back(prefix.bytes(k, j) * copies(machines, m));
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  values.erase(values.begin(), std::upper_bound(values.begin(), values.end(), 0.0));
  return values;
}

}  // namespace pipesim
