// models/: Hugging Face config.json import and its one-line errors.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include "models/hf_config.hpp"
#include "models/model_presets.hpp"
#include "models/transformer.hpp"

namespace pipesim {
namespace {

std::string data(const std::string& name) { return std::string(PIPESIM_SOURCE_DIR) + "/tests/data/hf/" + name; }

std::string error_of(const std::string& path) {
  try {
    read_hf_config(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(ModelHfConfig, Llama2SevenB) {
  const TransformerConfig c = read_hf_config(data("llama-2-7b.json"));
  EXPECT_EQ(c.name, "meta-llama/Llama-2-7b-hf");
  EXPECT_EQ(c.hidden, 4096);
  EXPECT_EQ(c.layers, 32);
  EXPECT_EQ(c.heads, 32);
  EXPECT_EQ(c.kv_heads, 32);
  EXPECT_EQ(c.ffn_hidden, 11008);
  EXPECT_EQ(c.vocab, 32000);
  EXPECT_EQ(c.activation, FfnActivation::SwiGlu);
  EXPECT_FALSE(c.tied_embeddings);
  EXPECT_FALSE(c.learned_positions);
  EXPECT_FALSE(c.bias);
  EXPECT_TRUE(c.rms_norm);
  EXPECT_EQ(c.seq_length, 4096);
  EXPECT_DOUBLE_EQ(transformer_parameters(c), transformer_parameters(find_model_preset("llama2-7b")->config));
}

TEST(ModelHfConfig, Gpt2Xl) {
  const TransformerConfig c = read_hf_config(data("gpt2-xl.json"));
  EXPECT_EQ(c.hidden, 1600);
  EXPECT_EQ(c.layers, 48);
  EXPECT_EQ(c.heads, 25);
  EXPECT_EQ(c.ffn_hidden, 6400);
  EXPECT_EQ(c.vocab, 50257);
  EXPECT_EQ(c.max_positions, 1024);
  EXPECT_EQ(c.activation, FfnActivation::Gelu);
  EXPECT_TRUE(c.tied_embeddings);
  EXPECT_TRUE(c.learned_positions);
  EXPECT_TRUE(c.bias);
  EXPECT_FALSE(c.rms_norm);
  EXPECT_DOUBLE_EQ(transformer_parameters(c), 1557611200.0);
}

TEST(ModelHfConfig, OneLineErrors) {
  const std::string dir = data("");
  EXPECT_EQ(error_of(data("malformed.json")),
            dir +
                "malformed.json: line 4: JSON syntax error: syntax error while parsing object separator - "
                "unexpected number literal; expected ':'");
  EXPECT_EQ(error_of(data("missing-field.json")), dir + "missing-field.json: intermediate_size: missing");
  EXPECT_EQ(error_of(data("wrong-type.json")),
            dir + "wrong-type.json: hidden_size: expected a positive integer, got string \"4096\"");
  EXPECT_EQ(
      error_of(data("heads-not-dividing.json")),
      dir + "heads-not-dividing.json: num_attention_heads: num_attention_heads (24) must divide hidden_size (4096)");
  EXPECT_EQ(
      error_of(data("kv-not-dividing.json")),
      dir + "kv-not-dividing.json: num_key_value_heads: num_key_value_heads (5) must divide num_attention_heads (32)");
  EXPECT_EQ(error_of(data("unsupported-type.json")),
            dir + "unsupported-type.json: model_type: unsupported \"bert\" (supported: gpt2, llama, mistral)");
  EXPECT_EQ(error_of(data("absent.json")), dir + "absent.json: cannot open: no such file");
  EXPECT_EQ(error_of(dir), dir + ": expected a regular file (a config.json)");
  for (const char* name : {"malformed.json", "missing-field.json", "wrong-type.json", "heads-not-dividing.json",
                           "kv-not-dividing.json", "unsupported-type.json"})
    EXPECT_EQ(error_of(data(name)).find('\n'), std::string::npos) << name;
}

TEST(ModelHfConfig, TextErrors) {
  const auto error = [](const std::string& text) {
    try {
      parse_hf_config(text, "c.json");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("[1, 2]"), "c.json: document: expected a JSON object, got array");
  EXPECT_EQ(error("{}"), "c.json: model_type: missing");
  EXPECT_EQ(error("{\"model_type\": 3}"), "c.json: model_type: expected a string, got number 3");
  EXPECT_EQ(error("{\n\"model_type\": \"gpt2\",\n"),
            "c.json: line 3: JSON syntax error: syntax error while parsing object key - unexpected end of input; "
            "expected string literal");
  EXPECT_EQ(error("{\"model_type\": \"llama\", \"hidden_size\": 0}"),
            "c.json: hidden_size: expected a positive integer, got 0");
  EXPECT_EQ(error("{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, "
                  "\"num_attention_heads\": 32, \"intermediate_size\": 14336, \"vocab_size\": 32000, "
                  "\"max_position_embeddings\": 32768, \"hidden_act\": \"gelu\"}"),
            "c.json: hidden_act: unsupported \"gelu\" for mistral (silu: SwiGLU)");
}

}  // namespace
}  // namespace pipesim
