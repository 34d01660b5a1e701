// An exhaustive search for the best periodic pattern, independent of the
// ILP, for chains whose transfers take no time (bandwidth 1e30): a pattern
// is, up to its offsets, an allocation, an order of the ops of each device
// (read from the start of the period) and the shift between every pair of
// consecutive tasks; its memory (pattern_memory) depends on nothing else
// and its best period is the maximum cycle ratio of the event graph of that
// order and those shifts (data arcs with their shifts as tokens, device
// orders with one token back to the first op). With offsets in [0, T) and
// minimal shifts, consecutive tasks on one device differ by 1 if the
// consumer comes first, else 0; on two devices by 0, 1 or 2 (the producer
// ends before 2T). So every order of every device and every such shift is
// tried; an allocation whose load bound cannot beat the best is skipped.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "patterns/allocation.hpp"
#include "patterns/pattern.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "sim/exact_period.hpp"

namespace pipesim::testing {

// Whether a pattern's memory is acceptable (default: every device's peak within its memory).
using MemoryTest = std::function<bool(const PatternMemory&, const Platform&)>;

inline bool peaks_fit(const PatternMemory& m, const Platform& platform) {
  for (int d = 0; d < platform.size(); ++d)
    if (m.devices[d].peak > platform.devices[d].memory) return false;
  return true;
}

struct ExhaustiveResult {
  double period = std::numeric_limits<double>::infinity();  // exact period (k micro-batches)
  Pattern pattern;      // offsets are ranks, shifts as searched (not a timed pattern)
  long structures = 0;  // orders x shifts evaluated
};

inline void exhaustive_allocation(const Allocation& a, int k, WeightPolicy weights, const Workload& w,
                                  const Platform& platform, const MemoryTest& fits, ExhaustiveResult& best) {
  const int L = static_cast<int>(a.size()), N = 2 * L * k, P = platform.size();
  Pattern p;
  p.layers = L;
  p.copies = k;
  p.period = 1;
  p.weights = weights;
  auto task = [&](int o) { return o / k + 1; };
  auto layer = [&](int j) { return j <= L ? j - 1 : 2 * L - j; };
  for (int o = 0; o < N; ++o) {
    PatternOp op;
    op.kind = task(o) <= L ? TaskKind::Forward : TaskKind::Backward;
    op.layer = layer(task(o));
    op.copy = o % k;
    op.device = a[op.layer];
    p.ops.push_back(op);
  }
  const PatternTiming t = pattern_timing(p, w, platform);
  for (int o = 0; o < N; ++o)
    if (t.transfer_duration[o] > 1e-20) throw std::invalid_argument("exhaustive search: transfers must take no time");
  std::vector<std::vector<int>> order(P);
  for (int o = 0; o < N; ++o) order[p.ops[o].device].push_back(o);
  std::vector<int> cross;  // (e, c) as the producer op o = (e - 1) k + c
  for (int o = 0; o + k < N; ++o)
    if (p.ops[o].device != p.ops[o + k].device) cross.push_back(o);
  std::vector<int> token(N, 0), position(N, 0);
  // Odometer over device orders (permutations), then over cross-device tokens.
  std::function<void(int)> next_device = [&](int d) {
    if (d == P) {
      for (int dd = 0; dd < P; ++dd)
        for (std::size_t i = 0; i < order[dd].size(); ++i) position[order[dd][i]] = static_cast<int>(i);
      std::fill(token.begin(), token.end(), 0);
      for (int o = 0; o + k < N; ++o)  // one device: 1 iff the consumer runs first
        if (p.ops[o].device == p.ops[o + k].device) token[o] = position[o + k] < position[o] ? 1 : 0;
      const long combos = [&] {
        long c = 1;
        for (std::size_t i = 0; i < cross.size(); ++i) c *= 3;
        return c;
      }();
      for (long code = 0; code < combos; ++code) {
        long rest = code;
        for (int o : cross) token[o] = static_cast<int>(rest % 3), rest /= 3;
        ++best.structures;
        TimedEventGraph g;
        for (int o = 0; o < N; ++o) g.add_node(std::to_string(o));
        for (int o = 0; o + k < N; ++o)
          if (task(o) != 2 * L) g.add_arc(o, o + k, t.duration[o], token[o]);
        for (int dd = 0; dd < P; ++dd)
          for (std::size_t i = 0; i < order[dd].size(); ++i)
            g.add_arc(order[dd][i], order[dd][(i + 1) % order[dd].size()], t.duration[order[dd][i]],
                      i + 1 == order[dd].size() ? 1 : 0);
        double period = 0;
        try {
          period = exact_period(g).period;
        } catch (const std::invalid_argument&) {
          continue;  // a cycle without tokens: deadlock
        }
        if (!(period < best.period * (1 - 1e-12))) continue;
        // Shifts from the tokens (last backward 0), offsets = positions.
        for (int c = 0; c < k; ++c) {
          int s = 0;
          for (int j = 2 * L; j >= 1; --j) {
            const int o = (j - 1) * k + c;
            if (j < 2 * L) s += token[o];
            p.ops[o].shift = s;
          }
        }
        for (int dd = 0; dd < P; ++dd)
          for (std::size_t i = 0; i < order[dd].size(); ++i)
            p.ops[order[dd][i]].start = static_cast<double>(i) / order[dd].size();
        const PatternMemory m = pattern_memory(p, pattern_timing(p, w, platform), w, P);
        if (!fits(m, platform)) continue;
        best.period = period;
        best.pattern = p;
      }
      return;
    }
    std::sort(order[d].begin(), order[d].end());
    do next_device(d + 1);
    while (std::next_permutation(order[d].begin(), order[d].end()));
  };
  next_device(0);
}

inline ExhaustiveResult exhaustive_best(const std::vector<Allocation>& allocations, int k, WeightPolicy weights,
                                        const Workload& w, const Platform& platform,
                                        const MemoryTest& fits = peaks_fit) {
  ExhaustiveResult best;
  std::vector<std::pair<double, Allocation>> sorted;
  for (const Allocation& a : allocations) sorted.push_back({pattern_period_bound(a, w, platform, k), a});
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [bound, a] : sorted) {
    if (bound >= best.period * (1 - 1e-12)) break;
    exhaustive_allocation(a, k, weights, w, platform, fits, best);
  }
  return best;
}

}  // namespace pipesim::testing
