// A Hugging Face config.json -> TransformerConfig (GPT-2, Llama, Mistral).
// Keys read and defaults: docs/model-to-workload.md, "Hugging Face import".
#pragma once

#include <cstdint>
#include <string>

#include "models/transformer.hpp"

namespace pipesim {

// Largest config.json read (real ones are a few kB).
constexpr std::uintmax_t kMaxHfConfigBytes = 4ull << 20;

// The model of a config.json, with the training set-up left at its defaults
// but seq_length = the context length (max_position_embeddings / n_positions).
// Throws InputError(path, KEY or "line N", WHAT), one line, on any problem.
TransformerConfig read_hf_config(const std::string& path);
// The same from the file's text (path names it in errors).
TransformerConfig parse_hf_config(const std::string& text, const std::string& path);

}  // namespace pipesim
