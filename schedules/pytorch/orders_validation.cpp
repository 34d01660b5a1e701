// validate_orders: what explicit per-device orders get wrong without running them.
#include <map>
#include <set>
#include <string>
#include <tuple>
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

// The comms format: every tensor between stages on two ranks is sent once
// (SEND after its producer, on the producer's rank) and received once (RECV
// before its consumer, on the consumer's rank); nothing else is sent.
template <class Unique, class Add>
void check_comms(const ExplicitOrders& orders, int M, const Platform& platform, const Unique& unique, const Add& add) {
  const int S = orders.stages;
  const std::vector<int> rank = orders.stage_ranks();
  struct Seen {
    int rank;
    const CommOp* op;
  };
  std::map<std::tuple<std::string, int, int>, std::vector<Seen>> seen;
  for (std::size_t r = 0; r < orders.comms.size(); ++r)
    for (const CommOp& c : orders.comms[r])
      seen[{c.action, c.stage, c.microbatch}].push_back({static_cast<int>(r), &c});
  auto at = [&](const Seen& x) {
    return cell_name(*x.op) + " on " + rank_text(platform, x.rank) + " at column " + std::to_string(x.op->column);
  };
  // The four actions of one crossing; the others are unexpected.
  std::set<std::tuple<std::string, int, int>> expected;
  for (int s = 0; s + 1 < S; ++s) {
    if (rank[s] < 0 || rank[s + 1] < 0 || rank[s] == rank[s + 1]) continue;
    for (int m = 0; m < M; ++m) {
      const int lo = rank[s], hi = rank[s + 1];
      // {send, its rank, recv, its rank, producer, consumer} for activations, then gradients.
      struct Crossing {
        std::tuple<std::string, int, int> send, recv;
        int from, to;
        const Place *producer, *consumer;
        const char* what;
      };
      const Place* grad = unique(1, s + 1, m) ? unique(1, s + 1, m) : unique(2, s + 1, m);
      const Place* grad_user = unique(1, s, m) ? unique(1, s, m) : unique(2, s, m);
      for (const Crossing& c :
           {Crossing{{"SEND_F", s, m}, {"RECV_F", s + 1, m}, lo, hi, unique(0, s, m), unique(0, s + 1, m), "output"},
            Crossing{{"SEND_B", s + 1, m}, {"RECV_B", s, m}, hi, lo, grad, grad_user, "input gradient"}}) {
        expected.insert(c.send);
        expected.insert(c.recv);
        const auto& sends = seen[c.send];
        const auto& recvs = seen[c.recv];
        const std::string send_name = std::to_string(std::get<1>(c.send)) + std::get<0>(c.send) + std::to_string(m);
        const std::string recv_name = std::to_string(std::get<1>(c.recv)) + std::get<0>(c.recv) + std::to_string(m);
        for (const auto* list : {&sends, &recvs})
          if (list->size() > 1) {
            std::string places;
            for (const Seen& x : *list) places += (places.empty() ? "" : ", ") + at(x);
            add("structure",
                cell_name(*list->front().op) + " appears " + std::to_string(list->size()) + " times (" + places + ")",
                list->front().rank);
          }
        if (sends.empty() && recvs.empty()) {
          add("structure",
              "no " + send_name + " and " + recv_name + ": stage " + std::to_string(std::get<1>(c.send)) + "'s " +
                  c.what + " for micro-batch " + std::to_string(m) + " goes from " + rank_text(platform, c.from) +
                  " to " + rank_text(platform, c.to),
              c.from);
          continue;
        }
        if (recvs.empty())
          add("structure", at(sends[0]) + " has no matching " + recv_name + " on " + rank_text(platform, c.to), c.to);
        if (sends.empty())
          add("structure", at(recvs[0]) + " has no matching " + send_name + " on " + rank_text(platform, c.from),
              c.from);
        for (const Seen& x : sends) {
          if (x.rank != c.from)
            add("structure",
                at(x) + ": stage " + std::to_string(std::get<1>(c.send)) + " runs on " + rank_text(platform, c.from),
                x.rank);
          else if (c.producer && c.producer->rank == x.rank && x.op->after <= c.producer->index)
            add("dependency", at(x) + " comes before " + cell_name(*c.producer->op) + ", which produces what it sends",
                x.rank);
        }
        for (const Seen& x : recvs) {
          if (x.rank != c.to)
            add("structure",
                at(x) + ": stage " + std::to_string(std::get<1>(c.recv)) + " runs on " + rank_text(platform, c.to),
                x.rank);
          else if (c.consumer && c.consumer->rank == x.rank && x.op->after > c.consumer->index)
            add("dependency", at(x) + " comes after " + cell_name(*c.consumer->op) + ", which needs what it receives",
                x.rank);
        }
      }
    }
  }
  for (const auto& [key, list] : seen)
    if (!expected.count(key) && !list.empty())
      add("structure",
          at(list[0]) + ": nothing crosses devices there (no such stage or micro-batch, or both stages on one rank)",
          list[0].rank);
}

}  // namespace

std::vector<Violation> validate_orders(const ExplicitOrders& orders, int M, const Platform& platform,
                                       bool microbatches_from_file) {
  std::vector<Violation> out;
  const int S = orders.stages;
  const int R = static_cast<int>(orders.ranks.size());
  auto add = [&](const std::string& kind, const std::string& message, int rank) {
    out.push_back({kind, message, rank < platform.size() ? rank : -1});
  };
  // Every place of every op: places[slot][s * M + m].
  std::vector<std::vector<std::vector<Place>>> places(4,
                                                      std::vector<std::vector<Place>>(static_cast<std::size_t>(S) * M));
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
  // An overlapped pair shares one device: neither of its stages may run elsewhere.
  for (int r = 0; r < R; ++r) {
    const auto& ops = orders.ranks[r];
    for (std::size_t i = 0; i + 1 < ops.size(); ++i) {
      if (!ops[i].overlaps_next) continue;
      for (const OrderedOp* op : {&ops[i], &ops[i + 1]})
        for (int other : stage_on[op->stage])
          if (other != r) {
            add("structure",
                "(" + cell_name(ops[i]) + ";" + cell_name(ops[i + 1]) + ")OVERLAP_F_B on " + rank_text(platform, r) +
                    " at column " + std::to_string(ops[i].column) + ": stage " + std::to_string(op->stage) +
                    " runs on " + rank_text(platform, other) +
                    " too, so the pair would run on two devices (an overlapped pair shares one device)",
                r);
            break;
          }
    }
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
      add("structure",
          "stage " + std::to_string(s) + " has ops on several ranks: " + ranks +
              " (a stage's weights live on one device)",
          stage_on[s][0]);
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
          add("structure",
              cell_name(*at->front().op) + " appears " + std::to_string(at->size()) + " times (" + where(*at) + ")",
              at->front().rank);
      if (f.empty()) no_forward.push_back(m);
      const std::string B = cell(TaskKind::Backward, s, m), I = cell(TaskKind::BackwardInput, s, m),
                        W = cell(TaskKind::BackwardWeight, s, m);
      if (!b.empty() && (!i.empty() || !w.empty()))
        add("structure", B + " and a split backward (" + I + ", " + W + ") both appear: the backward runs once", r);
      else if (b.empty() && i.empty() && w.empty())
        no_backward.push_back(m);
      else if (b.empty() && (i.empty() || w.empty()))
        add("structure",
            (i.empty() ? W + " without " + I : I + " without " + W) + ": a split backward needs both halves", r);
    }
    const std::string tail = microbatches_from_file
                                 ? " (micro-batches 0.." + std::to_string(M - 1) +
                                       ": the workload gives no microbatches, so " + std::to_string(M) +
                                       " = 1 + the largest micro-batch in " + orders.file + ")"
                                 : " (the workload has micro-batches 0.." + std::to_string(M - 1) + ")";
    if (!no_forward.empty())
      add("structure", "no F of stage " + std::to_string(s) + " for micro-batch" + ranges(no_forward) + tail, r);
    if (!no_backward.empty())
      add("structure",
          "no backward (B, or I and W) of stage " + std::to_string(s) + " for micro-batch" + ranges(no_backward) + tail,
          r);
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
      const Place* gradient_from =
          s + 1 < S ? (unique(1, s + 1, m) ? unique(1, s + 1, m) : unique(2, s + 1, m)) : nullptr;
      for (int kind : {1, 2}) {
        check(unique(kind, s, m), unique(0, s, m), "whose stashed activations it needs");
        check(unique(kind, s, m), gradient_from, "which produces the gradient it starts from");
      }
      check(unique(3, s, m), unique(2, s, m), "which must run first (W completes what I started)");
    }
  if (orders.has_comms()) check_comms(orders, M, platform, unique, add);
  return out;
}

}  // namespace pipesim
