// A workload's `parallel:` section: tp, pp, dp, the rank order or an
// explicit device list, ZeRO, gradient buckets and collective algorithms
// (docs/workload-format.md#parallel, docs/parallelism.md).
#pragma once

#include <yaml-cpp/yaml.h>

#include "sim/yaml_fields.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Fills w.parallel; the optimizer's sharding follows ZeRO (stage >= 1: its
// state over the dp ranks).
void load_parallel_section(const YamlFields& reader, const YAML::Node& section, Workload& w);

}  // namespace pipesim
