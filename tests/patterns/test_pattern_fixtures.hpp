// Test helpers for periodic patterns: in-memory platforms, chain workloads,
// hand-made and random valid patterns.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "patterns/pattern.hpp"
#include "patterns/pattern_timing.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim::testing {

// n devices gpu0.. at 1 Tf, one path of (latency, bandwidth) per pair.
inline Platform pattern_platform(int n, double latency = 0, double bandwidth = 1e9) {
  Platform p;
  p.file = "plat.xml";
  for (int i = 0; i < n; ++i) p.devices.push_back({"gpu" + std::to_string(i), 1e12, 1e15, "gpu"});
  p.paths.assign(n * n, Path{true, latency, bandwidth, 1});
  for (int i = 0; i < n; ++i) p.paths[i * n + i] = Path{true, 0, 0, 0};
  return p;
}

// A chain with costs in seconds on a 1 Tf reference device.
inline Workload chain_workload(const std::vector<double>& forward, const std::vector<double>& backward,
                               const std::vector<double>& activation, double input = 0,
                               const std::vector<double>& weights = {}) {
  Workload w;
  w.file = "chain.yaml";
  w.schedule = "pattern";
  w.reference_speed = 1e12;
  w.input = input;
  for (std::size_t l = 0; l < forward.size(); ++l)
    w.layers.push_back({"l" + std::to_string(l),
                        {forward[l], false},
                        {backward[l], false},
                        activation[l],
                        weights.empty() ? 0 : weights[l]});
  return w;
}

inline PatternOp op(TaskKind kind, int layer, int device, double start, int copy = 0) {
  PatternOp o;
  o.kind = kind;
  o.layer = layer;
  o.copy = copy;
  o.device = device;
  o.start = start;
  return o;
}
inline PatternOp F(int layer, int device, double start, int copy = 0) {
  return op(TaskKind::Forward, layer, device, start, copy);
}
inline PatternOp B(int layer, int device, double start, int copy = 0) {
  return op(TaskKind::Backward, layer, device, start, copy);
}

inline Pattern make_pattern(int layers, int copies, double period, std::vector<PatternOp> ops,
                            WeightPolicy weights = WeightPolicy::TwoBW) {
  Pattern p;
  p.layers = layers;
  p.copies = copies;
  p.period = period;
  p.weights = weights;
  p.ops = std::move(ops);
  return p;
}

// The op index of F_l / B_l (0-based layer) of a copy.
// Micro-batches to unroll a pattern so that periods first .. first+window-1
// run every op: ops with shift s start s periods late, and the drain must
// not reach the window.
inline int steady_state_microbatches(const Pattern& p, int first, int window) {
  int max_shift = 0;
  for (const PatternOp& o : p.ops) max_shift = std::max(max_shift, o.shift);
  for (const PatternTransfer& tr : p.transfers) max_shift = std::max(max_shift, tr.shift);
  return p.copies * (first + window + max_shift + 2);
}

inline int index_of(const Pattern& p, TaskKind kind, int layer, int copy = 0) {
  return p.find(kind == TaskKind::Forward ? layer + 1 : 2 * p.layers - layer, copy);
}

struct RandomCase {
  Workload workload;
  Pattern pattern;
  bool tight = true;  // period = the largest device or link load, so the exact period equals it
};

// Devices used by random_case(seed): known before the platform is built.
inline int random_devices(int seed) { return 2 + seed % 3; }

// A random valid pattern with transfers: 2 <= L <= 6 layers, k in {1, 2},
// each layer (all its copies) on a random device, at least two devices used, the busiest device's costs raised to be
// the unique bottleneck; each device's ops back to back in a random order, likewise each link's transfers, each rotated
// by a random offset; period = the largest load (sometimes with slack); minimal shifts. Byte sizes are integers so that
// memory sums are exact.
inline RandomCase random_case(int seed, const Platform& platform) {
  std::mt19937 rng(1000 + seed);
  auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto integer = [&](long long a, long long b) { return std::uniform_int_distribution<long long>(a, b)(rng); };
  const int P = platform.size();
  const int L = static_cast<int>(integer(2, 6));
  const int k = static_cast<int>(integer(1, 2));
  std::vector<double> f, b, a, w;
  for (int l = 0; l < L; ++l) {
    f.push_back(uniform(0.5, 2.0));
    b.push_back(uniform(1.0, 3.0));
    a.push_back(integer(0, 9) == 0 ? 0 : static_cast<double>(integer(50'000'000, 400'000'000)));
    w.push_back(static_cast<double>(integer(1'000'000, 1'000'000'000)));
  }
  RandomCase rc;
  rc.workload = chain_workload(f, b, a, static_cast<double>(integer(1'000'000, 100'000'000)), w);
  std::vector<int> device(L);
  for (int l = 0; l < L; ++l) device[l] = static_cast<int>(integer(0, P - 1));
  if (std::count(device.begin(), device.end(), device[0]) == L)  // at least one transfer
    device[integer(1, L - 1)] = (device[0] + 1) % P;
  std::vector<PatternOp> ops;
  for (int c = 0; c < k; ++c)
    for (int l = 0; l < L; ++l) {
      ops.push_back(F(l, device[l], 0, c));
      ops.push_back(B(l, device[l], 0, c));
    }
  const WeightPolicy policies[] = {WeightPolicy::Flush, WeightPolicy::TwoBW, WeightPolicy::Stashing};
  Pattern p = make_pattern(L, k, 1, ops, policies[integer(0, 2)]);
  const std::vector<int> succ = p.successors();
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (succ[i] >= 0 && p.ops[succ[i]].device != p.ops[i].device) p.transfers.push_back({static_cast<int>(i), 0, 0});
  std::vector<std::vector<int>> on_device(P);
  for (std::size_t i = 0; i < p.ops.size(); ++i) on_device[p.ops[i].device].push_back(static_cast<int>(i));
  std::map<std::pair<int, int>, std::vector<int>> on_link;
  for (std::size_t t = 0; t < p.transfers.size(); ++t) {
    const int x = p.ops[p.transfers[t].from].device, y = p.ops[succ[p.transfers[t].from]].device;
    on_link[{std::min(x, y), std::max(x, y)}].push_back(static_cast<int>(t));
  }

  // One device is the bottleneck, 2% ahead of every other device and link:
  // a near tie between two disjoint resources makes the simulation's warm-up
  // last (slack / gap) periods before the steady state shows.
  auto loads = [&](const PatternTiming& timing) {
    std::vector<double> device_load(P, 0);
    double other = 0;
    for (std::size_t i = 0; i < p.ops.size(); ++i) device_load[p.ops[i].device] += timing.duration[i];
    for (const auto& [link, items] : on_link) {
      double sum = 0;
      for (int t : items) sum += timing.transfer_duration[p.transfers[t].from];
      other = std::max(other, sum);
    }
    return std::make_pair(device_load, other);
  };
  {
    auto [device_load, other] = loads(pattern_timing(p, rc.workload, platform));
    const int top = static_cast<int>(std::max_element(device_load.begin(), device_load.end()) - device_load.begin());
    for (int d = 0; d < P; ++d)
      if (d != top) other = std::max(other, device_load[d]);
    const double scale = std::max(1.0, 1.02 * other / device_load[top]);
    for (int l = 0; l < L; ++l)
      if (device[l] == top) {
        rc.workload.layers[l].forward.value *= scale;
        rc.workload.layers[l].backward.value *= scale;
      }
  }
  const PatternTiming timing = pattern_timing(p, rc.workload, platform);

  // Back to back in a random order; returns each item's offset from 0 and the load.
  auto pack = [&](std::vector<int> items, auto length, std::map<int, double>& offset) {
    std::shuffle(items.begin(), items.end(), rng);
    double t = 0;
    for (int i : items) offset[i] = t, t += length(i);
    return t;
  };
  std::map<int, double> op_offset, tr_offset;
  double T = 0;
  for (const auto& items : on_device)
    T = std::max(T, pack(
                        items, [&](int i) { return timing.duration[i]; }, op_offset));
  for (const auto& [link, items] : on_link)
    T = std::max(T, pack(
                        items, [&](int t) { return timing.transfer_duration[p.transfers[t].from]; }, tr_offset));
  if (integer(0, 4) == 0) {
    T *= uniform(1.0, 1.5);
    rc.tight = false;
  }
  p.period = T;
  for (const auto& items : on_device) {
    const double r = uniform(0, T);
    for (int i : items) p.ops[i].start = std::fmod(op_offset[i] + r, T);
  }
  for (const auto& [link, items] : on_link) {
    const double r = uniform(0, T);
    for (int t : items) p.transfers[t].start = std::fmod(tr_offset[t] + r, T);
  }
  assign_minimal_shifts(p, timing);
  rc.pattern = p;
  return rc;
}

// Communication buffers a graph holds for the whole run (seed000's policy).
inline double static_comm_buffers(const TaskGraph& g) {
  double bytes = 0;
  for (const StaticMemory& s : g.static_memory())
    if (s.category == MemoryCategory::CommBuffers) bytes += s.bytes;
  return bytes;
}

}  // namespace pipesim::testing
