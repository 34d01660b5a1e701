// A hand-made PyTorch execution trace (schema 1.1.1-chakra) of the same step
// as synthetic_trace.hpp, whose saved bytes are worked out by hand
// (tests/traces/test_saved_bytes.cpp): an embedding, one block and a head
// (lm_head, loss), its backward on the autograd thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipesim::testing {

inline nlohmann::json synthetic_execution_trace() {
  using nlohmann::json;
  json nodes = json::array();
  long long rf = 0;
  // A tensor: [tensor id, storage id, offset, numel, itemsize, device].
  const auto tensor = [](long long storage, long long numel, long long itemsize = 2, const char* device = "cuda:0") {
    return json::array({storage * 10, storage, 0, numel, itemsize, device});
  };
  const auto side = [](const json& tensors) {
    json types = json::array();
    for (std::size_t i = 0; i < tensors.size(); ++i) types.push_back("Tensor(c10::BFloat16)");
    return json{{"values", tensors}, {"shapes", json::array()}, {"types", types}, {"strides", json::array()}};
  };
  const auto node = [&](long long id, const std::string& name, long long parent, long long seq, const json& in,
                        const json& out) {
    nodes.push_back({{"id", id},
                     {"name", name},
                     {"ctrl_deps", parent},
                     {"inputs", side(in)},
                     {"outputs", side(out)},
                     {"attrs", json::array({{{"name", "rf_id"}, {"type", "uint64"}, {"value", rf++}},
                                            {{"name", "seq_id"}, {"type", "int64"}, {"value", seq}}})}});
  };
  const json none = json::array();
  const std::string eval = "autograd::engine::evaluate_function: ";
  node(1, "[pytorch|profiler|execution_trace|process]", 1, -1, none, none);
  node(2, "[pytorch|profiler|execution_trace|thread]", 1, -1, none, none);
  node(3, "ProfilerStep#1", 2, -1, none, none);
  node(4, "embedding", 3, -1, none, none);
  // Token ids (storage 1) came before the step: not the step's allocation.
  node(5, "aten::embedding", 4, 100, json::array({tensor(2, 64 * 1000), tensor(1, 16, 8)}),
       json::array({tensor(10, 16 * 64)}));  // 2048 B
  node(6, "block0", 3, -1, none, none);
  node(7, "aten::mm", 6, 101, json::array({tensor(10, 16 * 64), tensor(3, 64 * 64)}),
       json::array({tensor(11, 500)}));                                                           // 1000 B -> 1024
  node(8, "aten::view", 6, -1, json::array({tensor(11, 500)}), json::array({tensor(11, 500)}));   // no allocation
  node(9, "aten::gelu", 6, 102, json::array({tensor(11, 500)}), json::array({tensor(12, 500)}));  // not read later
  node(10, "aten::add", 6, 103, json::array({tensor(12, 500), tensor(10, 16 * 64)}),
       json::array({tensor(13, 16 * 64)}));  // the block's output
  node(11, "lm_head", 3, -1, none, none);
  node(12, "aten::mm", 11, 104, json::array({tensor(13, 16 * 64), tensor(4, 64 * 1000)}),
       json::array({tensor(14, 16 * 1000)}));  // logits, 32000 B -> 32256
  node(13, "loss", 3, -1, none, none);
  node(14, "aten::nll_loss", 13, 105, json::array({tensor(14, 16 * 1000)}), json::array({tensor(15, 1, 4)}));
  node(15, "aten::div", 3, 106, json::array({tensor(15, 1, 4), json::array({0, 0, 0, 1, 8, "cpu"})}),
       json::array({tensor(16, 1, 4)}));
  // The backward, on the autograd thread: each node's ops read what its forward op saved.
  node(20, "[pytorch|profiler|execution_trace|thread]", 1, -1, none, none);
  node(21, eval + "MmBackward0", 20, -1, none, none);
  node(22, "MmBackward0", 21, 104, none, none);
  node(23, "aten::mm", 22, -1, json::array({tensor(17, 16 * 1000), tensor(13, 16 * 64)}),
       json::array({tensor(12, 64 * 1000)}));  // reads the block's output; storage 12 reused by the backward
  node(24, eval + "AddBackward0", 20, -1, none, none);
  node(25, "AddBackward0", 24, 103, none, none);
  node(26, "aten::mul", 25, -1, json::array({tensor(12, 500)}), none);  // the backward's own storage 12
  node(27, eval + "MmBackward0", 20, -1, none, none);
  node(28, "MmBackward0", 27, 101, none, none);
  node(29, "aten::mm", 28, -1, json::array({tensor(11, 500), tensor(10, 16 * 64), tensor(13, 16 * 64)}), none);
  node(30, eval + "EmbeddingBackward0", 20, -1, none, none);
  node(31, "EmbeddingBackward0", 30, 100, none, none);
  node(32, "aten::embedding_dense_backward", 31, -1, json::array({tensor(1, 16, 8)}), none);
  node(40, "optimizer_step", 2, -1, none, none);
  node(41, "aten::_foreach_add_", 40, -1, json::array({tensor(3, 64 * 64)}), json::array({tensor(3, 64 * 64)}));
  return {{"schema", "1.1.1-chakra.0.0.4"}, {"pid", 1}, {"nodes", nodes}};
}

// Hand-worked: block0 keeps what its mm allocated (1024 B) and its input,
// the embedding's output (2048 B); the head keeps its input, block0's
// output (2048 B, read first by lm_head's backward), the logits (32256 B)
// and the loss (512 B); the embedding keeps nothing the step allocated.
constexpr double kSyntheticBlockStash = 1024 + 2048;
constexpr double kSyntheticHeadStash = 2048 + 32256 + 512;

}  // namespace pipesim::testing
