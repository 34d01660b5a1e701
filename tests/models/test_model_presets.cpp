// models/: every preset's parameter count against the published one.
#include <gtest/gtest.h>

#include <cmath>

#include "models/model_presets.hpp"
#include "models/transformer.hpp"

namespace pipesim {
namespace {

TEST(ModelPresets, ParameterCountsMatchThePublishedOnes) {
  const std::vector<std::string> names = model_preset_names();
  ASSERT_EQ(names.size(), 18u);
  for (const std::string& name : names) {
    const ModelPreset* p = find_model_preset(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->config.name, name);
    EXPECT_FALSE(p->source.empty()) << name;
    EXPECT_NO_THROW(check_transformer(p->config, "presets", name)) << name;
    const double ours = transformer_parameters(p->config);
    EXPECT_LE(std::fabs(ours - p->published_parameters), p->tolerance)
        << name << ": ours " << ours << ", published " << p->published_parameters;
  }
  EXPECT_EQ(find_model_preset("gpt-5"), nullptr);
}

TEST(ModelPresets, ExactCountsOfTheOpenWeights) {
  // The counts of the released weights (Hugging Face safetensors totals).
  EXPECT_DOUBLE_EQ(transformer_parameters(find_model_preset("llama2-7b")->config), 6738415616.0);
  EXPECT_DOUBLE_EQ(transformer_parameters(find_model_preset("llama2-13b")->config), 13015864320.0);
  EXPECT_DOUBLE_EQ(transformer_parameters(find_model_preset("llama2-70b")->config), 68976648192.0);
  EXPECT_DOUBLE_EQ(transformer_parameters(find_model_preset("llama3-8b")->config), 8030261248.0);
  EXPECT_DOUBLE_EQ(transformer_parameters(find_model_preset("llama3-70b")->config), 70553706496.0);
  EXPECT_DOUBLE_EQ(transformer_parameters(find_model_preset("llama3-405b")->config), 405853388800.0);
  EXPECT_DOUBLE_EQ(transformer_parameters(find_model_preset("gpt2-xl")->config), 1557611200.0);
}

TEST(ModelPresets, MegatronFormula) {
  // P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), plus the final LayerNorm's 2h.
  for (const char* name : {"gpt3-1.7b", "gpt3-145b", "gpt3-1t"}) {
    const TransformerConfig& c = find_model_preset(name)->config;
    const double l = c.layers, h = c.hidden, V = c.vocab, s = c.seq_length;
    EXPECT_NEAR(transformer_parameters(c), 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h)) + 2 * h,
                1e-6 * transformer_parameters(c))
        << name;
  }
}

TEST(ModelPresets, LlamaDefaultFfnIsTheRounded8hOver3) {
  TransformerConfig c = find_model_preset("llama2-7b")->config;
  const double with_explicit = transformer_parameters(c);
  c.ffn_hidden = 0;
  EXPECT_DOUBLE_EQ(transformer_parameters(c), with_explicit);  // 11008
}

}  // namespace
}  // namespace pipesim
