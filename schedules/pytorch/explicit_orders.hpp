// Explicit per-device orders, as PyTorch pipelining writes them in its CSV
// files: one row per rank, one cell per step, each cell
// <stage><F|B|I|W><micro-batch> (empty = idle). I and W are the two halves
// of a split backward (input gradient, weight gradient); B is both at once.
// The "compute_comms" format adds <stage><SEND_F|RECV_F|SEND_B|RECV_B><mb>
// cells. See docs/validate.md and docs/pytorch.md.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

struct OrderedOp {
  TaskKind kind = TaskKind::Forward;  // Forward, Backward, BackwardInput (I) or BackwardWeight (W)
  int stage = 0;
  int microbatch = 0;
  int column = 0;  // 1-based column in its row, for messages
  // DualPipeV: this op (an F) and the next (a B or I) form one
  // (aFm;bBn)OVERLAP_F_B cell and run at once on the device, the second on
  // lane 1 (build_orders_graph).
  bool overlaps_next = false;
};

// PyTorch's name of an op: "2F0", "1I3", "0W1", "3B2".
std::string cell_name(const OrderedOp& op);

// A communication action of the comms format. SEND_F and SEND_B name the
// sending stage, RECV_F and RECV_B the receiving one (PyTorch's convention).
struct CommOp {
  std::string action;  // "SEND_F", "RECV_F", "SEND_B" or "RECV_B"
  int stage = 0;
  int microbatch = 0;
  int column = 0;  // 1-based column in its row, for messages
  int after = 0;   // how many compute ops of its rank come before it
};

// "0SEND_F1".
inline std::string cell_name(const CommOp& op) {
  return std::to_string(op.stage) + op.action + std::to_string(op.microbatch);
}

struct ExplicitOrders {
  std::string file;
  std::vector<std::vector<OrderedOp>> ranks;  // rank r = row r, idle cells left out
  int stages = 0;                             // 1 + the largest stage named
  // Per rank, the comms format's SEND/RECV actions; all empty for the
  // compute-only format. Checked by validate_orders; the run's transfers
  // follow from the stages' devices either way.
  std::vector<std::vector<CommOp>> comms;
  bool has_comms() const {
    for (const auto& rank : comms)
      if (!rank.empty()) return true;
    return false;
  }

  // 1 + the largest micro-batch named: the count when the workload gives none.
  int microbatches() const {
    int m = 0;
    for (const auto& rank : ranks)
      for (const OrderedOp& op : rank) m = op.microbatch + 1 > m ? op.microbatch + 1 : m;
    return m;
  }

  // The rank of every stage's first op, -1 for a stage that has none
  // (header-only: analysis reads orders without linking schedules).
  std::vector<int> stage_ranks() const {
    std::vector<int> rank(stages, -1);
    for (std::size_t r = 0; r < ranks.size(); ++r)
      for (const OrderedOp& op : ranks[r])
        if (rank[op.stage] < 0) rank[op.stage] = static_cast<int>(r);
    return rank;
  }
};

// Throws InputError ("FILE: line 2 (rank 1), column 5: WHAT") for anything
// but F, B, I, W, (aFm;bBn)OVERLAP_F_B (an F, then a B or I) and SEND_F,
// RECV_F, SEND_B, RECV_B cells: sharding actions, garbage; also for a file
// without compute ops.
ExplicitOrders parse_orders_csv(const std::string& text, const std::string& file);
ExplicitOrders read_orders_csv(const std::string& path);

// Layers of every stage (inclusive, 0-based). Explicit placement: its ranges,
// one per stage, and each stage's host must be its rank's device; automatic
// placement: even_stage_layers, or with partition: balanced
// balanced_stage_layers on the stages' ranks (schedules/stages/stage_split.hpp).
// Also checks that ranks are devices of the platform and consecutive stages
// on different devices have a route. Throws InputError.
std::vector<std::pair<int, int>> orders_stage_layers(const ExplicitOrders& orders, const Workload& workload,
                                                     const Platform& platform);

// A CSV's rows are ranks, and rank r is device r: more rows than devices,
// or a row with ops on host memory (kind host), is an InputError "FILE:
// line N (rank r): ..." (what generate() refuses for every schedule, found
// before the orders are validated, which names ranks by their devices).
void check_ranks_compute(const ExplicitOrders& orders, const Platform& platform);

struct OrdersGraph {
  TaskGraph graph;
  std::vector<std::string> names;  // per task: "1F3", "transfer of 1F3's output to gpu2"
};

// `iterations` iterations of `microbatches` micro-batches run in exactly the
// given orders (each device repeats its order; an iteration's data depend
// only on itself), with the data dependencies, transfers and memory effects
// of docs/memory-model.md (I takes B's place in the chain; W holds the stash
// and the received gradient until it finishes). Costs: F and B are the sums
// of the stage's layers; I and W the sums of split_backward_flops (the
// layers' backward_input and backward_weight, else half of B each). The orders must hold
// every op exactly once with each stage on one rank (validate_orders finds
// what is wrong); throws std::invalid_argument otherwise. An order that
// deadlocks is built as given: the engine reports the deadlock.
// comm_seconds >= 0 (comms format only): every SEND and RECV cell becomes a
// Communication task of that many seconds on its rank, in the row's order,
// as PyTorch's dry-run simulator counts them (docs/pytorch.md); otherwise
// they are only checked (validate_orders) and transfers start when their
// producer finishes.
// task_names = false leaves OrdersGraph::names empty (the generators do not
// read them, and building them is a tenth of the work).
OrdersGraph build_orders_graph(const ExplicitOrders& orders, const std::vector<std::pair<int, int>>& stage_layers,
                               const Workload& workload, const Platform& platform, int microbatches, int iterations = 1,
                               double comm_seconds = -1, bool task_names = true);

}  // namespace pipesim
