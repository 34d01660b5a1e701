#include "schedules/pytorch/zb_auto_orders.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace pipesim {
namespace {

enum Pass { F = 0, I = 1, W = 2 };

struct Switches {
  bool bubble_before_first_i, prefer_i, greedy_w;
};

// One run of the heuristic: list-schedules every stage's passes in the
// paper's order of decisions, micro-batch by micro-batch, keeping each
// pass's completion time (a pass starts when its stage is free and its
// input, comm after its neighbour's pass, has arrived).
class Heuristic {
 public:
  Heuristic(const ZbStageFigures& fig, int microbatches, Switches sw)
      : fig_(fig), S_(static_cast<int>(fig.forward.size())), M_(microbatches), sw_(sw) {
    for (auto* v : {&done_[F], &done_[I], &done_[W]}) v->assign(S_, 0);
    free_at_.assign(S_, 0), held_.assign(S_, 0), bubble_.assign(S_, 0);
    end_.assign(3, std::vector<std::vector<double>>(S_, std::vector<double>(M_, 0)));
    order_.resize(S_);
  }

  void run() {
    for (int m = 0; m < M_; ++m) m == 0 ? first_microbatch() : next_microbatch(m);
    for (int s = 0; s < S_; ++s)
      while (done_[W][s] < M_) put(s, W);
  }

  // The slowest stage's span: its first F's start to its last W's end.
  double span() const {
    double worst = 0;
    for (int s = 0; s < S_; ++s) worst = std::max(worst, end_[W][s][M_ - 1] - end_[F][s][0] + cost(F, s));
    return worst;
  }

  const std::vector<std::vector<OrderedOp>>& order() const { return order_; }

 private:
  double cost(int pass, int s) const {
    return pass == F ? fig_.forward[s] : pass == I ? fig_.input_grad[s] : fig_.weight_grad[s];
  }
  double bytes(int pass, int s) const {
    return pass == F ? fig_.forward_bytes[s] : pass == I ? fig_.input_grad_bytes[s] : fig_.weight_grad_bytes[s];
  }
  double max_bubble() const { return *std::max_element(bubble_.begin(), bubble_.end()); }

  void put(int s, int pass) {
    const int m = done_[pass][s];
    if (m >= M_ || (pass == I && m >= done_[F][s]) || (pass == W && m >= done_[I][s]))
      throw std::invalid_argument("the rules put a pass before its input");
    const double alone = free_at_[s] + cost(pass, s);
    double end = alone;
    if (pass == F && s > 0) end = std::max(end, end_[F][s - 1][m] + fig_.comm + cost(pass, s));
    if (pass == I && s + 1 < S_) end = std::max(end, end_[I][s + 1][m] + fig_.comm + cost(pass, s));
    if (done_[F][s] > 0) bubble_[s] += end - alone;
    free_at_[s] = end_[pass][s][m] = end;
    held_[s] += bytes(pass, s);
    ++done_[pass][s];
    static constexpr std::array<TaskKind, 3> kinds = {TaskKind::Forward, TaskKind::BackwardInput,
                                                      TaskKind::BackwardWeight};
    order_[s].push_back({kinds[pass], s, m, static_cast<int>(order_[s].size()) + 1});
  }

  // Ws until the pass of `bytes` fits the stage's limit.
  void make_room(int s, double pass_bytes) {
    while (held_[s] + pass_bytes > fig_.limit[s]) {
      if (done_[W][s] >= done_[I][s])
        throw std::invalid_argument("a stage's limit cannot hold its next pass (at least one stash must fit)");
      put(s, W);
    }
  }

  // Ws while the stage waits for an input arriving at `arrival`: those that
  // end before it, then one more unless the wait is within the largest
  // bubble so far (taken only when greedy).
  void fill_wait(int s, double arrival) {
    while (done_[W][s] < done_[I][s] && free_at_[s] + cost(W, s) <= arrival) put(s, W);
    if (done_[W][s] < done_[I][s] && free_at_[s] < arrival) {
      if (arrival - free_at_[s] > max_bubble() - bubble_[s] || sw_.greedy_w) put(s, W);
    }
  }

  // Warm-up: each stage's first F, then as many more Fs as fit before the
  // first I comes back (fewer on a stage than on the one before it).
  void first_microbatch() {
    for (int s = 0; s < S_; ++s) put(s, F);
    std::vector<int> extra(S_, 0);
    double back = 0;  // when the first I reaches the stage
    for (int s = S_ - 1; s >= 0; --s) {
      if (s == S_ - 1) {
        back = end_[F][s][0] + cost(I, s);
        continue;
      }
      double held = held_[s], busy = free_at_[s];
      while (done_[F][s] + extra[s] < M_ && held + bytes(F, s) <= fig_.limit[s]) {
        if (sw_.bubble_before_first_i ? busy + cost(F, s) > back + fig_.comm : busy >= back + fig_.comm) break;
        held += bytes(F, s), busy += cost(F, s), ++extra[s];
      }
      back = std::max(busy, back + fig_.comm) + cost(I, s);
    }
    for (int s = 1; s < S_; ++s) {
      while (extra[s] > 0 && extra[s] >= extra[s - 1] && done_[F][s] + extra[s] < M_) --extra[s];
      extra[s] = std::min(extra[s], extra[s - 1]);  // never ahead of the stage before (the reference can be)
    }
    for (int s = 0; s < S_; ++s)
      for (int k = 0; k < extra[s]; ++k) put(s, F);
    for (int s = S_ - 1; s >= 0; --s) put(s, I);
  }

  // Whether stage s takes an F this round: not when it is two ahead of the
  // next stage and (preferring I) the next stage's F and I come back soon.
  bool wants_forward(int s) const {
    if (done_[F][s] >= M_) return false;
    if (s + 1 < S_ && sw_.prefer_i && done_[F][s] >= done_[F][s + 1] + 2) {
      const double next_back = free_at_[s + 1] + cost(F, s + 1) + cost(I, s + 1) + fig_.comm;
      if (free_at_[s] >= next_back) return false;
      double w_cost = 0, held = held_[s] + bytes(F, s);
      for (int k = done_[W][s]; held > fig_.limit[s] && k < done_[I][s]; ++k) w_cost += cost(W, s), held += bytes(W, s);
      if (free_at_[s] + cost(F, s) + w_cost <= next_back) return true;
      if (next_back - free_at_[s] <= max_bubble() - bubble_[s]) return false;
    }
    return true;
  }

  void forward_pass(int s) {
    make_room(s, bytes(F, s));
    if (s > 0) fill_wait(s, end_[F][s - 1][done_[F][s]] + fig_.comm);
    put(s, F);
  }

  void next_microbatch(int m) {
    std::vector<int> forward(S_, 0);
    for (int s = 0; s < S_; ++s) forward[s] = wants_forward(s);
    for (int s = S_ - 2; s >= 0; --s) forward[s] = std::min(forward[s], forward[s + 1]);
    // A stage's F waits for the stage before it to have put the same
    // micro-batch's F (the reference may put it first: a deadlock).
    for (int s = 0; s < S_; ++s)
      if (forward[s] && (s == 0 || done_[F][s - 1] > done_[F][s])) forward_pass(s);
    // Where the rules above left a stage without micro-batch m's forward
    // (the reference then fails its own checks), it runs now, upstream first.
    for (int s = 0; s < S_; ++s)
      while (done_[F][s] <= m) forward_pass(s);
    for (int s = S_ - 1; s >= 0; --s) {
      make_room(s, bytes(I, s));
      if (s + 1 < S_) fill_wait(s, end_[I][s + 1][m] + fig_.comm);
      if (s == 0 && done_[F][s] == M_)
        while (done_[W][s] < done_[I][s]) put(s, W);
      put(s, I);
    }
  }

  const ZbStageFigures& fig_;
  int S_, M_;
  Switches sw_;
  std::array<std::vector<int>, 3> done_;               // passes put, per kind and stage
  std::vector<double> free_at_, held_, bubble_;        // per stage
  std::vector<std::vector<std::vector<double>>> end_;  // [pass][stage][micro-batch]
  std::vector<std::vector<OrderedOp>> order_;          // per stage, as put
};

}  // namespace

ExplicitOrders zb_auto_orders(const ZbStageFigures& figures, int microbatches) {
  const std::size_t S = figures.forward.size();
  if (S < 1 || microbatches < 1) throw std::invalid_argument("at least one stage and one micro-batch are needed");
  for (const auto* v : {&figures.input_grad, &figures.weight_grad, &figures.forward_bytes, &figures.input_grad_bytes,
                        &figures.weight_grad_bytes, &figures.limit})
    if (v->size() != S) throw std::invalid_argument("zero-bubble heuristic: one figure per stage");
  double best = 0;
  std::vector<std::vector<OrderedOp>> order;
  std::string why;
  for (const bool bubble : {true, false})
    for (const bool prefer_i : {true, false})
      for (const bool greedy : {true, false}) {
        Heuristic h(figures, microbatches, {bubble, prefer_i, greedy});
        try {
          h.run();
        } catch (const std::invalid_argument& e) {
          why = e.what();
          continue;  // this variant finds no order
        }
        if (order.empty() || h.span() < best) best = h.span(), order = h.order();
      }
  if (order.empty()) throw std::invalid_argument("no variant of the zero-bubble heuristic gives an order: " + why);
  ExplicitOrders orders;
  orders.ranks = std::move(order);
  orders.stages = static_cast<int>(S);
  return orders;
}

}  // namespace pipesim
