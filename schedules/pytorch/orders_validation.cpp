// validate_orders: what explicit per-device orders get wrong without running them.
#include <string>
#include <vector>

#include "schedules/pytorch/orders_validation.hpp"

namespace pipesim {
namespace {

struct Place {
  int rank, index;  // row, position among the row's ops
  const OrderedOp* op;
};

int slot(TaskKind kind) {
  return kind == TaskKind::Forward ? 0 : kind == TaskKind::Backward ? 1 : kind == TaskKind::BackwardInput ? 2 : 3;
}

std::string rank_text(const Platform& platform, int rank) {
  return platform.devices.at(rank).name + " (rank " + std::to_string(rank) + ")";
}

std::string cell(TaskKind kind, int s, int m) { return cell_name({kind, s, m, 0}); }

// " 3" or "es 3, 5..7" (after "micro-batch"): sorted values as ranges.
std::string ranges(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(v[i]) + (j > i ? ".." + std::to_string(v[j]) : "");
    i = j + 1;
  }
  return (v.size() == 1 ? " " : "es ") + s;
}

}  // namespace

std::vector<Violation> validate_orders(const ExplicitOrders& orders, int M, const Platform& platform) {
  std::vector<Violation> out;
  const int S = orders.stages;
  const int R = static_cast<int>(orders.ranks.size());
  auto add = [&](const std::string& kind, const std::string& message, int rank) {
    out.push_back({kind, message, rank < platform.size() ? rank : -1});
  };
  // Every place of every op: places[slot][s * M + m].
  std::vector<std::vector<std::vector<Place>>> places(4, std::vector<std::vector<Place>>(static_cast<std::size_t>(S) * M));
  std::vector<std::vector<int>> stage_on(S);  // ranks holding the stage
  std::vector<bool> has_ops(S, false);
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < static_cast<int>(orders.ranks[r].size()); ++i) {
      const OrderedOp& op = orders.ranks[r][i];
      has_ops[op.stage] = true;
      if (stage_on[op.stage].empty() || stage_on[op.stage].back() != r) {
        bool seen = false;
        for (int x : stage_on[op.stage]) seen = seen || x == r;
        if (!seen) stage_on[op.stage].push_back(r);
      }
      if (op.microbatch >= M)
        add("structure",
            cell_name(op) + " on " + rank_text(platform, r) + " at column " + std::to_string(op.column) +
                ": micro-batch " + std::to_string(op.microbatch) + " is outside the workload's 0.." +
                std::to_string(M - 1),
            r);
      else
        places[slot(op.kind)][static_cast<std::size_t>(op.stage) * M + op.microbatch].push_back({r, i, &op});
    }
  for (int s = 0; s < S; ++s) {
    if (!has_ops[s]) {
      add("structure",
          "stage " + std::to_string(s) + " has no ops (the orders name stages 0.." + std::to_string(S - 1) + ")", -1);
      continue;
    }
    if (stage_on[s].size() > 1) {
      std::string ranks;
      for (int r : stage_on[s]) ranks += (ranks.empty() ? "" : ", ") + rank_text(platform, r);
      add("structure", "stage " + std::to_string(s) + " has ops on several ranks: " + ranks +
                           " (a stage's weights live on one device)", stage_on[s][0]);
    }
  }

  // Exactly once: F, and B or else I and W.
  auto where = [&](const std::vector<Place>& at) {
    std::string s;
    for (const Place& p : at)
      s += (s.empty() ? "" : ", ") + platform.devices.at(p.rank).name + " column " + std::to_string(p.op->column);
    return s;
  };
  for (int s = 0; s < S; ++s) {
    if (!has_ops[s]) continue;
    const int r = stage_on[s][0];
    std::vector<int> no_forward, no_backward;  // reported as ranges: a short CSV may miss many
    for (int m = 0; m < M; ++m) {
      const std::size_t k = static_cast<std::size_t>(s) * M + m;
      const auto &f = places[0][k], &b = places[1][k], &i = places[2][k], &w = places[3][k];
      for (const auto* at : {&f, &b, &i, &w})
        if (at->size() > 1)
          add("structure", cell_name(*at->front().op) + " appears " + std::to_string(at->size()) + " times (" +
                               where(*at) + ")", at->front().rank);
      if (f.empty()) no_forward.push_back(m);
      const std::string B = cell(TaskKind::Backward, s, m), I = cell(TaskKind::BackwardInput, s, m),
                        W = cell(TaskKind::BackwardWeight, s, m);
      if (!b.empty() && (!i.empty() || !w.empty()))
        add("structure", B + " and a split backward (" + I + ", " + W + ") both appear: the backward runs once", r);
      else if (b.empty() && i.empty() && w.empty())
        no_backward.push_back(m);
      else if (b.empty() && (i.empty() || w.empty()))
        add("structure", (i.empty() ? W + " without " + I : I + " without " + W) + ": a split backward needs both halves", r);
    }
    const std::string tail = " (the workload has micro-batches 0.." + std::to_string(M - 1) + ")";
    if (!no_forward.empty())
      add("structure", "no F of stage " + std::to_string(s) + " for micro-batch" + ranges(no_forward) + tail, r);
    if (!no_backward.empty())
      add("structure", "no backward (B, or I and W) of stage " + std::to_string(s) + " for micro-batch" +
                           ranges(no_backward) + tail, r);
  }

  // A consumer before one of its producers on the same rank can never start.
  auto unique = [&](int kind, int s, int m) -> const Place* {
    if (s < 0 || s >= S || m >= M) return nullptr;
    const auto& at = places[kind][static_cast<std::size_t>(s) * M + m];
    return at.size() == 1 ? &at[0] : nullptr;
  };
  auto check = [&](const Place* consumer, const Place* producer, const char* what) {
    if (!consumer || !producer || consumer->rank != producer->rank || consumer->index > producer->index) return;
    add("dependency",
        rank_text(platform, consumer->rank) + " runs " + cell_name(*consumer->op) + " at column " +
            std::to_string(consumer->op->column) + " before " + cell_name(*producer->op) + " at column " +
            std::to_string(producer->op->column) + ", " + what,
        consumer->rank);
  };
  for (int s = 0; s < S; ++s)
    for (int m = 0; m < M; ++m) {
      check(unique(0, s, m), unique(0, s - 1, m), "whose output is its input");
      const Place* gradient_from = s + 1 < S ? (unique(1, s + 1, m) ? unique(1, s + 1, m) : unique(2, s + 1, m)) : nullptr;
      for (int kind : {1, 2}) {
        check(unique(kind, s, m), unique(0, s, m), "whose stashed activations it needs");
        check(unique(kind, s, m), gradient_from, "which produces the gradient it starts from");
      }
      check(unique(3, s, m), unique(2, s, m), "which must run first (W completes what I started)");
    }
  return out;
}

}  // namespace pipesim
