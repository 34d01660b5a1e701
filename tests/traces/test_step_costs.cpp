// The step's attribution against the synthetic trace worked out by hand
// (tests/traces/synthetic_trace.hpp): every second of the step goes to one
// piece, host- or device-bound, and backward kernels split into input and
// weight gradients.
#include <gtest/gtest.h>

#include "sim/input_error.hpp"
#include "tests/traces/synthetic_trace.hpp"
#include "traces/step_costs.hpp"
#include "traces/trace_calibration.hpp"

namespace pipesim {
namespace {

constexpr double kUs = 1e-6;

StepCosts attributed(const nlohmann::json& trace) { return attribute_step(parse_kineto_trace(trace.dump(), "t.json")); }

const StepPiece& piece(const StepCosts& c, const std::string& label, bool backward) {
  for (const StepPiece& p : c.pieces)
    if (p.label == label && p.backward == backward) return p;
  throw std::runtime_error("no piece " + label);
}

TEST(StepCosts, EverySecondOfTheStepGoesToOnePiece) {
  const StepCosts c = attributed(testing::synthetic_trace());
  EXPECT_EQ(c.step, "ProfilerStep#1");
  EXPECT_NEAR(c.seconds, 1000 * kUs, 1e-12);
  EXPECT_EQ(c.tokens, 16);            // the embedding's token ids, 2 x 8
  EXPECT_DOUBLE_EQ(c.kernel_gap, 0);  // 8 gaps: fewer than 10, no decile
  // In the order they start: zero_grad, forward, backward, step.
  std::vector<std::string> order;
  for (const StepPiece& p : c.pieces) order.push_back(p.label + (p.backward ? ".B" : ".F"));
  EXPECT_EQ(order, (std::vector<std::string>{"optimizer.F", "embedding.F", "block0.F", "lm_head.F", "lm_head.B",
                                             "block0.B", "embedding.B"}));
  // Host-bound pieces take their host span to the next claim; lm_head's
  // forward ends with its kernel (215 us), after the host reached the backward (200).
  EXPECT_NEAR(piece(c, "optimizer", false).seconds, (10 + 400) * kUs, 1e-12);
  EXPECT_NEAR(piece(c, "embedding", false).seconds, 20 * kUs, 1e-12);
  EXPECT_NEAR(piece(c, "block0", false).seconds, 70 * kUs, 1e-12);
  EXPECT_NEAR(piece(c, "lm_head", false).seconds, 115 * kUs, 1e-12);
  EXPECT_NEAR(piece(c, "lm_head", true).seconds, 85 * kUs, 1e-12);
  EXPECT_NEAR(piece(c, "block0", true).seconds, 150 * kUs, 1e-12);
  EXPECT_NEAR(piece(c, "embedding", true).seconds, 150 * kUs, 1e-12);
  double sum = 0;
  for (const StepPiece& p : c.pieces) sum += p.seconds;
  EXPECT_NEAR(sum, c.seconds, 1e-12);
}

TEST(StepCosts, KernelsGoToTheOpThatLaunchedThemAndWeightGradientsAreToldApart) {
  const StepCosts c = attributed(testing::synthetic_trace());
  EXPECT_NEAR(piece(c, "lm_head", false).device_seconds, 100 * kUs, 1e-12);
  // Head backward: the GEMM over 1000 is the input gradient, the one over the 16 tokens the weight's.
  EXPECT_NEAR(piece(c, "lm_head", true).device_seconds, 30 * kUs, 1e-12);
  EXPECT_NEAR(piece(c, "lm_head", true).weight_device_seconds, 10 * kUs, 1e-12);
  // Block backward: its GEMM (64 x 64, not over tokens) and the AccumulateGrad add (weight).
  EXPECT_NEAR(piece(c, "block0", true).device_seconds, 50 * kUs, 1e-12);
  EXPECT_NEAR(piece(c, "block0", true).weight_device_seconds, 10 * kUs, 1e-12);
  EXPECT_EQ(piece(c, "block0", true).kernels, 2);
  // The embedding's gradient is its weight's.
  EXPECT_NEAR(piece(c, "embedding", true).weight_device_seconds, 30 * kUs, 1e-12);
  EXPECT_NEAR(piece(c, "optimizer", false).device_seconds, 50 * kUs, 1e-12);
}

TEST(StepCosts, CalibrationAveragesRunsAndSplitsTheBackwardAsItsKernels) {
  const StepCosts c = attributed(testing::synthetic_trace());
  const TraceCalibration cal = calibration_from_step(c);
  EXPECT_EQ(cal.microbatches, 1);
  EXPECT_EQ(cal.blocks, 1);
  const auto& s = cal.step.seconds;
  EXPECT_NEAR(s.at("head.forward"), 115 * kUs, 1e-12);
  EXPECT_NEAR(s.at("head.backward_input"), 85 * kUs * 2 / 3, 1e-12);
  EXPECT_NEAR(s.at("head.backward_weight"), 85 * kUs / 3, 1e-12);
  EXPECT_NEAR(s.at("block.backward_input"), 120 * kUs, 1e-12);
  EXPECT_NEAR(s.at("block.backward_weight"), 30 * kUs, 1e-12);
  EXPECT_NEAR(s.at("embedding.backward_input"), 0, 1e-12);
  EXPECT_NEAR(s.at("embedding.backward_weight"), 150 * kUs, 1e-12);
  EXPECT_NEAR(s.at("optimizer.step"), 410 * kUs, 1e-12);
  EXPECT_NEAR(cal.device.seconds.at("block.backward_weight"), 10 * kUs, 1e-12);
  const std::string yaml = calibration_yaml(cal, c, "t.json");
  EXPECT_NE(yaml.find("\nhead.forward: 115.000us\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("#   head.forward: 100.000us\n"), std::string::npos) << yaml;
}

// A name too long to be a label is not matched (std::regex would recurse
// once per character and overflow the stack on 2 MB of digits).
TEST(StepCosts, AVeryLongNameIsNoLabel) {
  nlohmann::json t = testing::synthetic_trace();
  for (auto& e : t["traceEvents"])
    if (e["name"] == "lm_head") e["name"] = "block" + std::string(2000000, '1');
  const StepCosts c = attributed(t);
  for (const StepPiece& p : c.pieces) EXPECT_LE(p.label.size(), 256u);
  EXPECT_EQ(c.pieces.size(), 5u);  // no head: its time goes to block0
}

TEST(StepCosts, TheLastStepIsRead) {
  nlohmann::json t = testing::synthetic_trace();
  t["traceEvents"].push_back({{"ph", "X"},
                              {"cat", "user_annotation"},
                              {"name", "ProfilerStep#0"},
                              {"pid", 1},
                              {"tid", 1},
                              {"ts", -5000},
                              {"dur", 10}});
  EXPECT_EQ(attributed(t).step, "ProfilerStep#1");
}

TEST(StepCosts, ATraceWithoutAStepOrABlockIsAnInputError) {
  nlohmann::json no_step = testing::synthetic_trace();
  no_step["traceEvents"][0]["name"] = "train";
  try {
    attributed(no_step);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.json: traceEvents: no ProfilerStep#N annotation"), std::string::npos)
        << e.what();
  }
  nlohmann::json no_block = testing::synthetic_trace();
  for (auto& e : no_block["traceEvents"])
    if (e["name"] == "block0") e["name"] = "mlp";
  try {
    attributed(no_block);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ProfilerStep#1 has no record_function region named like a block"),
              std::string::npos)
        << e.what();
  }
  TraceLabels labels;
  labels.block = "mlp";
  no_block["traceEvents"][0]["name"] = "ProfilerStep#1";
  EXPECT_EQ(attribute_step(parse_kineto_trace(no_block.dump(), "t.json"), labels).pieces.size(), 7u);
}

}  // namespace
}  // namespace pipesim
