// Hugging Face config.json import (nlohmann-json).
#include "models/hf_config.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/input_error.hpp"
#include "sim/json_input.hpp"

namespace pipesim {
namespace {

using nlohmann::json;

struct Fields {
  const json& j;
  const std::string& path;
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(path, key, single_line(what));
  }
  bool has(const std::string& key) const { return j.contains(key) && !j.at(key).is_null(); }
  int positive_int(const std::string& key) const {
    if (!j.contains(key)) fail(key, "missing");
    const json& v = j.at(key);
    if (!v.is_number_integer())
      fail(key, "expected a positive integer, got " + std::string(v.type_name()) + " " + v.dump());
    const long long n = v.get<long long>();
    if (n <= 0 || n > 1000000000) fail(key, "expected a positive integer, got " + v.dump());
    return static_cast<int>(n);
  }
  int positive_int_or(const std::string& key, int fallback) const { return has(key) ? positive_int(key) : fallback; }
  bool boolean_or(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_boolean()) fail(key, "expected true or false, got " + std::string(v.type_name()) + " " + v.dump());
    return v.get<bool>();
  }
  std::string string_or(const std::string& key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_string()) fail(key, "expected a string, got " + std::string(v.type_name()) + " " + v.dump());
    return v.get<std::string>();
  }
};

std::string read_bounded(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) throw InputError(path, "", "cannot open: no such file");
  if (ec) throw InputError(path, "", "cannot open: " + single_line(ec.message()));
  if (status.type() != fs::file_type::regular) throw InputError(path, "", "expected a regular file (a config.json)");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec || size > kMaxHfConfigBytes)
    throw InputError(path, "", "expected a config.json of at most 4 MiB, got " + std::to_string(size) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open for reading (permission denied?)");
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxHfConfigBytes)
      throw InputError(path, "", "expected a config.json of at most 4 MiB, got more");
  }
  if (in.bad()) throw InputError(path, "", "read error");
  return text;
}

void check_divides(const Fields& f, const std::string& divisor_key, int divisor, const std::string& dividend_key,
                   int dividend) {
  if (dividend % divisor != 0)
    f.fail(divisor_key, divisor_key + " (" + std::to_string(divisor) + ") must divide " + dividend_key + " (" +
                            std::to_string(dividend) + ")");
}

TransformerConfig llama_like(const Fields& f, const std::string& type) {
  TransformerConfig c;
  c.hidden = f.positive_int("hidden_size");
  c.layers = f.positive_int("num_hidden_layers");
  c.heads = f.positive_int("num_attention_heads");
  c.kv_heads = f.positive_int_or("num_key_value_heads", c.heads);
  c.ffn_hidden = f.positive_int("intermediate_size");
  c.vocab = f.positive_int("vocab_size");
  c.tied_embeddings = f.boolean_or("tie_word_embeddings", false);
  c.max_positions = f.positive_int("max_position_embeddings");
  const std::string act = f.string_or("hidden_act", "silu");
  if (act != "silu") f.fail("hidden_act", "unsupported \"" + act + "\" for " + type + " (silu: SwiGLU)");
  c.activation = FfnActivation::SwiGlu;
  c.learned_positions = false;
  c.bias = false;
  c.rms_norm = true;
  check_divides(f, "num_attention_heads", c.heads, "hidden_size", c.hidden);
  check_divides(f, "num_key_value_heads", c.kv_heads, "num_attention_heads", c.heads);
  if (f.has("head_dim") && f.positive_int("head_dim") != c.hidden / c.heads)
    f.fail("head_dim", "unsupported: " + std::to_string(f.positive_int("head_dim")) +
                           " differs from hidden_size / num_attention_heads (" + std::to_string(c.hidden / c.heads) +
                           ")");
  return c;
}

TransformerConfig gpt2(const Fields& f) {
  TransformerConfig c;
  c.hidden = f.positive_int("n_embd");
  c.layers = f.positive_int("n_layer");
  c.heads = f.positive_int("n_head");
  c.ffn_hidden = f.positive_int_or("n_inner", 4 * c.hidden);
  c.vocab = f.positive_int("vocab_size");
  c.max_positions = f.positive_int("n_positions");
  c.tied_embeddings = f.boolean_or("tie_word_embeddings", true);
  const std::string act = f.string_or("activation_function", f.string_or("hidden_act", "gelu_new"));
  if (act.compare(0, 4, "gelu") != 0)
    f.fail(f.has("activation_function") ? "activation_function" : "hidden_act",
           "unsupported \"" + act + "\" for gpt2 (gelu*)");
  c.activation = FfnActivation::Gelu;
  c.learned_positions = true;
  c.bias = true;
  c.rms_norm = false;
  check_divides(f, "n_head", c.heads, "n_embd", c.hidden);
  return c;
}

}  // namespace

TransformerConfig parse_hf_config(const std::string& text, const std::string& path) {
  const json j = parse_json_input(text, path);
  if (!j.is_object()) throw InputError(path, "document", "expected a JSON object, got " + std::string(j.type_name()));
  const Fields f{j, path};
  if (!j.contains("model_type")) f.fail("model_type", "missing");
  const std::string type = f.string_or("model_type", "");
  TransformerConfig c;
  if (type == "llama" || type == "mistral")
    c = llama_like(f, type);
  else if (type == "gpt2")
    c = gpt2(f);
  else
    f.fail("model_type", "unsupported \"" + type + "\" (supported: gpt2, llama, mistral)");
  c.name = f.string_or("_name_or_path", std::filesystem::path(path).parent_path().filename().string());
  if (c.name.empty()) c.name = type;
  c.seq_length = c.max_positions;
  return c;
}

TransformerConfig read_hf_config(const std::string& path) { return parse_hf_config(read_bounded(path), path); }

}  // namespace pipesim
