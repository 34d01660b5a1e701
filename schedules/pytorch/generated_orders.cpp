#include "schedules/pytorch/generated_orders_internal.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace pipesim {
namespace {

// Appends ops to one rank, numbering each stage's ops of one kind in turn
// (the n-th F of stage s handles micro-batch n); ops past the last
// micro-batch are dropped (ZB-V plans at least 2p-1 of them).
class RankWriter {
 public:
  RankWriter(ExplicitOrders& orders, int rank, int microbatches)
      : ops_(orders.ranks[rank]), next_(4, std::vector<int>(orders.stages, 0)), M_(microbatches) {}

  void add(TaskKind kind, int stage) {
    const int m = next_[index(kind)][stage]++;
    if (m < M_) ops_.push_back({kind, stage, m, static_cast<int>(ops_.size()) + 1});
  }
  int count(TaskKind kind, int stage) const { return next_[index(kind)][stage]; }

 private:
  static int index(TaskKind kind) {
    return kind == TaskKind::Forward ? 0 : kind == TaskKind::BackwardWeight ? 3 : kind == TaskKind::Backward ? 1 : 2;
  }
  std::vector<OrderedOp>& ops_;
  std::vector<std::vector<int>> next_;  // [kind][stage]: the next micro-batch
  int M_;
};

ExplicitOrders empty_orders(int ranks, int stages) {
  if (ranks < 1 || stages < 1) throw std::invalid_argument("at least one rank and one stage are needed");
  ExplicitOrders orders;
  orders.ranks.resize(ranks);
  orders.stages = stages;
  return orders;
}

// Interleaved 1F1B and its zero-bubble variant: rank r's k-th forward runs
// local stage (k / round) % v, its j-th backward local stage
// v-1 - (j / round) % v; in steady state each forward is followed by a
// backward, and (zero bubble) each I by the W of the backward r places back.
ExplicitOrders interleaved(int p, int v, int M, bool zero_bubble) {
  ExplicitOrders orders = empty_orders(p, p * v);
  if (M < 1) throw std::invalid_argument("at least one micro-batch is needed");
  const int rounds = std::max(1, M / p);
  if (M % rounds != 0)
    throw std::invalid_argument("the micro-batch count must be a multiple of max(1, microbatches / ranks) = " +
                                std::to_string(rounds) + " (PyTorch's rounds), got " + std::to_string(M));
  const int round = M / rounds;
  const int total = M * v;  // forwards (and backwards) of one rank
  for (int r = 0; r < p; ++r) {
    RankWriter w(orders, r, M);
    const auto forward_stage = [&](int k) { return (k / round) % v * p + r; };
    const auto backward_stage = [&](int j) { return (v - 1 - (j / round) % v) * p + r; };
    const int warmup = std::min((v - 1) * round + (zero_bubble ? 1 : 2) * (p - 1 - r), total);
    const TaskKind backward = zero_bubble ? TaskKind::BackwardInput : TaskKind::Backward;
    for (int k = 0; k < warmup; ++k) w.add(TaskKind::Forward, forward_stage(k));
    for (int j = 0; j < total; ++j) {
      if (warmup + j < total) w.add(TaskKind::Forward, forward_stage(warmup + j));
      w.add(backward, backward_stage(j));
      if (zero_bubble && j >= r) w.add(TaskKind::BackwardWeight, backward_stage(j - r));
    }
    if (zero_bubble)
      for (int j = std::max(0, total - r); j < total; ++j) w.add(TaskKind::BackwardWeight, backward_stage(j));
  }
  return orders;
}

}  // namespace

ExplicitOrders interleaved_1f1b_orders(int ranks, int stages_per_rank, int microbatches) {
  return interleaved(ranks, stages_per_rank, microbatches, false);
}

ExplicitOrders interleaved_zero_bubble_orders(int ranks, int stages_per_rank, int microbatches) {
  return interleaved(ranks, stages_per_rank, microbatches, true);
}

ExplicitOrders looped_bfs_orders(int ranks, int stages_per_rank, int microbatches) {
  const int p = ranks, v = stages_per_rank, M = microbatches;
  ExplicitOrders orders = empty_orders(p, p * v);
  for (int r = 0; r < p; ++r) {
    auto& ops = orders.ranks[r];
    for (int l = 0; l < v; ++l)
      for (int m = 0; m < M; ++m) ops.push_back({TaskKind::Forward, l * p + r, m, 0});
    for (int l = v - 1; l >= 0; --l)
      for (int m = M - 1; m >= 0; --m) ops.push_back({TaskKind::Backward, l * p + r, m, 0});
    for (std::size_t i = 0; i < ops.size(); ++i) ops[i].column = static_cast<int>(i) + 1;
  }
  return orders;
}

ExplicitOrders zbv_orders(int ranks, int microbatches) {
  const int p = ranks, M = microbatches;
  ExplicitOrders orders = empty_orders(p, 2 * p);
  const int planned = std::max(2 * p - 1, M);  // enough to fill the V; the extra ones are dropped
  using K = TaskKind;
  for (int r = 0; r < p; ++r) {
    RankWriter w(orders, r, M);
    const int down = r, up = 2 * p - 1 - r;  // the V's two arms
    const auto fib = [&](int s) { w.add(K::Forward, s), w.add(K::BackwardInput, s), w.add(K::BackwardWeight, s); };
    for (int i = 0; i < 2 * (p - r) - 1; ++i) w.add(K::Forward, down);
    for (int i = 0; i < r; ++i) w.add(K::Forward, up), w.add(K::Forward, down);
    for (int i = 0; i < p - r; ++i) fib(up);
    while (w.count(K::Forward, up) < w.count(K::Forward, down) || w.count(K::Forward, down) < planned) {
      if (w.count(K::Forward, down) < planned) w.add(K::Forward, down);
      w.add(K::BackwardInput, down), w.add(K::BackwardWeight, down);
      fib(up);
    }
    for (int i = 0; i < r; ++i) w.add(K::BackwardInput, down), w.add(K::BackwardInput, up);
    for (int i = 0; i < p - r; ++i) w.add(K::BackwardInput, down), w.add(K::BackwardWeight, down);
    while (w.count(K::BackwardWeight, up) < w.count(K::BackwardInput, up)) w.add(K::BackwardWeight, up);
    while (w.count(K::BackwardWeight, down) < w.count(K::BackwardInput, down)) w.add(K::BackwardWeight, down);
  }
  return orders;
}

ExplicitOrders zb_h2_orders(int ranks, int microbatches) {
  const int p = ranks, M = microbatches;
  ExplicitOrders orders = empty_orders(p, p);
  if (M < 1) throw std::invalid_argument("at least one micro-batch is needed");
  const int limit = 2 * p - 1;  // micro-batches between F and W on a rank (the paper's 2p-1 activations)
  std::vector<int> f(p, 0), i(p, 0), w(p, 0);
  // Unit steps at which F(s, m) and I(s, m) finish.
  std::vector<std::vector<int>> f_end(p, std::vector<int>(M, -1)), i_end = f_end;
  const auto done = [](int end, int t) { return end >= 0 && end <= t; };
  for (int t = 0, left = 3 * p * M; left > 0; ++t) {
    for (int s = 0; s < p; ++s) {
      auto& ops = orders.ranks[s];
      const int col = static_cast<int>(ops.size()) + 1;
      const bool i_ready = i[s] < f[s] && (s == p - 1 ? done(f_end[s][i[s]], t) : done(i_end[s + 1][i[s]], t));
      const bool f_ready = f[s] < M && f[s] - w[s] < limit && (s == 0 || done(f_end[s - 1][f[s]], t));
      if (i_ready) {
        i_end[s][i[s]] = t + 1;
        ops.push_back({TaskKind::BackwardInput, s, i[s]++, col});
      } else if (f_ready) {
        f_end[s][f[s]] = t + 1;
        ops.push_back({TaskKind::Forward, s, f[s]++, col});
      } else if (w[s] < i[s]) {
        ops.push_back({TaskKind::BackwardWeight, s, w[s]++, col});
      } else {
        continue;
      }
      --left;
    }
  }
  return orders;
}

ExplicitOrders dualpipev_orders(int ranks, int microbatches) {
  const int P = ranks, N = microbatches;
  ExplicitOrders orders = empty_orders(P, 2 * P);
  if (N < 2 * P)
    throw std::invalid_argument("DualPipeV needs at least as many micro-batches as stages (" + std::to_string(2 * P) +
                                "), got " + std::to_string(N));
  using K = TaskKind;
  for (int r = 0; r < P; ++r) {
    auto& ops = orders.ranks[r];
    std::vector<int> next_f(2 * P, 0), next_b(2 * P, 0);  // a B or an I takes the next backward
    std::vector<std::pair<int, int>> pending_w;           // (stage, micro-batch) of Is without their W
    std::size_t w_front = 0;
    const auto push = [&](K kind, int s, int m) { ops.push_back({kind, s, m, static_cast<int>(ops.size()) + 1}); };
    const auto forward = [&](int s) { push(K::Forward, s, next_f[s]++); };
    const auto backward = [&](int s, bool split) {
      push(split ? K::BackwardInput : K::Backward, s, next_b[s]);
      if (split) pending_w.emplace_back(s, next_b[s]);
      ++next_b[s];
    };
    const auto weight = [&] {
      if (w_front < pending_w.size())
        push(K::BackwardWeight, pending_w[w_front].first, pending_w[w_front].second), ++w_front;
    };
    const auto overlapped = [&](int f, int b) {
      forward(f);
      ops.back().overlaps_next = true;
      backward(b, false);
    };
    const int down = r, up = 2 * P - 1 - r;
    for (int i = 0; i < 2 * (P - r - 1); ++i) forward(down);
    for (int i = 0; i < r + 1; ++i) forward(down), forward(up);
    for (int i = 0; i < P - r - 1; ++i) backward(up, true), weight(), forward(up);
    for (int i = 0; i < N - 2 * P + r + 1; ++i) {
      if (i == 0 && r == P - 1) {
        forward(down), backward(up, false);  // the last rank starts this phase without overlap
      } else {
        overlapped(down, up);
      }
      overlapped(up, down);
    }
    for (int i = 0; i < P - r - 1; ++i) backward(up, false), overlapped(up, down);
    bool split = false;  // the second half of the last backwards is split
    for (int i = 0; i < r + 1; ++i) {
      if (i == (r + 1) / 2 && r % 2 == 1) split = true;
      backward(up, split);
      if (i == (r + 1) / 2 && r % 2 == 0) split = true;
      backward(down, split);
    }
    for (int i = 0; i < P - r - 1; ++i) weight(), backward(down, split);
    for (int i = 0; i < r + 1; ++i) weight();
  }
  return orders;
}

std::string orders_csv_text(const ExplicitOrders& orders) {
  std::string text;
  for (const auto& rank : orders.ranks) {
    for (std::size_t i = 0; i < rank.size(); ++i) {
      text += i ? "," : "";
      if (rank[i].overlaps_next && i + 1 < rank.size()) {
        text += "(" + cell_name(rank[i]) + ";" + cell_name(rank[i + 1]) + ")OVERLAP_F_B";
        ++i;
      } else {
        text += cell_name(rank[i]);
      }
    }
    text += "\n";
  }
  return text;
}

}  // namespace pipesim
