// Explicit per-device orders (PyTorch compute CSVs): reading, stage layers,
// the task graph they describe, and validate_orders' static checks.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <map>
#include <tuple>

#include "analysis/run_validation.hpp"
#include "patterns/pattern_validation.hpp"
#include "reports/violations_report.hpp"
#include "schedules/flush/flush_sequences.hpp"
#include "schedules/pytorch/explicit_orders.hpp"
#include "schedules/pytorch/orders_validation.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/input_error.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"

namespace pipesim {
namespace {

using namespace testing;

const std::string kZb1p = std::string(PIPESIM_SOURCE_DIR) + "/tests/data/pytorch/zb1p_2rank_2stagep_compute.csv";

std::string all(const std::vector<Violation>& v) {
  std::string s;
  for (const Violation& x : v) s += x.kind + ": " + x.message + "\n";
  return s;
}

std::string error_of(const std::string& csv) {
  try {
    parse_orders_csv(csv, "o.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Stage s's sequence as row s: one stage per rank.
std::string to_csv(const std::vector<StageSequence>& sequences) {
  std::string csv;
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    for (std::size_t i = 0; i < sequences[s].size(); ++i)
      csv += (i ? "," : "") + std::to_string(s) + (sequences[s][i].kind == TaskKind::Forward ? "F" : "B") +
             std::to_string(sequences[s][i].microbatch);
    csv += "\n";
  }
  return csv;
}

Workload uniform(int layers, int microbatches, double weights = 0) {
  Workload w = chain_workload(std::vector<double>(layers, 1e-3), std::vector<double>(layers, 2e-3),
                              std::vector<double>(layers, 1e6), 1e6, std::vector<double>(layers, weights));
  w.microbatches = microbatches;
  return w;
}

TEST(OrdersCsv, ReadsPyTorchsZeroBubbleSchedule) {
  const ExplicitOrders o = read_orders_csv(kZb1p);
  ASSERT_EQ(o.ranks.size(), 2u);
  EXPECT_EQ(o.stages, 4);
  EXPECT_EQ(o.ranks[0].size(), 48u);  // stages 0 and 2, 8 micro-batches, F I W
  EXPECT_EQ(o.ranks[1].size(), 48u);
  EXPECT_EQ(cell_name(o.ranks[0][2]), "2F0");
  EXPECT_EQ(o.ranks[0][3].column, 5);  // column 4 is idle
  EXPECT_EQ(o.ranks[0][3].kind, TaskKind::Forward);
  EXPECT_EQ(cell_name(o.ranks[0][4]), "2I0");
  EXPECT_EQ(o.ranks[0][4].kind, TaskKind::BackwardInput);
  EXPECT_EQ(o.ranks[0][5].kind, TaskKind::BackwardWeight);
  EXPECT_EQ(o.stage_ranks(), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(all(validate_orders(o, 8, pattern_platform(2))), "");
}

TEST(OrdersCsv, IdleCellsSpacesAndLineEndings) {
  const ExplicitOrders o = parse_orders_csv(",0F0, 0B0 \r\n\n1F0,1B0\r\n\n", "o.csv");
  ASSERT_EQ(o.ranks.size(), 3u);  // the empty line in the middle is an idle rank
  EXPECT_EQ(o.ranks[0].size(), 2u);
  EXPECT_EQ(o.ranks[0][0].column, 2);
  EXPECT_TRUE(o.ranks[1].empty());
  EXPECT_EQ(cell_name(o.ranks[2][1]), "1B0");
}

TEST(OrdersCsv, RejectsWhatItCannotRead) {
  // Communication actions (the comms format) are read beside the ops: see
  // tests/schedules/pytorch/test_pytorch_orders.cpp.
  const ExplicitOrders comms = parse_orders_csv("0F0,0SEND_F0\n", "o.csv");
  ASSERT_EQ(comms.comms.size(), 1u);
  ASSERT_EQ(comms.comms[0].size(), 1u);
  EXPECT_EQ(cell_name(comms.comms[0][0]), "0SEND_F0");
  EXPECT_EQ(comms.comms[0][0].after, 1);
  // DualPipeV's pairs: two ops of one cell, the F marked as overlapping the next.
  const ExplicitOrders pair = parse_orders_csv("0F0\n0F1,(0F7;7B3)OVERLAP_F_B,1F2\n", "o.csv");
  ASSERT_EQ(pair.ranks[1].size(), 4u);
  EXPECT_EQ(cell_name(pair.ranks[1][1]), "0F7");
  EXPECT_TRUE(pair.ranks[1][1].overlaps_next);
  EXPECT_EQ(cell_name(pair.ranks[1][2]), "7B3");
  EXPECT_FALSE(pair.ranks[1][2].overlaps_next);
  EXPECT_EQ(pair.ranks[1][2].column, 2);
  EXPECT_EQ(pair.ranks[1][3].column, 3);
  EXPECT_EQ(pair.stages, 8);
  EXPECT_NE(error_of("0F0\n(0F7;7W3)OVERLAP_F_B\n").find("line 2 (rank 1), column 1: an overlapped pair"),
            std::string::npos);
  EXPECT_NE(error_of("(0F7;7B3)OVERLAP\n").find("expected an overlapped pair"), std::string::npos);
  EXPECT_NE(error_of("1UNSHARD\n").find("sharding actions"), std::string::npos);
  EXPECT_NE(error_of("0F0,F0\n").find("column 2: expected an op <stage><F|B|I|W><micro-batch>"), std::string::npos);
  EXPECT_NE(error_of("0F0,0Q0\n").find("got '0Q0'"), std::string::npos);
  EXPECT_NE(error_of("0F\n").find("expected a micro-batch after 'F'"), std::string::npos);
  EXPECT_NE(error_of("99999999999999999999F0\n").find("at most 1000000"), std::string::npos);
  EXPECT_EQ(error_of(",,\n\n"), "o.csv: rows: no ops: expected one row per rank with cells such as 0F0, 0B0");
  EXPECT_THROW(read_orders_csv("/nonexistent/o.csv"), InputError);
}

// A model's chain (embedding, blocks, head) on stages that divide its blocks:
// Megatron-LM's split, the blocks evenly, the embedding with the first stage
// and the head with the last (get_num_layers_to_build), where equal counts
// of the 10 layers would give stages 1 and 3 three layers each.
TEST(OrdersCsv, ModelChainsSplitTheirBlocksAsMegatron) {
  const Platform platform = pattern_platform(4);
  const ExplicitOrders o = parse_orders_csv("0F0,0B0,2F0,2B0\n1F0,1B0,3F0,3B0\n", "o.csv");
  using Ranges = std::vector<std::pair<int, int>>;
  Workload w = uniform(10, 1);
  for (Layer& layer : w.layers) layer.ops = LayerOps{};
  w.layers.front().ops->forward.key = "embedding.forward";
  for (std::size_t l = 1; l + 1 < w.layers.size(); ++l) w.layers[l].ops->forward.key = "block.forward";
  w.layers.back().ops->forward.key = "head.forward";
  EXPECT_EQ(orders_stage_layers(o, w, platform), (Ranges{{0, 2}, {3, 4}, {5, 6}, {7, 9}}));
  w.layers.resize(9);  // 7 blocks and no head: equal counts of the whole chain
  EXPECT_EQ(orders_stage_layers(o, w, platform), (Ranges{{0, 1}, {2, 3}, {4, 5}, {6, 8}}));
}

TEST(OrdersCsv, StageLayers) {
  const Platform platform = pattern_platform(4);
  const ExplicitOrders o = parse_orders_csv("0F0,0B0,2F0,2B0\n1F0,1B0,3F0,3B0\n", "o.csv");
  using Ranges = std::vector<std::pair<int, int>>;
  EXPECT_EQ(orders_stage_layers(o, uniform(4, 1), platform), (Ranges{{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
  EXPECT_EQ(orders_stage_layers(o, uniform(6, 1), platform), (Ranges{{0, 0}, {1, 2}, {3, 3}, {4, 5}}));
  EXPECT_THROW(orders_stage_layers(o, uniform(3, 1), platform), InputError);  // 4 stages, 3 layers

  Workload w = uniform(5, 1);
  w.placement.automatic = false;
  w.placement.stage_layers = {{0, 0}, {1, 2}, {3, 3}, {4, 4}};
  w.placement.stage_hosts = {"gpu0", "gpu1", "gpu0", "gpu1"};  // ranks' devices
  EXPECT_EQ(orders_stage_layers(o, w, platform), w.placement.stage_layers);
  w.placement.stage_hosts[2] = "gpu2";
  try {
    orders_stage_layers(o, w, platform);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "chain.yaml: placement[2].host: stage 2 runs on rank 0 (gpu0) in o.csv, got 'gpu2'");
  }
  w.placement.stage_layers.pop_back();
  w.placement.stage_hosts.pop_back();
  EXPECT_THROW(orders_stage_layers(o, w, platform), InputError);
  EXPECT_THROW(orders_stage_layers(parse_orders_csv("0F0\n1F0\n2F0\n", "o.csv"), uniform(4, 1), pattern_platform(2)),
               InputError);  // 3 ranks, 2 devices
}

// The 1F1B orders written as CSV give the graph of the 1f1b generator.
TEST(OrdersGraph, OneFOneBAsCsvIsTheGeneratorsGraph) {
  const int S = 4, M = 6;
  const Platform platform = pattern_platform(S);
  const Workload w = uniform(S, M, 1e6);
  const ExplicitOrders o = parse_orders_csv(to_csv(one_f_one_b_sequences(S, M)), "o.csv");
  EXPECT_EQ(all(validate_orders(o, M, platform)), "");
  const OrdersGraph mine = build_orders_graph(o, orders_stage_layers(o, w, platform), w, platform, M);
  const TaskGraph theirs = build_pipeline(make_stage_plan(w, platform), one_f_one_b_sequences(S, M), 1, S);
  ASSERT_EQ(mine.graph.size(), theirs.size());
  ASSERT_EQ(mine.names.size(), mine.graph.size());
  auto key = [](const Task& t) { return std::make_tuple(t.kind, t.stage, t.microbatch, t.device, t.peer, t.amount); };
  for (int d = 0; d < S; ++d) {
    ASSERT_EQ(mine.graph.device_order(d).size(), theirs.device_order(d).size());
    for (std::size_t i = 0; i < theirs.device_order(d).size(); ++i)
      EXPECT_EQ(key(mine.graph.task(mine.graph.device_order(d)[i])), key(theirs.task(theirs.device_order(d)[i])));
  }
  // Same memory effects, per (task kind, stage, micro-batch, device, category, when).
  auto effects = [&](const TaskGraph& g) {
    std::map<std::tuple<TaskKind, int, int, int, int, int>, double> sum;
    for (const TaskMemoryEffect& e : g.memory_effects()) {
      const Task& t = g.task(e.task);
      sum[{t.kind, t.stage, t.microbatch, e.device, static_cast<int>(e.category), static_cast<int>(e.when)}] += e.bytes;
    }
    return sum;
  };
  EXPECT_EQ(effects(mine.graph), effects(theirs));
  EXPECT_EQ(mine.graph.static_memory().size(), theirs.static_memory().size());
}

TEST(OrdersGraph, SplitBackwardHalvesBAndBalancesMemory) {
  const Platform platform = pattern_platform(2);
  const Workload w = uniform(4, 8, 1e6);
  const ExplicitOrders o = read_orders_csv(kZb1p);
  const OrdersGraph g = build_orders_graph(o, orders_stage_layers(o, w, platform), w, platform, 8);
  // 4 stages x 8 micro-batches x (F, I, W) and a transfer each way per boundary and micro-batch.
  EXPECT_EQ(g.graph.size(), 4u * 8 * 3 + 3 * 2 * 8);
  std::map<std::pair<int, int>, double> net;
  for (const TaskMemoryEffect& e : g.graph.memory_effects()) net[{e.device, static_cast<int>(e.category)}] += e.bytes;
  for (const auto& [where, bytes] : net) EXPECT_EQ(bytes, 0) << where.first << " " << where.second;
  for (TaskId t = 0; t < g.graph.size(); ++t) {
    const Task& task = g.graph.task(t);
    if (task.kind == TaskKind::BackwardInput || task.kind == TaskKind::BackwardWeight) {
      EXPECT_DOUBLE_EQ(task.amount, 1e9);  // half of B = 2 ms at 1 Tf
    }
    if (task.kind == TaskKind::BackwardWeight) {
      ASSERT_EQ(g.graph.deps_end(t) - g.graph.deps_begin(t), 1);
      EXPECT_EQ(g.graph.task(*g.graph.deps_begin(t)).kind, TaskKind::BackwardInput);
    }
  }
  EXPECT_EQ(g.names[g.graph.device_order(0)[2]], "2F0");
  EXPECT_THROW(build_orders_graph(parse_orders_csv("0F0\n", "o.csv"), {{0, 3}}, w, platform, 1),
               std::invalid_argument);  // no backward
}

struct StaticCase {
  const char* name;
  const char* csv;
  int microbatches;
  std::string expected;  // every violation, one per line
};

void PrintTo(const StaticCase& c, std::ostream* os) { *os << c.name; }

class OrdersStatic : public ::testing::TestWithParam<StaticCase> {};

TEST_P(OrdersStatic, ReportsEveryViolation) {
  const StaticCase& c = GetParam();
  EXPECT_EQ(all(validate_orders(parse_orders_csv(c.csv, "o.csv"), c.microbatches, pattern_platform(3))), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Validate, OrdersStatic,
    ::testing::Values(
        StaticCase{"valid", "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n", 2, ""},
        StaticCase{
            "consumer_before_producer_on_one_device", "1F0,0F0,1B0,0B0\n", 1,
            "dependency: gpu0 (rank 0) runs 1F0 at column 1 before 0F0 at column 2, whose output is its input\n"},
        StaticCase{"weight_gradient_before_input_gradient", "0F0,0W0,0I0\n", 1,
                   "dependency: gpu0 (rank 0) runs 0W0 at column 2 before 0I0 at column 3, which must run first (W "
                   "completes what I started)\n"},
        StaticCase{"backward_before_forward", "0B0,0F0\n", 1,
                   "dependency: gpu0 (rank 0) runs 0B0 at column 1 before 0F0 at column 2, whose stashed activations "
                   "it needs\n"},
        StaticCase{"gradient_order_on_one_device", "0F0,1F0,0B0,1B0\n", 1,
                   "dependency: gpu0 (rank 0) runs 0B0 at column 3 before 1B0 at column 4, which produces the gradient "
                   "it starts from\n"},
        StaticCase{"duplicate_and_missing", "0F0,0F0,0B0\n", 2,
                   "structure: 0F0 appears 2 times (gpu0 column 1, gpu0 column 2)\n"
                   "structure: no F of stage 0 for micro-batch 1 (the workload has micro-batches 0..1)\n"
                   "structure: no backward (B, or I and W) of stage 0 for micro-batch 1 (the workload has "
                   "micro-batches 0..1)\n"},
        StaticCase{"half_a_split_backward", "0F0,0I0,0F1,0B1,0W1\n", 2,
                   "structure: 0I0 without 0W0: a split backward needs both halves\n"
                   "structure: 0B1 and a split backward (0I1, 0W1) both appear: the backward runs once\n"},
        StaticCase{"micro_batch_out_of_range", "0F0,0B0,0F5\n", 1,
                   "structure: 0F5 on gpu0 (rank 0) at column 3: micro-batch 5 is outside the workload's 0..0\n"},
        StaticCase{"stage_on_two_ranks", "0F0,1F0\n1B0,0B0\n", 1,
                   "structure: stage 0 has ops on several ranks: gpu0 (rank 0), gpu1 (rank 1) (a stage's weights live "
                   "on one device)\n"
                   "structure: stage 1 has ops on several ranks: gpu0 (rank 0), gpu1 (rank 1) (a stage's weights live "
                   "on one device)\n"},
        StaticCase{"stage_without_ops", "0F0,0B0\n2F0,2B0\n", 1,
                   "structure: stage 1 has no ops (the orders name stages 0..2)\n"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace pipesim
