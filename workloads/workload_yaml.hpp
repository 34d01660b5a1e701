// Reads a workload from YAML (format: docs/workload-format.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "workloads/workload.hpp"

namespace pipesim {

// Throws InputError ("FILE: [line N: ]FIELD: WHAT") for every problem: missing
// or unreadable file, YAML syntax, missing or unknown keys, wrong types,
// malformed units, out-of-range values, bad explicit placement.
// Layers written with `repeat` come back expanded; placement indices refer to
// the expanded chain. Schedule and host names are not validated here.
Workload load_workload(const std::string& path);

// One command-line override (`--set KEY=VALUE`): KEY is a dotted path into
// the workload's YAML map ("microbatches", "schedule.k", "placement.stages"),
// VALUE a scalar, or empty to remove the key.
struct WorkloadOverride {
  std::string key, value;
};

// Parses "KEY=VALUE"; throws std::invalid_argument when there is no '=' or
// KEY has an empty part ("a..b", ".a").
WorkloadOverride parse_workload_override(const std::string& text);

// load_workload with OVERRIDES applied, in order, to the parsed YAML before
// it is read, so a bad value or an unknown key is reported like one written
// in the file (without a line number). A scalar `schedule: NAME` becomes
// {name: NAME} when a parameter is set, and `placement: auto` becomes a map
// when `placement.stages` is set.
Workload load_workload(const std::string& path, const std::vector<WorkloadOverride>& overrides);

// load_workload(path, overrides) for many lists of overrides on one file,
// which is read and parsed once (pipesim plan loads thousands of
// candidates). Throws InputError as load_workload for an unreadable file or
// bad YAML, and the loader as load_workload for the rest.
using WorkloadLoader = std::function<Workload(const std::vector<WorkloadOverride>&)>;
WorkloadLoader workload_loader(const std::string& path);

// The workload file at PATH with OVERRIDES applied, as YAML text (comments
// and layout are yaml-cpp's, not the file's) for a file in folder DIR: the
// files it names (model.config, model.calibration, schedule.file) are
// rewritten relative to DIR, so the new file reads what the old one did.
std::string workload_yaml_with_overrides(const std::string& path, const std::vector<WorkloadOverride>& overrides,
                                         const std::string& dir);

}  // namespace pipesim
