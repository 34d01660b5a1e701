// Exhaustive search over every sequence of seed 002's operations (Table 1)
// for small chains, written apart from schedules/memory_saving: a shortest
// path (Dijkstra on time) over the states "which a^i, which ā^i are on the
// GPU, which gradient is current", with each step's peak memory checked.
// Persistent (seed 002's assumption, Section 3.2): an a^{i-1} kept by F_ck^i
// stays until B^i; F_∅ may only consume an a^{i-1} nobody kept.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <random>
#include <tuple>
#include <vector>

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/sequence_replay.hpp"

namespace pipesim::memory_saving::testing {

inline constexpr double kNever = std::numeric_limits<double>::infinity();

// Least time over all sequences whose every operation fits `limit`; the
// sequence itself in *path when given.
inline double exhaustive_optimum(const Chain& c, double limit, bool persistent = true,
                                 std::vector<Step>* path = nullptr) {
  const int L = c.length();
  struct State {
    std::uint32_t plain = 0, tape = 0;  // bit i: a^i / ā^i on the GPU (i = 1..L)
    std::uint32_t kept = 0;             // bit i: a^i kept by F_ck^{i+1} (persistent)
    int gradient = 0;                   // δ^gradient is the current one
    bool operator<(const State& o) const {
      return std::tie(plain, tape, kept, gradient) < std::tie(o.plain, o.tape, o.kept, o.gradient);
    }
  };
  auto has = [](std::uint32_t set, int i) { return (set >> i) & 1u; };
  auto used = [&](const State& s) {
    double m = c.input_size + c.delta(s.gradient);
    for (int i = 1; i <= L; ++i) m += has(s.plain, i) * c.a(i) + has(s.tape, i) * c.abar(i);
    return m;
  };
  std::map<State, double> best;
  std::map<State, std::pair<State, Step>> came_from;
  using Item = std::pair<double, State>;
  auto later = [](const Item& x, const Item& y) {
    return y.first < x.first || (!(x.first < y.first) && y.second < x.second);
  };
  std::priority_queue<Item, std::vector<Item>, decltype(later)> queue(later);
  const State start{0, 0, 0, L};
  best[start] = 0;
  queue.push({0, start});
  while (!queue.empty()) {
    const auto [time, s] = queue.top();
    queue.pop();
    if (time > best[s]) continue;
    if (s.gradient == 0) {
      if (path) {
        path->clear();
        for (State at = s; came_from.count(at); at = came_from.at(at).first) path->push_back(came_from.at(at).second);
        std::reverse(path->begin(), path->end());
      }
      return time;
    }
    const double now = used(s);
    auto relax = [&](const State& next, double peak, double duration, Step step) {
      if (peak > limit) return;
      auto it = best.find(next);
      if (it != best.end() && it->second <= time + duration) return;
      best[next] = time + duration;
      came_from[next] = {s, step};
      queue.push({time + duration, next});
    };
    for (int i = 1; i <= L; ++i) {
      const ChainLayer& l = c.layers[i - 1];
      const bool input = i == 1 || has(s.plain, i - 1) || has(s.tape, i - 1);
      if (!input) continue;
      const std::uint32_t bit = 1u << i;
      if (!has(s.plain, i) && !has(s.tape, i)) {
        State ck = s;  // F_ck^i
        ck.plain |= bit;
        if (persistent && i > 1 && has(s.plain, i - 1)) ck.kept |= 1u << (i - 1);
        relax(ck, now + l.output_size + l.forward_overhead, l.forward_time, {OpKind::ForwardCheckpoint, i});
        if (i > 1 && has(s.plain, i - 1) && !(persistent && has(s.kept, i - 1))) {
          State none = s;  // F_∅^i frees its input
          none.plain |= bit;
          none.plain &= ~(1u << (i - 1));
          relax(none, now + l.output_size + l.forward_overhead, l.forward_time, {OpKind::ForwardNone, i});
        }
      }
      if (!has(s.tape, i)) {
        State all = s;  // F_all^i (its tape holds a^i)
        all.tape |= bit;
        all.plain &= ~bit;
        all.kept &= ~bit;  // still kept, inside the tape, until B^i
        relax(all, now + l.tape_size + l.forward_overhead, l.forward_time, {OpKind::ForwardAll, i});
      }
      if (s.gradient == i && has(s.tape, i)) {
        State back = s;  // B^i: δ^i, ā^i, a^{i-1} -> δ^{i-1}
        back.tape &= ~bit;
        if (i > 1) back.plain &= ~(1u << (i - 1)), back.kept &= ~(1u << (i - 1));
        back.gradient = i - 1;
        relax(back, now + c.delta(i - 1) + l.backward_overhead, l.backward_time, {OpKind::Backward, i});
      }
    }
  }
  return kNever;
}

// A chain with small integer times and sizes (so the grid of one unit per
// slot is exact and times compare exactly).
inline Chain random_integer_chain(std::mt19937& rng, int length) {
  auto pick = [&](int lo, int hi) { return static_cast<double>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  Chain c;
  c.input_size = pick(1, 3);
  c.input_gradient_size = pick(0, 2);
  for (int i = 0; i < length; ++i) {
    ChainLayer l;
    l.forward_time = pick(1, 5);
    l.backward_time = pick(1, 8);
    l.output_size = pick(0, 3);
    l.tape_size = l.output_size + pick(0, 3);
    l.gradient_size = pick(0, 2);
    l.forward_overhead = pick(0, 1);
    l.backward_overhead = pick(0, 1);
    c.layers.push_back(l);
  }
  return c;
}

}  // namespace pipesim::memory_saving::testing
