// The generators' per-rank orders against PyTorch's schedules
// (torch/distributed/pipelining/schedules.py), derived here independently:
// the reference functions below follow PyTorch's own step-by-step
// construction (time steps with idle padding, per-stage counters, the list
// of backward op ids for the delayed weight ops), then drop the idle steps;
// the generators compute the same orders in closed form. Plus PyTorch's own
// artifact, the zb1p compute CSV, and literal orders derived by hand.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "schedules/pytorch/explicit_orders.hpp"
#include "schedules/pytorch/generated_orders_internal.hpp"
#include "schedules/pytorch/orders_validation.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/platform_table.hpp"

namespace pipesim {
namespace {

// One action of PyTorch's pipeline_order: "2F0", or nothing (an idle step).
using Step = std::optional<std::string>;
using Rank = std::vector<Step>;

std::string act(int stage, char type, int mb) { return std::to_string(stage) + type + std::to_string(mb); }

// Rank rows without the idle steps, ops separated by spaces.
std::vector<std::string> compact(const std::vector<Rank>& ranks) {
  std::vector<std::string> rows;
  for (const Rank& r : ranks) {
    std::string row;
    for (const Step& s : r)
      if (s) row += (row.empty() ? "" : " ") + *s;
    rows.push_back(row);
  }
  return rows;
}

std::vector<std::string> rows_of(const ExplicitOrders& o) {
  std::vector<std::string> rows;
  for (const auto& rank : o.ranks) {
    std::string row;
    for (const OrderedOp& op : rank) row += (row.empty() ? "" : " ") + cell_name(op);
    rows.push_back(row);
  }
  return rows;
}

// PyTorch's _get_warmup_ops.
int warmup_ops(int rank, int local_stages, int per_round, int group, int microbatches, int factor) {
  return std::min((local_stages - 1) * per_round + factor * ((group - 1) - rank), microbatches * local_stages);
}

// PyTorch's _get_1f1b_rank_ops with the stage-index functions of
// ScheduleInterleaved1F1B / ScheduleInterleavedZeroBubble, step by step.
std::vector<Rank> pytorch_interleaved(int group, int local_stages, int microbatches, bool zero_bubble) {
  const int rounds = std::max(1, microbatches / group);
  const int per_round = microbatches / rounds;
  std::vector<Rank> out;
  for (int rank = 0; rank < group; ++rank) {
    const int warmup = warmup_ops(rank, local_stages, per_round, group, microbatches, zero_bubble ? 1 : 2);
    const int microbatch_ops = local_stages * microbatches;
    const int fwd_bwd = microbatch_ops - warmup;
    const int cooldown = microbatch_ops - fwd_bwd;
    const int total = warmup + fwd_bwd + cooldown;
    auto forward_stage = [&](int step) { return (step / per_round) % local_stages * group + rank; };
    auto backward_stage = [&](int step) {
      return (local_stages - 1 - ((step - warmup) / per_round) % local_stages) * group + rank;
    };
    std::map<int, int> fwd_mb, bwd_mb, weight_mb;
    Rank ops(rank, std::nullopt);
    int post_warmup = local_stages * group + 2 * (group - 1 - rank) - (warmup + rank);
    if (zero_bubble) post_warmup = group - rank - 1;
    const int num_1f1b = zero_bubble ? rank : 0;
    const char backward = zero_bubble ? 'I' : 'B';
    std::vector<int> backward_op_ids;
    int weight_count = 0;
    auto weight = [&](int op) {
      if (!(zero_bubble && op - warmup >= num_1f1b)) return;
      const int s = backward_stage(backward_op_ids[weight_count]);
      ops.push_back(act(s, 'W', weight_mb[s]++));
      ++weight_count;
    };
    for (int op = 0; op < total; ++op) {
      if (op < warmup) {
        const int s = forward_stage(op);
        ops.push_back(act(s, 'F', fwd_mb[s]++));
        if (op == warmup - 1) ops.insert(ops.end(), std::max(0, post_warmup), std::nullopt);
      } else if (op < warmup + fwd_bwd) {
        const int fs = forward_stage(op);
        ops.push_back(act(fs, 'F', fwd_mb[fs]++));
        const int bs = backward_stage(op);
        ops.push_back(act(bs, backward, bwd_mb[bs]++));
        backward_op_ids.push_back(op);
        weight(op);
      } else {
        if (!zero_bubble) ops.push_back(std::nullopt);
        const int bs = backward_stage(op);
        ops.push_back(act(bs, backward, bwd_mb[bs]++));
        backward_op_ids.push_back(op);
        weight(op);
      }
    }
    while (zero_bubble && weight_count < static_cast<int>(backward_op_ids.size())) {
      const int s = backward_stage(backward_op_ids[weight_count]);
      ops.push_back(act(s, 'W', weight_mb[s]++));
      ++weight_count;
    }
    out.push_back(ops);
  }
  return out;
}

// ScheduleLoopedBFS._calculate_single_rank_operations.
std::vector<Rank> pytorch_looped_bfs(int group, int local_stages, int microbatches) {
  std::vector<Rank> out;
  for (int rank = 0; rank < group; ++rank) {
    std::vector<int> stages;
    for (int s = rank; s < group * local_stages; s += group) stages.push_back(s);
    Rank ops(rank, std::nullopt);
    for (int s : stages)
      for (int mb = 0; mb < microbatches; ++mb) ops.push_back(act(s, 'F', mb));
    ops.insert(ops.end(), 2 * (group - 1 - rank), std::nullopt);
    for (auto s = stages.rbegin(); s != stages.rend(); ++s)
      for (int mb = microbatches - 1; mb >= 0; --mb) ops.push_back(act(*s, 'B', mb));
    out.push_back(ops);
  }
  return out;
}

// ScheduleZBVZeroBubble._calculate_single_rank_operations.
std::vector<Rank> pytorch_zbv(int group, int microbatches) {
  const int num_stages = 2 * group;
  std::vector<Rank> out;
  for (int rank = 0; rank < group; ++rank) {
    const int n_micro = std::max(2 * group - 1, microbatches);
    Rank ops(rank, std::nullopt);
    int f0 = 0, f1 = 0, b0 = 0, b1 = 0;
    const int chunk0 = rank, chunk1 = num_stages - 1 - rank;
    for (int i = 0; i < 2 * (group - rank) - 1; ++i) ops.push_back(act(chunk0, 'F', f0++));
    for (int i = 0; i < rank; ++i) {
      ops.push_back(act(chunk1, 'F', f1++));
      ops.push_back(act(chunk0, 'F', f0++));
    }
    for (int i = 0; i < group - rank; ++i) {
      ops.push_back(act(chunk1, 'F', f1++));
      ops.push_back(act(chunk1, 'I', b1));
      ops.push_back(act(chunk1, 'W', b1));
      ++b1;
    }
    while (f1 < f0 || f0 < n_micro) {
      if (f0 < n_micro) ops.push_back(act(chunk0, 'F', f0++));
      ops.push_back(act(chunk0, 'I', b0));
      ops.push_back(act(chunk0, 'W', b0));
      ++b0;
      ops.push_back(act(chunk1, 'F', f1++));
      ops.push_back(act(chunk1, 'I', b1));
      ops.push_back(act(chunk1, 'W', b1));
      ++b1;
    }
    int w0 = b0, w1 = b1;
    for (int i = 0; i < rank; ++i) {
      ops.push_back(act(chunk0, 'I', b0++));
      ops.push_back(act(chunk1, 'I', b1++));
    }
    for (int i = 0; i < group - rank; ++i) {
      ops.push_back(act(chunk0, 'I', b0++));
      ops.push_back(act(chunk0, 'W', w0++));
    }
    while (w1 < b1) ops.push_back(act(chunk1, 'W', w1++));
    while (w0 < b0) ops.push_back(act(chunk0, 'W', w0++));
    // Micro-batches past the real count become idle steps.
    for (Step& s : ops)
      if (s && std::stoi(s->substr(s->find_first_of("FIW") + 1)) >= microbatches) s.reset();
    out.push_back(ops);
  }
  return out;
}

Platform platform_of(int n) { return testing::devices_only_platform(n); }

std::string violations(const ExplicitOrders& o, int M) {
  std::string all;
  for (const Violation& v : validate_orders(o, M, platform_of(static_cast<int>(o.ranks.size()))))
    all += v.kind + ": " + v.message + "\n";
  return all;
}

TEST(PytorchOrders, InterleavedEqualPyTorchOnAGrid) {
  int checked = 0;
  for (int p : {1, 2, 3, 4, 8})
    for (int v : {1, 2, 3, 4})
      for (int M = 1; M <= 20; ++M) {
        const int rounds = std::max(1, M / p);
        const std::string at = "p=" + std::to_string(p) + " v=" + std::to_string(v) + " M=" + std::to_string(M);
        if (M % rounds != 0) {  // PyTorch refuses these micro-batch counts, and so does the generator
          EXPECT_THROW(interleaved_1f1b_orders(p, v, M), std::invalid_argument) << at;
          EXPECT_THROW(interleaved_zero_bubble_orders(p, v, M), std::invalid_argument) << at;
          continue;
        }
        const ExplicitOrders one = interleaved_1f1b_orders(p, v, M);
        EXPECT_EQ(rows_of(one), compact(pytorch_interleaved(p, v, M, false))) << at;
        EXPECT_EQ(violations(one, M), "") << at;
        const ExplicitOrders zb = interleaved_zero_bubble_orders(p, v, M);
        EXPECT_EQ(rows_of(zb), compact(pytorch_interleaved(p, v, M, true))) << at;
        EXPECT_EQ(violations(zb, M), "") << at;
        EXPECT_EQ(one.stages, p * v);
        ++checked;
      }
  EXPECT_EQ(checked, 296);  // 74 valid (p, M) pairs x 4 values of v
}

TEST(PytorchOrders, LoopedBfsEqualsPyTorchOnAGrid) {
  for (int p : {1, 2, 3, 4, 8})
    for (int v : {1, 2, 3})
      for (int M = 1; M <= 12; ++M) {
        const ExplicitOrders o = looped_bfs_orders(p, v, M);
        EXPECT_EQ(rows_of(o), compact(pytorch_looped_bfs(p, v, M))) << p << " " << v << " " << M;
        EXPECT_EQ(violations(o, M), "");
      }
}

TEST(PytorchOrders, ZbvEqualsPyTorchOnAGrid) {
  for (int p : {1, 2, 3, 4, 6, 8})
    for (int M = 1; M <= 24; ++M) {
      const ExplicitOrders o = zbv_orders(p, M);
      EXPECT_EQ(rows_of(o), compact(pytorch_zbv(p, M))) << p << " " << M;
      EXPECT_EQ(violations(o, M), "") << p << " " << M;
      const std::vector<int> rank = o.stage_ranks();  // the V
      for (int s = 0; s < 2 * p; ++s) EXPECT_EQ(rank[s], s < p ? s : 2 * p - 1 - s);
    }
}

// PyTorch's own artifact: ScheduleInterleavedZeroBubble on 2 ranks, 2 stages
// each, 8 micro-batches (test/distributed/pipelining/artifacts).
TEST(PytorchOrders, InterleavedZeroBubbleIsPyTorchsZb1pCsv) {
  const ExplicitOrders csv =
      read_orders_csv(std::string(PIPESIM_SOURCE_DIR) + "/tests/data/pytorch/zb1p_2rank_2stagep_compute.csv");
  EXPECT_EQ(rows_of(interleaved_zero_bubble_orders(2, 2, 8)), rows_of(csv));
}

// Derived by hand from PyTorch's rules: 2 ranks, 2 stages each, 4
// micro-batches (rounds of 2): rank 0 warms up with (2-1)·2 + 2 = 4
// forwards, rank 1 with 2; the backwards visit the local stages in reverse.
TEST(PytorchOrders, SmallCasesByHand) {
  EXPECT_EQ(rows_of(interleaved_1f1b_orders(2, 2, 4)),
            (std::vector<std::string>{"0F0 0F1 2F0 2F1 0F2 2B0 0F3 2B1 2F2 0B0 2F3 0B1 2B2 2B3 0B2 0B3",
                                      "1F0 1F1 3F0 3B0 3F1 3B1 1F2 1B0 1F3 1B1 3F2 3B2 3F3 3B3 1B2 1B3"}));
  // ZB-H1 = the zero-bubble schedule with one stage per rank: 1F1B's
  // warm-up, rank r's W r backwards late.
  EXPECT_EQ(rows_of(interleaved_zero_bubble_orders(3, 1, 4)),
            (std::vector<std::string>{"0F0 0F1 0F2 0I0 0W0 0F3 0I1 0W1 0I2 0W2 0I3 0W3",
                                      "1F0 1F1 1I0 1F2 1I1 1W0 1F3 1I2 1W1 1I3 1W2 1W3",
                                      "2F0 2I0 2F1 2I1 2F2 2I2 2W0 2F3 2I3 2W1 2W2 2W3"}));
  EXPECT_EQ(rows_of(looped_bfs_orders(2, 2, 2)),
            (std::vector<std::string>{"0F0 0F1 2F0 2F1 2B1 2B0 0B1 0B0", "1F0 1F1 3F0 3F1 3B1 3B0 1B1 1B0"}));
  // ZB-V on 2 ranks, 3 micro-batches (planned for 2p-1 = 3).
  EXPECT_EQ(rows_of(zbv_orders(2, 3)),
            (std::vector<std::string>{"0F0 0F1 0F2 3F0 3I0 3W0 3F1 3I1 3W1 0I0 0W0 3F2 3I2 3W2 0I1 0W1 0I2 0W2",
                                      "1F0 2F0 1F1 2F1 2I0 2W0 1F2 1I0 1W0 2F2 2I1 2W1 1I1 2I2 1I2 1W1 2W2 1W2"}));
}

// ZB-H2: one stage per rank, warm-up up to 2p-1 forwards on rank 0, I first.
TEST(PytorchOrders, ZbH2Order) {
  const ExplicitOrders o = zb_h2_orders(4, 8);
  EXPECT_EQ(violations(o, 8), "");
  EXPECT_EQ(rows_of(o)[0],
            "0F0 0F1 0F2 0F3 0F4 0F5 0F6 0I0 0W0 0I1 0F7 0I2 0W1 0I3 0W2 0I4 0W3 0I5 0W4 0I6 0W5 "
            "0W6 0I7 0W7");
  EXPECT_EQ(rows_of(o)[3],
            "3F0 3I0 3F1 3I1 3F2 3I2 3F3 3I3 3F4 3I4 3F5 3I5 3F6 3I6 3W0 3F7 3I7 3W1 3W2 3W3 3W4 "
            "3W5 3W6 3W7");
  for (int p : {1, 2, 3, 5, 8})
    for (int M = 1; M <= 20; ++M) EXPECT_EQ(violations(zb_h2_orders(p, M), M), "") << p << " " << M;
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

std::string comms_violations(const std::string& csv) { return violations(parse_orders_csv(csv, "c.csv"), 1); }

// The comms format: each crossing sent once after its producer and received
// once before its consumer, on the stages' ranks.
TEST(PytorchOrders, CommsFormatChecks) {
  EXPECT_EQ(comms_violations("0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n"), "");
  EXPECT_EQ(comms_violations("0F0,0SEND_F0,0RECV_B0,0B0\n1F0,1B0,1SEND_B0\n"),
            "structure: 0SEND_F0 on gpu0 (rank 0) at column 2 has no matching 1RECV_F0 on gpu1 (rank 1)\n");
  EXPECT_EQ(comms_violations("0F0,0B0\n1F0,1B0,1SEND_B0\n"),
            "structure: no 0SEND_F0 and 1RECV_F0: stage 0's output for micro-batch 0 goes from gpu0 (rank 0) to gpu1 "
            "(rank 1)\n"
            "structure: 1SEND_B0 on gpu1 (rank 1) at column 3 has no matching 0RECV_B0 on gpu0 (rank 0)\n");
  EXPECT_EQ(comms_violations("0SEND_F0,0F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n"),
            "dependency: 0SEND_F0 on gpu0 (rank 0) at column 1 comes before 0F0, which produces what it sends\n");
  EXPECT_EQ(comms_violations("0F0,0SEND_F0,0B0,0RECV_B0\n1RECV_F0,1F0,1B0,1SEND_B0,1SEND_F0\n"),
            "dependency: 0RECV_B0 on gpu0 (rank 0) at column 4 comes after 0B0, which needs what it receives\n"
            "structure: 1SEND_F0 on gpu1 (rank 1) at column 5: nothing crosses devices there (no such stage or "
            "micro-batch, or both stages on one rank)\n");
  EXPECT_EQ(comms_violations("0F0,0SEND_F0,0RECV_B0,0B0,0SEND_F0\n1RECV_F0,1F0,1B0,1SEND_B0\n"),
            "structure: 0SEND_F0 appears 2 times (0SEND_F0 on gpu0 (rank 0) at column 2, 0SEND_F0 on gpu0 (rank 0) "
            "at column 5)\n");
  EXPECT_EQ(comms_violations("0F0,0SEND_F0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0,0RECV_B0\n"),
            "structure: 0RECV_B0 on gpu1 (rank 1) at column 5: stage 0 runs on gpu0 (rank 0)\n");
}

// PyTorch's own lowering of the zb1p schedule (I and W merged into B where
// adjacent, SEND and RECV added) passes the checks and has the same ops.
TEST(PytorchOrders, Zb1pCommsCsvIsValid) {
  const std::string dir = std::string(PIPESIM_SOURCE_DIR) + "/tests/data/pytorch/";
  const ExplicitOrders comms = read_orders_csv(dir + "zb1p_2rank_2stagep_comms.csv");
  EXPECT_EQ(violations(comms, 8), "");
  EXPECT_TRUE(comms.has_comms());
  EXPECT_EQ(comms.stage_ranks(), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(comms.comms[0].size() + comms.comms[1].size(), 4u * 3 * 8);  // 3 crossings x 2 ways x send + recv
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// DualPipeV's orders equal PyTorch's artifact for 4 ranks and 10
// micro-batches, cell for cell, overlapped pairs included, written and read.
TEST(PytorchOrders, DualPipeVIsPyTorchsCsv) {
  const std::string dir = std::string(PIPESIM_SOURCE_DIR) + "/tests/data/pytorch/";
  EXPECT_EQ(orders_csv_text(dualpipev_orders(4, 10)), testing::read_text(dir + "dualpipev_4rank_10mb.csv"));
  const ExplicitOrders read = read_orders_csv(dir + "dualpipev_4rank_10mb.csv");
  const ExplicitOrders made = dualpipev_orders(4, 10);
  ASSERT_EQ(read.ranks.size(), made.ranks.size());
  int pairs = 0;
  for (std::size_t r = 0; r < made.ranks.size(); ++r) {
    ASSERT_EQ(read.ranks[r].size(), made.ranks[r].size()) << r;
    for (std::size_t i = 0; i < made.ranks[r].size(); ++i) {
      EXPECT_EQ(cell_name(read.ranks[r][i]), cell_name(made.ranks[r][i])) << r << " " << i;
      EXPECT_EQ(read.ranks[r][i].overlaps_next, made.ranks[r][i].overlaps_next) << r << " " << i;
      pairs += made.ranks[r][i].overlaps_next;
    }
  }
  EXPECT_EQ(pairs, 41);  // the file's OVERLAP_F_B cells
  EXPECT_EQ(read.microbatches(), 10);
  EXPECT_EQ(read.stages, 8);
  for (int p : {1, 2, 3, 4, 6})
    for (int M = 2 * p; M <= 2 * p + 8; ++M) {
      const ExplicitOrders o = dualpipev_orders(p, M);
      EXPECT_EQ(violations(o, M), "") << p << " " << M;  // every F once, B or I and W once
      const std::vector<int> rank = o.stage_ranks();     // the V
      for (int s = 0; s < 2 * p; ++s) EXPECT_EQ(rank[s], s < p ? s : 2 * p - 1 - s);
    }
  EXPECT_THROW(dualpipev_orders(4, 7), std::invalid_argument);
}

}  // namespace
}  // namespace pipesim
