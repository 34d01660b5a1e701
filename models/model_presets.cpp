// The presets: GPT models of Megatron-LM's SC'21 paper, GPT-3 175B, Llama 2
// and 3, GPT-2 XL. Sources and our counts: docs/model-to-workload.md.
#include "models/model_presets.hpp"

namespace pipesim {
namespace {

// Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on
// GPU Clusters Using Megatron-LM" (SC'21), Table 1: vocabulary 51200,
// sequence 2048, learned positions, tied embeddings. Published counts in
// billions with one decimal: tolerance half a unit of that decimal.
ModelPreset megatron_gpt(const std::string& name, int heads, int hidden, int layers, double billions) {
  ModelPreset p;
  TransformerConfig& c = p.config;
  c.name = name;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.vocab = 51200;
  c.tied_embeddings = true;
  c.seq_length = 2048;
  c.max_positions = 2048;
  p.published_parameters = billions * 1e9;
  p.tolerance = 0.05e9;
  p.source = "Narayanan et al. 2021 (Megatron-LM, SC'21), Table 1";
  return p;
}

// Llama (Touvron et al. 2023; Llama 3: Grattafiori et al. 2024), sizes as in
// the Hugging Face config.json files: RMSNorm, SwiGLU, RoPE, no biases,
// untied head.
ModelPreset llama(const std::string& name, int layers, int hidden, int heads, int kv_heads, int ffn, int vocab,
                  int context, double published, double tolerance, const std::string& source) {
  ModelPreset p;
  TransformerConfig& c = p.config;
  c.name = name;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.kv_heads = kv_heads;
  c.ffn_hidden = ffn;
  c.activation = FfnActivation::SwiGlu;
  c.vocab = vocab;
  c.tied_embeddings = false;
  c.learned_positions = false;
  c.max_positions = context;
  c.bias = false;
  c.rms_norm = true;
  c.seq_length = context;
  p.published_parameters = published;
  p.tolerance = tolerance;
  p.source = source;
  return p;
}

std::vector<ModelPreset> make_presets() {
  std::vector<ModelPreset> all = {
      megatron_gpt("gpt3-1.7b", 24, 2304, 24, 1.7),      megatron_gpt("gpt3-3.6b", 32, 3072, 30, 3.6),
      megatron_gpt("gpt3-7.5b", 32, 4096, 36, 7.5),      megatron_gpt("gpt3-18b", 48, 6144, 40, 18.4),
      megatron_gpt("gpt3-39b", 64, 8192, 48, 39.1),      megatron_gpt("gpt3-76b", 80, 10240, 60, 76.1),
      megatron_gpt("gpt3-145b", 96, 12288, 80, 145.6),   megatron_gpt("gpt3-310b", 128, 16384, 96, 310.1),
      megatron_gpt("gpt3-530b", 128, 20480, 105, 529.6), megatron_gpt("gpt3-1t", 160, 25600, 128, 1008.0),
  };
  {
    // Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1:
    // 96 layers, d_model 12288, 96 heads, context 2048; GPT-2's vocabulary.
    ModelPreset p = megatron_gpt("gpt3-175b", 96, 12288, 96, 175);
    p.config.vocab = 50257;
    p.tolerance = 0.5e9;  // "175B"
    p.source = "Brown et al. 2020 (GPT-3), Table 2.1";
    all.push_back(p);
  }
  const std::string l2 = "Touvron et al. 2023 (Llama 2); Hugging Face meta-llama/Llama-2-*-hf config.json";
  const std::string l3 =
      "Grattafiori et al. 2024 (The Llama 3 Herd of Models), Table 3; Hugging Face meta-llama config.json";
  all.push_back(llama("llama2-7b", 32, 4096, 32, 0, 11008, 32000, 4096, 6.74e9, 0.005e9, l2));
  all.push_back(llama("llama2-13b", 40, 5120, 40, 0, 13824, 32000, 4096, 13.0e9, 0.05e9, l2));
  all.push_back(llama("llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096, 68.98e9, 0.005e9, l2));
  all.push_back(llama("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 8.03e9, 0.005e9, l3));
  all.push_back(llama("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, 70.6e9, 0.05e9, l3));
  // "405B" is a name more than a rounding (the weights hold 405.85 B): 0.5 %.
  all.push_back(llama("llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192, 405e9, 0.005 * 405e9, l3));
  {
    // Radford et al. 2019 (GPT-2); Hugging Face gpt2-xl: 48 layers, n_embd
    // 1600, 25 heads, vocabulary 50257, context 1024, tied head; "1558M".
    ModelPreset p = megatron_gpt("gpt2-xl", 25, 1600, 48, 1.558);
    p.config.vocab = 50257;
    p.config.seq_length = 1024;
    p.config.max_positions = 1024;
    p.tolerance = 0.0005e9;
    p.source = "Radford et al. 2019 (GPT-2); Hugging Face openai-community/gpt2-xl config.json";
    all.push_back(p);
  }
  return all;
}

const std::vector<ModelPreset>& presets() {
  static const std::vector<ModelPreset> all = make_presets();
  return all;
}

}  // namespace

const ModelPreset* find_model_preset(const std::string& name) {
  for (const ModelPreset& p : presets())
    if (p.config.name == name) return &p;
  return nullptr;
}

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const ModelPreset& p : presets()) names.push_back(p.config.name);
  return names;
}

}  // namespace pipesim
