#include "workloads/model_section.hpp"

#include <climits>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/hf_config.hpp"
#include "models/model_presets.hpp"
#include "models/transformer.hpp"
#include "sim/input_error.hpp"
#include "workloads/model_costs.hpp"

namespace pipesim {
namespace {

using Fields = YamlFields::Fields;

// A field of the section and how it sets the config.
using Setter = std::function<void(const YamlFields&, const YAML::Node&, const std::string&, TransformerConfig&)>;

Setter whole(int TransformerConfig::*field, long long min = 1) {
  return [field, min](const YamlFields& r, const YAML::Node& n, const std::string& path, TransformerConfig& c) {
    c.*field = static_cast<int>(r.integer(n, path, "an integer >= " + std::to_string(min), min, 100000000));
  };
}

Setter flag(bool TransformerConfig::*field) {
  return [field](const YamlFields& r, const YAML::Node& n, const std::string& path, TransformerConfig& c) {
    c.*field = r.boolean(n, path);
  };
}

template <class E>
Setter choice(E TransformerConfig::*field, std::map<std::string, E> names) {
  return [field, names](const YamlFields& r, const YAML::Node& n, const std::string& path, TransformerConfig& c) {
    std::vector<std::string> all;
    for (const auto& [name, _] : names) all.push_back(name);
    const std::string given = YamlFields::lower(r.text(n, path, YamlFields::join(all)));
    const auto it = names.find(given);
    if (it == names.end()) r.fail(n, path, "expected one of " + YamlFields::join(all) + ", got '" + n.Scalar() + "'");
    c.*field = it->second;
  };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"layers", whole(&TransformerConfig::layers)},
      {"hidden", whole(&TransformerConfig::hidden)},
      {"heads", whole(&TransformerConfig::heads)},
      {"kv_heads", whole(&TransformerConfig::kv_heads)},
      {"ffn_hidden", whole(&TransformerConfig::ffn_hidden)},
      {"vocab", whole(&TransformerConfig::vocab)},
      {"max_positions", whole(&TransformerConfig::max_positions)},
      {"seq_length", whole(&TransformerConfig::seq_length)},
      {"microbatch_size", whole(&TransformerConfig::microbatch_size)},
      {"tp", whole(&TransformerConfig::tp)},
      {"tied_embeddings", flag(&TransformerConfig::tied_embeddings)},
      {"learned_positions", flag(&TransformerConfig::learned_positions)},
      {"bias", flag(&TransformerConfig::bias)},
      {"rms_norm", flag(&TransformerConfig::rms_norm)},
      {"flash_attention", flag(&TransformerConfig::flash_attention)},
      {"dropout", flag(&TransformerConfig::dropout)},
      {"sequence_parallel", flag(&TransformerConfig::sequence_parallel)},
      {"activation",
       choice(&TransformerConfig::activation,
              std::map<std::string, FfnActivation>{{"gelu", FfnActivation::Gelu}, {"swiglu", FfnActivation::SwiGlu}})},
      {"recompute",
       choice(&TransformerConfig::recompute,
              std::map<std::string, Recompute>{
                  {"none", Recompute::None}, {"selective", Recompute::Selective}, {"full", Recompute::Full}})},
      {"precision", choice(&TransformerConfig::precision, std::map<std::string, Precision>{{"fp32", Precision::FP32},
                                                                                           {"bf16", Precision::BF16},
                                                                                           {"fp16", Precision::FP16},
                                                                                           {"fp8", Precision::FP8}})},
  };
  return table;
}

std::vector<std::string> section_keys() {
  std::vector<std::string> keys = {"preset", "config", "name", "calibration"};
  for (const auto& [key, _] : setters()) keys.push_back(key);
  return keys;
}

Layer to_layer(const ModelLayer& m, const Optimizer& optimizer) {
  Layer layer;
  layer.name = m.name;
  const double recompute = m.recompute.flops;
  layer.forward = Cost{m.forward.flops, true};
  layer.backward = Cost{m.backward_input.flops + m.backward_weight.flops + recompute, true};
  layer.split_given = true;
  layer.backward_input = Cost{m.backward_input.flops + recompute, true};  // the forward is redone before the backward
  layer.backward_weight = Cost{m.backward_weight.flops, true};
  layer.activation = m.output_bytes;
  layer.stash = m.stash_bytes;
  layer.weight_stash = m.weight_stash_bytes;
  layer.forward_workspace = m.forward_workspace;
  layer.backward_workspace = m.backward_workspace;
  layer.parameters = m.parameters;
  layer.weights = m.parameters * optimizer.weight_bytes;
  layer.tied_to_first = m.tied_to_embedding;
  layer.model_flops = m.model_flops;
  layer.ops = LayerOps{m.forward, m.backward_input, m.backward_weight, m.recompute};
  layer.tp = m.tp;
  return layer;
}

}  // namespace

void load_model_section(const YamlFields& r, const YAML::Node& n, Workload& w) {
  if (!n.IsMap())
    r.fail(n, "model",
           "expected a map like {preset: gpt3-1.7b} or {config: config.json}, got " + YamlFields::describe(n));
  static const std::vector<std::string> keys = section_keys();
  const Fields f = r.fields(n, "model", &keys);
  const auto* preset = YamlFields::get(f, "preset");
  const auto* config = YamlFields::get(f, "config");
  if (preset && config) r.fail(config->key, "model.config", "give 'preset' or 'config', not both");
  TransformerConfig c;
  std::string config_path;
  if (preset) {
    const std::string name = YamlFields::lower(r.text(preset->value, "model.preset", "a model preset name"));
    const ModelPreset* found = find_model_preset(name);
    if (!found)
      r.fail(preset->value, "model.preset",
             "unknown model '" + preset->value.Scalar() +
                 "' (expected one of: " + YamlFields::join(model_preset_names()) + ")");
    c = found->config;
  } else if (config) {
    config_path = path_beside(w, r.text(config->value, "model.config", "the path of a config.json"));
    c = read_hf_config(config_path);
  }
  for (const auto& [key, entry] : f) {
    const auto it = setters().find(key);
    if (it != setters().end()) it->second(r, entry.value, "model." + key, c);
  }
  if (w.parallel.given) {  // parallel.tp is the model's tp; model.tp may repeat it
    if (auto* e = YamlFields::get(f, "tp"); e && c.tp != w.parallel.tp)
      r.fail(e->value, "model.tp",
             "is " + std::to_string(c.tp) + " but parallel.tp is " + std::to_string(w.parallel.tp) + ": give one");
    c.tp = w.parallel.tp;
  }
  if (auto* e = YamlFields::get(f, "name")) c.name = r.text(e->value, "model.name", "a model name");
  if (c.name.empty()) c.name = w.name;
  check_transformer(c, w.file, "model");
  const ModelChain chain = transformer_chain(c);
  for (const ModelLayer& m : chain.layers) w.layers.push_back(to_layer(m, w.optimizer));
  w.input = chain.input_bytes;
  w.microbatch_size = c.microbatch_size;
  ModelJob job;
  job.model = c.name;
  job.tokens_per_microbatch = static_cast<double>(c.seq_length) * c.microbatch_size;
  job.precision = c.precision;
  job.parameters = chain.total_parameters;
  job.config = config_path;
  job.recompute = c.recompute == Recompute::Full ? "full" : c.recompute == Recompute::Selective ? "selective" : "none";
  if (auto* e = YamlFields::get(f, "calibration"))
    job.calibration = path_beside(w, r.text(e->value, "model.calibration", "the path of a calibration file"));
  w.model = job;
  apply_calibrated_stash(w);
}

}  // namespace pipesim
