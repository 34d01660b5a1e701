// The recurrences (docs/memory-saving.md, "Rematerialization"): C(s, t, m)
// is the least time to turn {a^{s-1}, δ^t} into δ^{s-1} with m free slots
// (a^{s-1} and everything outside the sub-chain already subtracted; δ^t
// counted inside m). First operation F_all^s (then the sub-chain s+1..t with
// ā^s held, then B^s) or F_ck^s F_∅^{s+1} .. F_∅^{s'-1} (then s'..t with
// a^{s'-1} held, then s..s'-1 from a^{s-1} again).
#include "schedules/memory_saving/remat_table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace pipesim::memory_saving {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxCells = 1e8;
constexpr std::int32_t kNone = -1, kTape = 0;  // choice: none, F_all first, else s'

}  // namespace

RematTable::RematTable(int length, int slots) : L_(length), width_(slots + 1) {
  offset_.assign(static_cast<std::size_t>(L_ + 2) * (L_ + 2), 0);
  std::size_t n = 0;
  for (int s = 1; s <= L_; ++s)
    for (int t = s; t <= L_; ++t) offset_[index(s, t)] = n++ * width_;
  time_.assign(n * width_, kInf);
  choice_.assign(n * width_, kNone);
}

void fill_remat_table(const Chain& chain, const MemoryGrid& g, RematTable& table) {
  const int L = chain.length(), N = g.slots;
  auto uf = [&](int i) { return chain.layers[i - 1].forward_time; };
  auto ub = [&](int i) { return chain.layers[i - 1].backward_time; };
  for (int len = 1; len <= L; ++len) {
    for (int s = 1; s + len - 1 <= L; ++s) {
      const int t = s + len - 1;
      double* row = table.time(s, t);
      std::int32_t* pick = table.choice(s, t);
      // F_all^s first; B^s last (δ^s, ā^s, δ^{s-1} together).
      const int backward = g.delta[s] + g.abar[s] + g.delta[s - 1] + g.ob[s];
      const int tape_need = std::max(g.delta[t] + g.abar[s] + g.of[s], backward);
      if (len == 1) {
        for (int m = tape_need; m <= N; ++m) row[m] = uf(s) + ub(s), pick[m] = kTape;
        continue;
      }
      const double* rest = table.time(s + 1, t);
      for (int m = std::max(tape_need, g.abar[s]); m <= N; ++m) {
        const double v = uf(s) + ub(s) + rest[m - g.abar[s]];
        if (v < row[m]) row[m] = v, pick[m] = kTape;
      }
      // F_ck^s, F_∅^{s+1..s'-1}, then a^{s'-1} is held.
      int forward_peak = g.delta[t] + g.a[s] + g.of[s];
      double forward_sum = uf(s);
      for (int next = s + 1; next <= t; ++next) {
        if (next > s + 1) {
          const int k = next - 1;  // F_∅^k
          forward_peak = std::max(forward_peak, g.delta[t] + g.a[k - 1] + g.a[k] + g.of[k]);
          forward_sum += uf(k);
        }
        const int held = g.a[next - 1];
        const double* right = table.time(next, t);
        const double* left = table.time(s, next - 1);
        for (int m = std::max(forward_peak, held); m <= N; ++m) {
          const double v = forward_sum + right[m - held] + left[m];
          if (v < row[m]) row[m] = v, pick[m] = next;
        }
      }
    }
  }
}

void unfold_remat(const MemoryGrid& g, const RematTable& table, int s, int t, int m, std::vector<Step>& steps) {
  const std::int32_t c = table.choice(s, t)[m];
  if (c == kTape) {
    steps.push_back({OpKind::ForwardAll, s});
    if (t > s) unfold_remat(g, table, s + 1, t, m - g.abar[s], steps);
    steps.push_back({OpKind::Backward, s});
    return;
  }
  steps.push_back({OpKind::ForwardCheckpoint, s});
  for (int k = s + 1; k < c; ++k) steps.push_back({OpKind::ForwardNone, k});
  unfold_remat(g, table, c, t, m - g.a[c - 1], steps);
  unfold_remat(g, table, s, c - 1, m, steps);
}

std::vector<std::vector<double>> remat_needs(const Chain& chain) {
  // The same cases as C, minimising the peak instead of the time.
  const int L = chain.length();
  std::vector<std::vector<double>> need(L + 2, std::vector<double>(L + 2, kInf));
  auto of = [&](int i) { return chain.layers[i - 1].forward_overhead; };
  auto ob = [&](int i) { return chain.layers[i - 1].backward_overhead; };
  for (int len = 1; len <= L; ++len)
    for (int s = 1; s + len - 1 <= L; ++s) {
      const int t = s + len - 1;
      const double backward = chain.delta(s) + chain.abar(s) + chain.delta(s - 1) + ob(s);
      double best = std::max(chain.delta(t) + chain.abar(s) + of(s), backward);
      if (len > 1) best = std::max(best, chain.abar(s) + need[s + 1][t]);
      double forward_peak = chain.delta(t) + chain.a(s) + of(s);
      for (int next = s + 1; next <= t; ++next) {
        const int k = next - 1;
        if (next > s + 1) forward_peak = std::max(forward_peak, chain.delta(t) + chain.a(k - 1) + chain.a(k) + of(k));
        best = std::min(best, std::max({forward_peak, chain.a(k) + need[next][t], need[s][k]}));
      }
      need[s][t] = best;
    }
  return need;
}

void check_remat_inputs(const Chain& chain, double limit, int slots) {
  const std::string error = chain_error(chain);
  if (!error.empty()) throw std::invalid_argument(error);
  if (!std::isfinite(limit) || limit < 0) throw std::invalid_argument("limit: a finite number >= 0 expected");
  if (slots < 1) throw std::invalid_argument("slots: an integer >= 1 expected");
  // The tables hold L(L+1)/2 x (N+1) cells of 12 bytes: refuse, rather than
  // fail to allocate, past ~1.2 GB.
  const double cells = 0.5 * chain.length() * (chain.length() + 1.0) * (slots + 1.0);
  if (cells > kMaxCells)
    throw std::invalid_argument("slots: L(L+1)/2 x (N+1) = " + std::to_string(static_cast<long long>(cells)) +
                                " table cells, at most 100000000 supported; use fewer slots");
}

}  // namespace pipesim::memory_saving
