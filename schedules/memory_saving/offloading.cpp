// The recurrences (docs/memory-saving.md, "The program with offloading").
// V(p, o, q, A): least time from the start of the top-level segment that
// begins at layer p until δ^{p-1}, with A slots in use when it starts
// (a^0, the activations held for the segments before, a^{p-1} included);
// o = 1: a^{p-1} is offloaded while this segment's forwards run (freed
// before the next segment starts, prefetched during the next segment's
// backward); q >= 1: a^q (the input of the previous segment, offloaded) is
// prefetched while this segment's backward runs. The segment is the tail
// (the rest of the chain by rematerialization, C(p, L, ·)), F_all^p, or
// F_ck^p F_∅^{p+1..c} holding a^c, which may be offloaded in turn.
#include "schedules/memory_saving/offloading.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "schedules/memory_saving/memory_grid.hpp"
#include "schedules/memory_saving/remat_table.hpp"
#include "schedules/memory_saving/transfer_replay.hpp"

namespace pipesim::memory_saving {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int32_t kNone = -1, kTail = 0, kTape = 1;  // else 2 + 2 (c - p) + o'

double transfer(double size, double bandwidth) {
  if (size == 0) return 0;
  return bandwidth > 0 ? size / bandwidth : kInf;
}

// V and its choices, for 1 <= p <= L, o in {0, 1}, q in 0..p-1, A in 0..N.
class SpineTable {
 public:
  SpineTable(int length, int slots) : width_(slots + 1), offset_(length + 2, 0) {
    std::size_t n = 0;
    for (int p = 1; p <= length; ++p) offset_[p] = n, n += 2 * static_cast<std::size_t>(p);
    time_.assign(n * width_, kInf);
    choice_.assign(n * width_, kNone);
  }
  std::size_t at(int p, int o, int q) const { return (offset_[p] + 2 * static_cast<std::size_t>(q) + o) * width_; }
  double* time(int p, int o, int q) { return &time_[at(p, o, q)]; }
  std::int32_t* choice(int p, int o, int q) { return &choice_[at(p, o, q)]; }

 private:
  std::size_t width_;
  std::vector<std::size_t> offset_;
  std::vector<double> time_;
  std::vector<std::int32_t> choice_;
};

// A cell's best case: its time and how (kTail, kTape, or the checkpointed run's end).
struct Choice {
  double time = kInf;
  std::int32_t how = kNone;
  void keep(double v, std::int32_t way) {
    if (v < time) time = v, how = way;  // strict: the first case found wins a tie
  }
};

// F_ck^p F_∅^{p+1..c}, for p <= c < L: the peak beyond A while it runs and its time.
struct CheckpointedForwards {
  std::vector<int> peak;
  std::vector<double> time;
};

struct Program {
  const Chain& chain;
  const MemoryGrid& g;
  const RematTable& remat;
  SpineTable& spine;
  double bandwidth;

  double uf(int i) const { return chain.layers[i - 1].forward_time; }
  double ub(int i) const { return chain.layers[i - 1].backward_time; }

  // What every cell V(p, o, q, ·) shares: the segment's start, the
  // offload of a^{p-1} (o) and the prefetch of a^q (q) that overlap it.
  struct Segment {
    int p, o, q;
    double offload, prefetch;         // seconds
    int release;                      // slots a^{p-1} frees once offloaded
    int reserve;                      // slots kept for a^q's prefetch
    int q_next;                       // what the next segment prefetches
    int tape_forward, tape_backward;  // peaks of F_all^p and B^p
  };
  Segment segment(int p, int o, int q) const {
    const int L = chain.length();
    return {p,
            o,
            q,
            o ? transfer(chain.a(p - 1), bandwidth) : 0,
            q ? transfer(chain.a(q), bandwidth) : 0,
            o ? g.a[p - 1] : 0,
            q ? g.a[q] : 0,
            o ? p - 1 : 0,
            g.delta[L] + g.abar[p] + g.of[p],
            g.delta[p] + g.abar[p] + g.delta[p - 1] + g.ob[p]};
  }

  // V from p = L down to 1: V(p, ·) reads V(p' > p, ·) only.
  void fill() {
    const int L = chain.length();
    CheckpointedForwards forwards{std::vector<int>(L + 1), std::vector<double>(L + 1)};
    for (int p = L; p >= 1; --p) {
      checkpointed_forwards(p, forwards);
      for (int o = 0; o <= (p >= 2 ? 1 : 0); ++o)
        for (int q = 0; q <= std::max(0, p - 2); ++q) fill_row(segment(p, o, q), forwards);
    }
  }

  void checkpointed_forwards(int p, CheckpointedForwards& f) const {
    const int L = chain.length();
    for (int c = p; c < L; ++c) {
      const int own = c == p ? g.delta[L] + g.a[p] + g.of[p] : g.delta[L] + g.a[c - 1] + g.a[c] + g.of[c];
      f.peak[c] = c == p ? own : std::max(f.peak[c - 1], own);
      f.time[c] = c == p ? uf(p) : f.time[c - 1] + uf(c);
    }
  }

  // V(p, o, q, A) for every A: the best of the tail, the tape and every
  // checkpointed run, in that order.
  void fill_row(const Segment& s, const CheckpointedForwards& forwards) {
    const int L = chain.length(), N = g.slots, p = s.p;
    double* row = spine.time(p, s.o, s.q);
    std::int32_t* pick = spine.choice(p, s.o, s.q);
    for (int A = 0; A <= N; ++A) {
      const int m = N - A, mb = m - s.reserve;  // slots free; free for the backward
      if (mb < 0) continue;
      Choice best;
      if (s.o == 0) best.keep(std::max(remat.time(p, L)[mb], s.prefetch), kTail);  // the rest by rematerialization
      if (p < L && s.tape_forward <= m && s.tape_backward <= mb) {
        const int next = A + g.abar[p] - s.release;
        if (next <= N)
          best.keep(std::max(uf(p), s.offload) + std::max(ub(p), s.prefetch) + spine.time(p + 1, 0, s.q_next)[next],
                    kTape);
      }
      for (int c = p; c < L; ++c) {
        if (forwards.peak[c] > m) break;  // the peak only grows with c
        const int next = A + g.a[c] - s.release;
        if (next > N) continue;
        const double left = remat.time(p, c)[mb];
        if (!std::isfinite(left)) continue;
        for (int o_next = 0; o_next <= 1; ++o_next)
          best.keep(std::max(forwards.time[c], s.offload) + spine.time(c + 1, o_next, s.q_next)[next] +
                        std::max(left, s.prefetch),
                    2 + 2 * (c - p) + o_next);
      }
      row[A] = best.time;
      pick[A] = best.how;
    }
  }

  void unfold(int p, int o, int q, int A, std::vector<Step>& steps) {
    const int L = chain.length(), N = g.slots;
    const std::int32_t how = spine.choice(p, o, q)[A];
    const int mb = N - A - (q ? g.a[q] : 0);
    const int release = o ? g.a[p - 1] : 0;
    const int q_next = o ? p - 1 : 0;
    if (how == kTail) {
      if (q) steps.push_back({OpKind::Prefetch, q});
      unfold_remat(g, remat, p, L, mb, steps);
      return;
    }
    if (how == kTape) {
      steps.push_back({OpKind::ForwardAll, p});
      if (o) steps.push_back({OpKind::Free, p - 1});
      unfold(p + 1, 0, q_next, A + g.abar[p] - release, steps);
      if (q) steps.push_back({OpKind::Prefetch, q});
      steps.push_back({OpKind::Backward, p});
      return;
    }
    const int c = p + (how - 2) / 2, o_next = (how - 2) % 2;
    steps.push_back({OpKind::ForwardCheckpoint, p});
    for (int k = p + 1; k <= c; ++k) steps.push_back({OpKind::ForwardNone, k});
    if (o) steps.push_back({OpKind::Free, p - 1});
    if (o_next) steps.push_back({OpKind::Offload, c});
    unfold(c + 1, o_next, q_next, A + g.a[c] - release, steps);
    if (q) steps.push_back({OpKind::Prefetch, q});
    unfold_remat(g, remat, p, c, mb, steps);
  }
};

}  // namespace

double min_feasible_limit_offloading(const Chain& chain, double bandwidth) {
  // The cases of V, minimising the peak above A instead of the time.
  const int L = chain.length();
  const auto need = remat_needs(chain);
  auto of = [&](int i) { return chain.layers[i - 1].forward_overhead; };
  auto ob = [&](int i) { return chain.layers[i - 1].backward_overhead; };
  // P[p][o][q]
  std::vector<std::vector<std::vector<double>>> P(L + 2, std::vector<std::vector<double>>(2));
  for (int p = L; p >= 1; --p) {
    for (int o = 0; o <= 1; ++o) {
      P[p][o].assign(std::max(1, p - 1), kInf);
      if (o && p < 2) continue;
      const double release = o ? chain.a(p - 1) : 0;
      const int q_next = o ? p - 1 : 0;
      for (int q = 0; q <= std::max(0, p - 2); ++q) {
        const double reserve = q ? chain.a(q) : 0;
        double best = o == 0 ? reserve + need[p][L] : kInf;
        if (p < L) {
          best = std::min(
              best, std::max({chain.delta(L) + chain.abar(p) + of(p), chain.abar(p) - release + P[p + 1][0][q_next],
                              reserve + chain.delta(p) + chain.abar(p) + chain.delta(p - 1) + ob(p)}));
          double forward = 0;
          for (int c = p; c < L; ++c) {
            forward = std::max(forward, c == p ? chain.delta(L) + chain.a(p) + of(p)
                                               : chain.delta(L) + chain.a(c - 1) + chain.a(c) + of(c));
            for (int o_next = 0; o_next <= 1; ++o_next) {
              if (o_next && !std::isfinite(transfer(chain.a(c), bandwidth))) continue;
              best = std::min(
                  best, std::max({forward, chain.a(c) - release + P[c + 1][o_next][q_next], reserve + need[p][c]}));
            }
          }
        }
        P[p][o][q] = best;
      }
    }
  }
  return chain.input_size + P[1][0][0];
}

Solution solve_offloading(const Chain& chain, double limit, int slots, double bandwidth) {
  check_remat_inputs(chain, limit, slots);
  if (!std::isfinite(bandwidth) || bandwidth < 0)
    throw std::invalid_argument("bandwidth: a finite number >= 0 expected");
  // V holds L(L+1) x (N+1) cells of 12 bytes (twice C's): the same ceiling.
  const double cells = chain.length() * (chain.length() + 1.0) * (slots + 1.0);
  if (cells > 1e8)
    throw std::invalid_argument("slots: L(L+1) x (N+1) = " + std::to_string(static_cast<long long>(cells)) +
                                " table cells, at most 100000000 supported; use fewer slots");
  Solution out;
  out.min_feasible_limit = min_feasible_limit_offloading(chain, bandwidth);
  const MemoryGrid g = make_grid(chain, limit, slots);
  out.slot = g.slot;
  out.makespan = kInf;
  if (g.a[0] > slots) return out;
  const int L = chain.length();
  RematTable remat(L, slots);
  fill_remat_table(chain, g, remat);
  SpineTable spine(L, slots);
  Program program{chain, g, remat, spine, bandwidth};
  program.fill();
  const double best = spine.time(1, 0, 0)[g.a[0]];
  if (!std::isfinite(best)) return out;
  std::vector<Step> steps;
  program.unfold(1, 0, 0, g.a[0], steps);
  out.feasible = true;
  out.makespan = best;
  out.ops = replay_with_transfers(chain, steps, bandwidth);
  out.peak_memory = peak_memory(out.ops);
  return out;
}

}  // namespace pipesim::memory_saving
