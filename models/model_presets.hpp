// Named transformer configurations with their published parameter counts
// (docs/model-to-workload.md, "Presets").
#pragma once

#include <string>
#include <vector>

#include "models/transformer.hpp"

namespace pipesim {

struct ModelPreset {
  TransformerConfig config;         // name, sizes, and a default training set-up (b = 1, s = context)
  double published_parameters = 0;  // as the source states it
  double tolerance = 0;             // |transformer_parameters - published| allowed (the published rounding)
  std::string source;
};

// nullptr when the name is unknown.
const ModelPreset* find_model_preset(const std::string& name);
// All preset names, in the table's order.
std::vector<std::string> model_preset_names();

}  // namespace pipesim
