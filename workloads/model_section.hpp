// A workload's `model:` section: a preset, a Hugging Face config.json or the
// fields themselves, with overrides, turned into the layer chain
// (models/transformer.hpp) and the job's figures (Workload::model).
// docs/workload-format.md#model, docs/model-to-workload.md.
#pragma once

#include <yaml-cpp/yaml.h>

#include "sim/yaml_fields.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Static bytes a model workload reserves per device by default: the
// workspaces and buffers PyTorch held beyond weights and gradients in the
// measured one-GPU runs (69.5 MB; docs/model-to-workload.md#memory).
constexpr double kModelRuntimeReserve = 70e6;

// Fills w.layers, w.input, w.microbatch_size and w.model from the section.
void load_model_section(const YamlFields& reader, const YAML::Node& section, Workload& w);

}  // namespace pipesim
