#include "schedules/pipedream/pipedream_planner.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>

#include "workloads/costs.hpp"

namespace pipesim {
namespace {

// Where the last stage of an entry starts: PipeDream's (k, m'), plus the
// slot it sits in (an entry copied from A[j][m - 1] keeps its own).
struct Choice {
  int split = -1;  // k: the last stage is (k, j]; -1: one stage from layer 0
  int prev = -1;   // m' of A[k][m'] before it
  int slot = 0;
};

// One entry A[j][m] of the stage-time table: the best time per stage for layers
// 0..j on slots 0..m (PipeDream's tuple (time, (k, m'), 1)).
struct Entry {
  bool set = false;  // Python's None
  double time = 0;
  Choice first;              // with k in chain order
  std::vector<Choice> tied;  // the other splits of equal time, which another order keeps
};
using Table = std::vector<std::vector<Entry>>;

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
    return k < 0 ? activations[j] + parameters[j] : (activations[j] - activations[k]) + (parameters[j] - parameters[k]);
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

namespace {

// The time of the last stage (k, j]: its compute and, with compression,
// the transfers of its input and (unless it ends the chain) its output,
// each forward and back.
double last_stage_time(const PipeDreamChain& chain, const PipeDreamSettings& s, const Prefix& prefix, int k, int j) {
  double time = prefix.time(k, j);
  if (s.compression_ratio > 0) {
    const int L = static_cast<int>(chain.compute.size());
    time = std::max(time, (2.0 * chain.outputs[k]) / s.bandwidth / s.compression_ratio);
    if (j < L - 1) time = std::max(time, (2.0 * chain.outputs[j]) / s.bandwidth / s.compression_ratio);
  }
  return time;
}

// PipeDream's recursion: A[j][m] for every j and m (the optimizer's A
// table); with `ties`, each entry also lists its tied splits.
Table stage_time_table(const PipeDreamChain& chain, const PipeDreamSettings& s, bool ties) {
  const int L = static_cast<int>(chain.compute.size());
  const int P = s.machines;
  if (L == 0 || P < 1) throw std::invalid_argument("PipeDream planner: no layers or no machines");
  const Prefix prefix(chain);
  const bool constrained = s.memory_size > 0;
  auto fits = [&](double stash) { return !constrained || !(stash > s.memory_size); };

  Table A(L, std::vector<Entry>(P));
  for (int j = 0; j < L; ++j)
    if (fits(copies(P, 0) * prefix.bytes(-1, j))) A[j][0] = {true, prefix.time(-1, j), {-1, -1, 0}, {}};
  for (int m = 1; m < P; ++m)
    for (int j = 1; j < L; ++j) {  // the optimizer's j starts at i + 1: A[0][m >= 1] stays unset
      Entry best = A[j][m];
      if (s.use_fewer_machines && (!best.set || (A[j][m - 1].set && A[j][m - 1].time < best.time)))
        best = A[j][m - 1];  // its ties with it: a split as good does not replace it, in any order
      for (int k = 0; k < j; ++k) {
        if (!fits(prefix.bytes(k, j) * copies(P, m))) continue;
        const Entry& before = A[k][m - 1];
        if (!before.set) continue;
        const double time = std::max(before.time, last_stage_time(chain, s, prefix, k, j));
        if (!best.set || best.time > time) {
          best.set = true, best.time = time, best.first = {k, m - 1, m}, best.tied.clear();
        } else if (ties && best.first.slot == m && best.time == time) {  // tied with a split, not with a copy
          best.tied.push_back({k, m - 1, m});
        }
      }
      A[j][m] = std::move(best);
    }
  return A;
}

// The partition ending with `path` (choices from the last stage back).
PipeDreamPartition partition_of(const PipeDreamChain& chain, int machines, double time,
                                const std::vector<Choice>& path) {
  const Prefix prefix(chain);
  PipeDreamPartition plan;
  plan.feasible = true;
  plan.time_per_stage = time;
  for (std::size_t i = path.size(); i-- > 0;) {  // the first stage first
    const int last = i > 0 ? path[i - 1].split : static_cast<int>(chain.compute.size()) - 1;
    plan.last_layer.push_back(last);
    plan.slot.push_back(path[i].slot);
    plan.estimate.push_back(prefix.bytes(path[i].split, last) * copies(machines, path[i].slot));
  }
  return plan;
}

}  // namespace

PipeDreamPartition pipedream_partition(const PipeDreamChain& chain, const PipeDreamSettings& s) {
  const Table A = stage_time_table(chain, s, false);
  const Entry& answer = A.back().back();
  if (!answer.set) return {};
  std::vector<Choice> path{answer.first};
  while (path.back().split >= 0) path.push_back(A[path.back().split][path.back().prev].first);
  return partition_of(chain, s.machines, answer.time, path);
}

std::vector<PipeDreamPartition> pipedream_tied_partitions(const PipeDreamChain& chain, const PipeDreamSettings& s,
                                                          std::size_t cap) {
  const Table A = stage_time_table(chain, s, true);
  const Entry& answer = A.back().back();
  std::vector<PipeDreamPartition> plans;
  if (!answer.set) return plans;
  std::set<std::vector<int>> seen;
  std::vector<Choice> path;
  std::function<void(const Entry&)> walk = [&](const Entry& e) {
    std::vector<Choice> choices{e.first};
    choices.insert(choices.end(), e.tied.begin(), e.tied.end());
    for (const Choice& c : choices) {
      if (plans.size() >= cap) return;
      path.push_back(c);
      if (c.split < 0) {
        PipeDreamPartition p = partition_of(chain, s.machines, answer.time, path);
        if (seen.insert(p.last_layer).second) plans.push_back(std::move(p));
      } else {
        walk(A[c.split][c.prev]);
      }
      path.pop_back();
    }
  };
  walk(answer);
  return plans;
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
