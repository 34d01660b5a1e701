// Offloading alone (docs/memory-saving.md, "The program with offloading
// alone"). The compute is fixed: F_all^1..F_all^L, then B^L..B^1 (positions
// 1..2L, B^k at 2L+1-k). A tape ā^i (i <= L-2) may be offloaded: its offload
// runs beside F^{i+1}..F^j (the free of ā^i waits for it before F^{j+1}), its
// prefetch beside a run of operations that ends with B^{i+2} (B^{i+1} reads
// a^i, inside ā^i), possibly none. Transfer windows do not overlap, so each
// costs max(0, ā^i/β - the compute beside it) of idle time. Between two
// offloaded tapes i < i', tape i's windows lie in F^{i+1}..F^{i'} and
// B^{i'+1}..B^{i+2}, where every earlier offloaded tape is off the GPU: the
// state is (i, A = slots of the earlier offloaded tapes), and the longest
// window the memory allows is the best one (idle time falls with it).
#include "schedules/memory_saving/offload_only.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "schedules/memory_saving/memory_grid.hpp"
#include "schedules/memory_saving/remat_table.hpp"
#include "schedules/memory_saving/transfer_replay.hpp"

namespace pipesim::memory_saving {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kNoChoice = -1;

double transfer(double size, double bandwidth) {
  if (size == 0) return 0;
  return bandwidth > 0 ? size / bandwidth : kInf;
}

double idle(double transfer_time, double beside) { return std::max(0.0, transfer_time - beside); }

// Where tape i's transfers go: Free i after position free_after, Prefetch i
// before position prefetch_before (2L - i: alone, B^{i+1} waits for it).
struct Windows {
  double idle = kInf;
  int free_after = 0, prefetch_before = 0;
};

struct Program {
  Program(const Chain& c, const MemoryGrid& grid, double beta) : chain(c), g(grid), bandwidth(beta) { sizes(); }

  const Chain& chain;
  const MemoryGrid& g;
  double bandwidth;
  int L = 0, N = 0, cap = 0;              // cap: more absent slots than this change nothing
  std::vector<long long> need_f, need_b;  // slots in use during F^x / B^k with every tape on the GPU
  std::vector<double> tape_transfer;
  std::vector<std::vector<double>> W;  // W[i][A]: least idle time from tape i's windows on
  std::vector<std::vector<int>> next;  // the next offloaded tape, L for none

  double uf(int x) const { return chain.layers[x - 1].forward_time; }
  double ub(int k) const { return chain.layers[k - 1].backward_time; }

  void sizes() {
    L = chain.length(), N = g.slots;
    need_f.assign(L + 1, 0), need_b.assign(L + 1, 0);
    long long tapes = 0;
    long long most = 0;
    for (int x = 1; x <= L; ++x) {
      tapes += g.abar[x];
      need_f[x] = g.a[0] + g.delta[L] + tapes + g.of[x];
      need_b[x] = g.a[0] + tapes + g.delta[x] + g.delta[x - 1] + g.ob[x];
      most = std::max({most, need_f[x], need_b[x]});
    }
    cap = static_cast<int>(std::max(0LL, most - N));
    tape_transfer.assign(L + 1, 0);
    for (int i = 1; i <= L; ++i) tape_transfer[i] = transfer(chain.abar(i), bandwidth);
  }

  bool fits(long long need, int absent) const { return need - absent <= N; }

  // Tape i is the last offloaded one: its windows in F^{i+1}..F^L B^L..B^{i+2}.
  Windows last(int i, int A) const {
    std::vector<double> dur;
    std::vector<long long> need;
    for (int x = i + 1; x <= L; ++x) dur.push_back(uf(x)), need.push_back(need_f[x]);
    for (int k = L; k >= i + 2; --k) dur.push_back(ub(k)), need.push_back(need_b[k]);
    const int m = static_cast<int>(dur.size());
    const int ab = g.abar[i];
    int first = -1, last_tight = -1;
    for (int n = 0; n < m; ++n) {
      if (!fits(need[n], A + ab)) return {};
      if (!fits(need[n], A)) last_tight = n, first = first < 0 ? n : first;
    }
    if (first == 0) return {};  // F^{i+1} reads a^i: the tape is there
    std::vector<double> pre(m + 1, 0);
    for (int n = 0; n < m; ++n) pre[n + 1] = pre[n] + dur[n];
    const double T = tape_transfer[i];
    Windows w;
    auto set = [&](int j, int s) {  // offload beside [0, j), prefetch beside [s, m)
      const double v = idle(T, pre[j]) + idle(T, pre[m] - pre[s]);
      if (v < w.idle) w = {v, i + j, i + 1 + s};
    };
    if (first > 0)
      set(first, last_tight + 1);
    else
      for (int j = 1; j <= m; ++j) set(j, j);
    return w;
  }

  void fill() {
    W.assign(L + 1, std::vector<double>(cap + 1, kInf));
    next.assign(L + 1, std::vector<int>(cap + 1, kNoChoice));
    for (int i = L - 2; i >= 1; --i) {
      const int ab = g.abar[i];
      const double T = tape_transfer[i];
      for (int A = 0; A <= cap; ++A) {
        double best = last(i, A).idle;
        int how = std::isfinite(best) ? L : kNoChoice;
        // Tape i' > i offloaded next: tape i's windows in F^{i+1}..F^{i'}, B^{i'+1}..B^{i+2}.
        double beside_f = 0, beside_b = 0;
        bool tight_f = false, tight_b = false;
        const int after = std::min(A + ab, cap);
        for (int i2 = i + 1; i2 <= L - 2; ++i2) {
          const int x = i2, k = i2 + 1;
          if (!fits(need_f[x], A + ab) || !fits(need_b[k], A + ab)) break;
          if (!tight_f && fits(need_f[x], A))
            beside_f += uf(x);
          else if (x == i + 1)
            break;
          else
            tight_f = true;
          if (!tight_b && fits(need_b[k], A))
            beside_b += ub(k);
          else
            tight_b = true;
          const double v = idle(T, beside_f) + idle(T, beside_b) + W[i2][after];
          if (v < best) best = v, how = i2;
        }
        W[i][A] = best;
        next[i][A] = how;
      }
    }
  }

  // Tape i's windows when tape i2 (< L) is offloaded next.
  Windows between(int i, int i2, int A) const {
    Windows w;
    int top_f = i, top_b = i + 1;
    for (int x = i + 1; x <= i2 && fits(need_f[x], A); ++x) top_f = x;
    for (int k = i + 2; k <= i2 + 1 && fits(need_b[k], A); ++k) top_b = k;
    w.free_after = top_f;
    w.prefetch_before = 2 * L + 1 - top_b;
    return w;
  }

  double no_offload_idle() const {
    for (int x = 1; x <= L; ++x)
      if (!fits(need_f[x], 0) || !fits(need_b[x], 0)) return kInf;
    return 0;
  }

  // The first offloaded tape: F^1..F^{i} and B^{i+1}..B^1 with every tape there.
  bool prefix_fits(int i) const {
    for (int x = 1; x <= i; ++x)
      if (!fits(need_f[x], 0)) return false;
    for (int k = 1; k <= i + 1; ++k)
      if (!fits(need_b[k], 0)) return false;
    return true;
  }

  std::vector<Step> unfold(int first) const {
    std::vector<int> free_at(2 * L + 2, 0), offload_at(2 * L + 2, 0);
    // Two prefetches can share a place: a tape's alone before B^{i+1}, then
    // an earlier tape's whose window starts with B^{i+1} (link order: higher first).
    std::vector<std::vector<int>> prefetch_at(2 * L + 2);
    for (int i = first, A = 0; i != L && i > 0;) {
      const int i2 = next[i][A];
      const Windows w = i2 == L ? last(i, A) : between(i, i2, A);
      free_at[w.free_after] = i, offload_at[i] = i;
      prefetch_at[w.prefetch_before].push_back(i);
      A = std::min(A + g.abar[i], cap);
      i = i2;
    }
    std::vector<Step> steps;
    for (int pos = 1; pos <= 2 * L; ++pos) {
      std::sort(prefetch_at[pos].rbegin(), prefetch_at[pos].rend());
      for (const int i : prefetch_at[pos]) steps.push_back({OpKind::Prefetch, i});
      if (pos <= L)
        steps.push_back({OpKind::ForwardAll, pos});
      else
        steps.push_back({OpKind::Backward, 2 * L + 1 - pos});
      if (free_at[pos]) steps.push_back({OpKind::Free, free_at[pos]});
      if (pos <= L && offload_at[pos]) steps.push_back({OpKind::Offload, pos});
    }
    return steps;
  }
};

}  // namespace

double min_feasible_limit_offload_only(const Chain& chain, double bandwidth) {
  const int L = chain.length();
  // Tapes that can leave the GPU (i <= L-2, a finite transfer), summed up to i.
  std::vector<double> movable(L + 1, 0), tapes(L + 1, 0);
  for (int i = 1; i <= L; ++i) {
    tapes[i] = tapes[i - 1] + chain.abar(i);
    const bool moves = i <= L - 2 && std::isfinite(transfer(chain.abar(i), bandwidth));
    movable[i] = movable[i - 1] + (moves ? chain.abar(i) : 0);
  }
  double most = 0;
  for (int x = 1; x <= L; ++x) {
    const double off = x >= 3 ? movable[x - 2] : 0;  // off the GPU during F^x and B^x at best
    const ChainLayer& layer = chain.layers[x - 1];
    most = std::max({most, chain.delta(L) + tapes[x] - off + layer.forward_overhead,
                     tapes[x] - off + chain.delta(x) + chain.delta(x - 1) + layer.backward_overhead});
  }
  return chain.input_size + most;
}

Solution solve_offload_only(const Chain& chain, double limit, int slots, double bandwidth) {
  check_remat_inputs(chain, limit, slots);
  if (!std::isfinite(bandwidth) || bandwidth < 0)
    throw std::invalid_argument("bandwidth: a finite number >= 0 expected");
  Solution out;
  out.min_feasible_limit = min_feasible_limit_offload_only(chain, bandwidth);
  const MemoryGrid g = make_grid(chain, limit, slots);
  out.slot = g.slot;
  out.makespan = kInf;
  if (out.min_feasible_limit > limit) return out;
  Program program(chain, g, bandwidth);
  const int L = program.L;
  const double cells = (L + 1.0) * (program.cap + 1.0);
  if (cells > 1e8)
    throw std::invalid_argument("slots: " + std::to_string(static_cast<long long>(cells)) +
                                " table cells, at most 100000000 supported; use fewer slots");
  program.fill();
  double best = program.no_offload_idle();
  int first = 0;
  for (int i = 1; i <= L - 2; ++i)
    if (program.W[i][0] < best && program.prefix_fits(i)) best = program.W[i][0], first = i;
  if (!std::isfinite(best)) return out;
  double compute = 0;
  for (const ChainLayer& layer : chain.layers) compute += layer.forward_time + layer.backward_time;
  out.feasible = true;
  out.makespan = compute + best;
  out.ops = replay_with_transfers(chain, program.unfold(first), bandwidth);
  out.peak_memory = peak_memory(out.ops);
  return out;
}

}  // namespace pipesim::memory_saving
