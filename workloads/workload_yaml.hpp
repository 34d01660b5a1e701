// Reads a workload from YAML (format: docs/workload-format.md).
#pragma once

#include <string>

#include "workloads/workload.hpp"

namespace pipesim {

// Throws InputError ("FILE: [line N: ]FIELD: WHAT") for every problem: missing
// or unreadable file, YAML syntax, missing or unknown keys, wrong types,
// malformed units, out-of-range values, bad explicit placement.
// Layers written with `repeat` come back expanded; placement indices refer to
// the expanded chain. Schedule and host names are not validated here.
Workload load_workload(const std::string& path);

}  // namespace pipesim
