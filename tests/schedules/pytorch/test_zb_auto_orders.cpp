// The zero-bubble paper's automatic schedule (schedules/pytorch/zb_auto_orders.hpp)
// against its reference: the orders below are what the paper's heuristic
// (sail-sg/zero-bubble-pipeline-parallelism at 39f2c186,
// megatron/core/pipeline_parallel/zerobubble/scheduler/zb.py, initial_solution;
// each stage's passes sorted by completion time) returned for these figures,
// run once outside the project. Its closed forms on equal times are in
// test_pytorch_schedules.cpp (ZB-H1's bubble at p stashes, none at 2p).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "schedules/pytorch/zb_auto_orders.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

struct Reference {
  int microbatches, limit;  // limit in units of p stashes
  std::vector<double> forward, input_grad, weight_grad;
  std::vector<std::string> rows;  // per stage, PyTorch's cells
};

// Stashes of one unit each; W frees them (a layer without a weight-gradient
// share: seed 000's stash).
ZbStageFigures figures(const Reference& r) {
  const std::size_t p = r.forward.size();
  ZbStageFigures f;
  f.forward = r.forward, f.input_grad = r.input_grad, f.weight_grad = r.weight_grad;
  f.forward_bytes.assign(p, 1), f.input_grad_bytes.assign(p, 0), f.weight_grad_bytes.assign(p, -1);
  f.limit.assign(p, static_cast<double>(r.limit * static_cast<int>(p)));
  return f;
}

std::string row_text(const std::vector<OrderedOp>& ops) {
  std::string text;
  for (const OrderedOp& op : ops) text += (text.empty() ? "" : ",") + cell_name(op);
  return text;
}

TEST(ZbAuto, OrdersAreTheReferenceHeuristics) {
  const std::vector<Reference> references = {
      {6,
       1,
       {1.0, 2.0, 0.5},
       {1.5, 1.0, 2.0},
       {0.5, 1.0, 0.25},
       {"0F0,0F1,0F2,0I0,0W0,0F3,0I1,0W1,0F4,0I2,0W2,0F5,0I3,0W3,0I4,0W4,0I5,0W5",
        "1F0,1F1,1I0,1F2,1I1,1W0,1F3,1I2,1W1,1F4,1I3,1W2,1F5,1I4,1W3,1I5,1W4,1W5",
        "2F0,2I0,2F1,2I1,2W0,2W1,2F2,2I2,2W2,2F3,2I3,2W3,2F4,2I4,2W4,2F5,2I5,2W5"}},
      {8,
       2,
       {2.0, 1.0, 1.25, 0.5},
       {1.0, 1.5, 0.5, 2.0},
       {0.25, 1.5, 1.0, 0.5},
       {"0F0,0F1,0F2,0F3,0I0,0F4,0W0,0I1,0F5,0I2,0F6,0W1,0W2,0I3,0F7,0W3,0I4,0W4,0I5,0W5,0I6,0W6,0I7,0W7",
        "1F0,1F1,1F2,1I0,1F3,1W0,1I1,1F4,1I2,1W1,1F5,1I3,1F6,1I4,1W2,1F7,1I5,1W3,1I6,1I7,1W4,1W5,1W6,1W7",
        "2F0,2F1,2I0,2F2,2W0,2I1,2F3,2W1,2I2,2W2,2F4,2I3,2W3,2F5,2I4,2W4,2F6,2I5,2W5,2F7,2I6,2W6,2I7,2W7",
        "3F0,3I0,3F1,3I1,3F2,3I2,3F3,3I3,3W0,3W1,3F4,3I4,3W2,3W3,3W4,3F5,3I5,3F6,3I6,3W5,3W6,3F7,3I7,3W7"}},
      {6,
       1,
       {1.0, 1.0, 1.0, 2.0},
       {1.0, 1.0, 1.0, 1.5},
       {1.0, 1.0, 1.0, 0.5},
       {"0F0,0F1,0F2,0F3,0I0,0W0,0F4,0I1,0W1,0F5,0I2,0W2,0I3,0W3,0I4,0W4,0I5,0W5",
        "1F0,1F1,1F2,1I0,1F3,1W0,1I1,1F4,1W1,1I2,1F5,1W2,1I3,1W3,1I4,1W4,1I5,1W5",
        "2F0,2F1,2I0,2F2,2W0,2I1,2F3,2W1,2I2,2F4,2W2,2I3,2F5,2W3,2I4,2W4,2I5,2W5",
        "3F0,3I0,3F1,3I1,3F2,3I2,3F3,3I3,3W0,3F4,3I4,3W1,3F5,3I5,3W2,3W3,3W4,3W5"}},
  };
  for (const Reference& r : references) {
    const ExplicitOrders orders = zb_auto_orders(figures(r), r.microbatches);
    ASSERT_EQ(orders.ranks.size(), r.rows.size());
    for (std::size_t s = 0; s < r.rows.size(); ++s) EXPECT_EQ(row_text(orders.ranks[s]), r.rows[s]) << "stage " << s;
  }
}

// Where the reference's rules would put a stage's forward before the stage
// before it has (in its warm-up, when a stage reaches the last micro-batch;
// in its rounds, when a later stage wants a forward an earlier one does
// not), the reference fails its own checks or returns orders that deadlock.
// Figures on which it did (found by running the two on random figures):
// the runs complete, every device within its limit of stashes (its
// activations; the transfer buffers come on top, as in every schedule).
TEST(ZbAuto, WhereTheReferenceFailsTheRunsComplete) {
  struct Case {
    int microbatches, limit;
    std::vector<double> forward, input_grad, weight_grad;
  };
  const std::vector<Case> cases = {
      {5, 2, {2.0, 0.5, 2.0}, {1.0, 1.5, 1.5}, {0.25, 0.5, 1.0}},
      {4, 1, {2.0, 0.5, 1.25, 0.5}, {0.5, 1.5, 0.5, 1.0}, {0.25, 1.0, 0.25, 1.5}},
      {9, 2, {1.0, 2.0, 0.5, 1.25, 0.5}, {2.0, 0.5, 1.5, 0.5, 2.0}, {0.25, 0.5, 0.5, 0.25, 1.5}}};
  for (const Case& c : cases) {
    const std::size_t p = c.forward.size();
    std::string yaml = "microbatches: " + std::to_string(c.microbatches) +
                       "\ninput: 1KiB\nschedule: {name: zb-auto, memory_limit: " + std::to_string(c.limit) +
                       "}\nlayers:\n";
    for (std::size_t s = 0; s < p; ++s)
      yaml += "  - {name: l" + std::to_string(s) + ", forward: " + std::to_string(c.forward[s]) +
              "s, backward: " + std::to_string(c.input_grad[s] + c.weight_grad[s]) +
              "s, backward_input: " + std::to_string(c.input_grad[s]) +
              "s, backward_weight: " + std::to_string(c.weight_grad[s]) + "s, activation: 1KiB}\n";
    const std::string w = testing::write_file("zb-auto.yaml", yaml), json = testing::temp_path("zb-auto.json");
    const testing::CliResult r = testing::run_pipesim(
        "run " + testing::complete_platform(static_cast<int>(p), "1PBps") + " " + w + " --quiet --json " + json);
    EXPECT_EQ(r.exit_code, 0) << yaml << r.err;
    const nlohmann::json j = nlohmann::json::parse(testing::read_text(json));
    for (const auto& d : j["devices"])
      EXPECT_LE(d["category_peaks"]["activations"].get<double>(), c.limit * p * 1024.0) << yaml;
  }
}

// A limit below one stash cannot hold a single forward: no variant fits.
TEST(ZbAuto, ALimitBelowOneStashFitsNothing) {
  Reference r{4, 1, {1.0, 1.0}, {1.0, 1.0}, {1.0, 1.0}, {}};
  ZbStageFigures f = figures(r);
  f.limit = {0.5, 0.5};
  EXPECT_THROW(zb_auto_orders(f, r.microbatches), std::invalid_argument);
  EXPECT_THROW(zb_auto_orders(figures(r), 0), std::invalid_argument);
}

}  // namespace
}  // namespace pipesim
