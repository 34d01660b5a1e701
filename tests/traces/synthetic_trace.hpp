// A hand-made PyTorch profiler trace whose attribution is worked out by hand
// (tests/traces/test_step_costs.cpp): one micro-batch of an embedding, one
// block and a head, its backward on an autograd thread, and an optimizer.
// Times in microseconds, as Kineto writes them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipesim::testing {

inline nlohmann::json synthetic_trace() {
  using nlohmann::json;
  json events = json::array();
  const auto annotation = [&](const std::string& name, double ts, double dur) {
    events.push_back(
        {{"ph", "X"}, {"cat", "user_annotation"}, {"name", name}, {"pid", 1}, {"tid", 1}, {"ts", ts}, {"dur", dur}});
  };
  const auto op = [&](const std::string& name, int tid, double ts, double dur, long long ext, long long seq,
                      const json& dims) {
    json args = {{"External id", ext}, {"Input Dims", dims}};
    if (seq >= 0) args["Sequence number"] = seq;
    events.push_back({{"ph", "X"},
                      {"cat", "cpu_op"},
                      {"name", name},
                      {"pid", 1},
                      {"tid", tid},
                      {"ts", ts},
                      {"dur", dur},
                      {"args", args}});
  };
  const auto kernel = [&](long long ext, double ts, double dur) {
    events.push_back({{"ph", "X"},
                      {"cat", "kernel"},
                      {"name", "k" + std::to_string(ext)},
                      {"pid", 0},
                      {"tid", 7},
                      {"ts", ts},
                      {"dur", dur},
                      {"args", {{"External id", ext}, {"stream", 7}}}});
  };
  const std::string node = "autograd::engine::evaluate_function: ";
  annotation("ProfilerStep#1", 0, 1000);
  annotation("Optimizer.zero_grad#SGD.zero_grad", 5, 5);
  annotation("embedding", 10, 20);
  op("aten::embedding", 1, 12, 5, 1, 100, json::array({{1000, 64}, {2, 8}}));
  kernel(1, 20, 4);
  annotation("block0", 30, 70);
  annotation("norm", 32, 4);  // nested in block0: part of it, not the head
  op("aten::mm", 1, 40, 5, 2, 101, json::array({{16, 64}, {64, 64}}));
  kernel(2, 50, 30);
  annotation("lm_head", 100, 50);
  op("aten::mm", 1, 110, 5, 3, 102, json::array({{16, 64}, {64, 1000}}));
  kernel(3, 115, 100);  // ends at 215, after the host reached the backward (200): device-bound
  // The backward, on the autograd thread.
  op(node + "MmBackward0", 2, 200, 50, 10, 102, json::array());
  op("aten::mm", 2, 205, 3, 4, -1, json::array({{16, 1000}, {1000, 64}}));  // input gradient: contracts over 1000
  kernel(4, 220, 20);
  op("aten::mm", 2, 210, 3, 5, -1, json::array({{64, 16}, {16, 1000}}));  // weight gradient: over the 16 tokens
  kernel(5, 240, 10);
  op(node + "MmBackward0", 2, 300, 50, 11, 101, json::array());
  op("aten::mm", 2, 305, 3, 6, -1, json::array({{16, 64}, {64, 64}}));
  kernel(6, 310, 40);
  op(node + "torch::autograd::AccumulateGrad", 2, 400, 20, 12, -1, json::array());
  op("aten::add_", 2, 405, 3, 7, -1, json::array({{64, 64}, {64, 64}}));
  kernel(7, 405, 10);
  op(node + "EmbeddingBackward0", 2, 450, 50, 13, 100, json::array());
  op("aten::embedding_dense_backward", 2, 455, 3, 8, -1, json::array({{2, 8, 64}, {2, 8}}));
  kernel(8, 460, 30);
  annotation("Optimizer.step#SGD.step", 600, 300);
  op("aten::_foreach_add_", 1, 605, 3, 9, -1, json::array());
  kernel(9, 610, 50);
  events.push_back({{"ph", "f"}, {"cat", "fwdbwd"}, {"id", 1}, {"pid", 1}, {"tid", 2}, {"ts", 200}});  // skipped
  return {{"schemaVersion", 1}, {"traceEvents", events}};
}

}  // namespace pipesim::testing
