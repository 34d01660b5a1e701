// models/ against the blocks, embedding, head and stages measured on one
// H200 and one H100 (tests/data/measured/README.md).
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/layer_memory.hpp"
#include "models/transformer.hpp"

namespace pipesim {
namespace {

using nlohmann::json;

json measured(const std::string& gpu, const std::string& file) {
  std::ifstream in(std::string(PIPESIM_SOURCE_DIR) + "/tests/data/measured/" + gpu + "-transformer-block/" + file);
  EXPECT_TRUE(in.good()) << gpu << "/" << file;
  return json::parse(in);
}

// The measured model: pre-LN GPT block, flash attention, no dropout, GELU, bf16.
TransformerConfig measured_gpt(int h, int heads, int s, int b, int vocab) {
  TransformerConfig c;
  c.name = "measured";
  c.layers = 1;
  c.hidden = h;
  c.heads = heads;
  c.vocab = vocab;
  c.learned_positions = false;  // the measured embedding has no position table
  c.tied_embeddings = false;
  c.seq_length = s;
  c.microbatch_size = b;
  return c;
}

constexpr double kMiB = 1 << 20;

class ModelMeasured : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelMeasured, BlockSavedBytesWeightsAndTransients) {
  const json blocks = measured(GetParam(), "blocks.json").at("blocks");
  ASSERT_EQ(blocks.size(), 8u);
  for (const json& m : blocks) {
    const int h = m.at("h"), heads = m.at("heads"), s = m.at("s"), b = m.at("b");
    SCOPED_TRACE("h " + std::to_string(h) + " b " + std::to_string(b));
    const ModelChain chain = transformer_chain(measured_gpt(h, heads, s, b, 50304));
    const ModelLayer& block = chain.layers.at(1);
    const double input = 2.0 * s * b * h;
    // 30 sbh + logsumexp 4asb + LayerNorm statistics 16sb + RNG state 1024, exactly.
    EXPECT_EQ(block.stash_bytes - input, m.at("act_saved_bytes").get<double>());
    EXPECT_EQ(block.output_bytes, m.at("output_bytes").get<double>());
    EXPECT_EQ(2 * block.parameters, m.at("weight_bytes").get<double>());
    EXPECT_EQ(2 * block.parameters, 2.0 * (12.0 * h * h + 13.0 * h));
    // Forward peak: what it keeps, its output and 2 sbh (exact); backward: never under.
    EXPECT_EQ(block.stash_bytes - input + block.output_bytes + block.forward_workspace,
              m.at("fwd_peak_above_before").get<double>());
    const double bwd = m.at("bwd_peak_above_after_fwd");
    EXPECT_GE(block.backward_workspace, bwd);
    EXPECT_LE(block.backward_workspace, 2.5 * bwd);
  }
}

TEST_P(ModelMeasured, EmbeddingAndHead) {
  const json blocks = measured(GetParam(), "blocks.json");  // the loop's range must outlive it
  for (const json& m : blocks.at("embed_head")) {
    const int h = m.at("h"), s = m.at("s"), b = m.at("b"), vocab = m.at("vocab");
    SCOPED_TRACE("b " + std::to_string(b));
    const ModelChain chain = transformer_chain(measured_gpt(h, h / 128, s, b, vocab));
    const ModelLayer& embedding = chain.layers.front();
    const json& e = m.at("embedding");
    EXPECT_EQ(embedding.stash_bytes - chain.input_bytes, e.at("act_saved_bytes").get<double>());
    EXPECT_EQ(embedding.output_bytes, e.at("output_bytes").get<double>());
    EXPECT_EQ(2 * embedding.parameters, e.at("weight_bytes").get<double>());
    EXPECT_GE(embedding.output_bytes + embedding.forward_workspace, e.at("fwd_peak_above_before").get<double>());
    EXPECT_GE(embedding.backward_workspace, e.at("bwd_peak_above_after_fwd").get<double>());

    const ModelLayer& head = chain.layers.back();
    const json& x = m.at("head");
    const double input = 2.0 * s * b * h;
    EXPECT_EQ(2 * head.parameters, x.at("weight_bytes").get<double>());
    EXPECT_EQ(head.forward.flops, x.at("flop_fwd_gemm").get<double>());
    // Kept beyond the input, the loss scalar included: exact at b = 4; at
    // b = 1 the caching allocator handed out 1 MiB more (a whole block).
    const double saved = x.at("act_saved_bytes").get<double>() + x.at("output_bytes").get<double>();
    if (b == 4)
      EXPECT_EQ(head.stash_bytes - input, saved);
    else
      EXPECT_EQ(head.stash_bytes - input + kMiB, saved);
    EXPECT_GE(head.stash_bytes - input + head.forward_workspace, x.at("fwd_peak_above_before").get<double>());
    EXPECT_GE(head.backward_workspace, x.at("bwd_peak_above_after_fwd").get<double>());
  }
}

TEST_P(ModelMeasured, StagesOfTheEightBlockModel) {
  const json doc = measured(GetParam(), "stages.json");
  const json& config = doc.at("config");
  TransformerConfig c =
      measured_gpt(config.at("h"), config.at("heads"), config.at("seq"), config.at("microbatch"), config.at("vocab"));
  c.layers = config.at("blocks");
  const ModelChain chain = transformer_chain(c);
  ASSERT_EQ(chain.layers.size(), 10u);
  const int first[] = {0, 3, 5, 7}, last[] = {2, 4, 6, 9};  // embedding + 2 blocks, 2, 2, 2 blocks + head
  for (int stage = 0; stage < 4; ++stage) {
    const json& m = doc.at("stages").at(stage);
    SCOPED_TRACE("stage " + std::to_string(stage));
    double kept = 0, params = 0, forward_workspace = 0, backward_workspace = 0;
    for (int i = first[stage]; i <= last[stage]; ++i) {
      kept += chain.layers[i].stash_bytes;
      params += chain.layers[i].parameters;
      forward_workspace = std::max(forward_workspace, chain.layers[i].forward_workspace);
      backward_workspace = std::max(backward_workspace, chain.layers[i].backward_workspace);
    }
    const double input = stage == 0 ? chain.input_bytes : chain.layers[first[stage] - 1].output_bytes;
    EXPECT_EQ(input, m.at("input_bytes").get<double>());
    EXPECT_EQ(params, m.at("n_params").get<double>());
    const double saved = m.at("act_plus_output_bytes");  // stage 3's output is its logits, which we keep
    if (stage < 3)
      EXPECT_EQ(kept - input + chain.layers[last[stage]].output_bytes, saved);
    else
      EXPECT_EQ(kept - input + kMiB, saved);  // the allocator's 1 MiB, as for the head at b*s = 2048
    // Transient peaks: never under the measured ones (stage 3's backward: 0.83 GB).
    EXPECT_GE(kept - input + chain.layers[last[stage]].output_bytes + forward_workspace,
              m.at("fwd_peak_above_before").get<double>());
    EXPECT_GE(backward_workspace, m.at("bwd_peak_above_after_fwd").get<double>());
  }
}

// The 8-block model trained on one GPU in GPipe order, 8 micro-batches: the
// peak is all 8 micro-batches' activations plus the first backward's (the
// LM head's) transient: measured 14.51 GB; ours 1.3 % above (the allocator's
// 1 MiB per micro-batch less, the head's backward workspace more).
TEST_P(ModelMeasured, GpipeOnOneDevicePeak) {
  const json config = measured(GetParam(), "stages.json").at("config");
  const json run = measured(GetParam(), "gpipe_one_device_run.json");
  TransformerConfig c =
      measured_gpt(config.at("h"), config.at("heads"), config.at("seq"), config.at("microbatch"), config.at("vocab"));
  c.layers = config.at("blocks");
  const ModelChain chain = transformer_chain(c);
  double kept = 0;
  for (const ModelLayer& layer : chain.layers) kept += layer.stash_bytes;
  kept -= chain.input_bytes;  // the token ids were allocated before the step
  const int microbatches = config.at("microbatches");
  const double ours = microbatches * kept + chain.layers.back().backward_workspace;
  const double peak = run.at("peak_above_before");
  EXPECT_GE(ours, peak);
  EXPECT_LE(ours, 1.02 * peak);
}

INSTANTIATE_TEST_SUITE_P(Model, ModelMeasured, ::testing::Values("h200", "h100"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace pipesim
