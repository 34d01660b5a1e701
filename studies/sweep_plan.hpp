// A sweep spec (docs/whatif.md) read into its plan: every run of the grid,
// in grid order, with the inputs that make it, made one at a time so that a
// sweep of a million runs never holds them all.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "workloads/workload_yaml.hpp"

namespace pipesim {

struct SweepRun {
  std::string id;                           // "0007": its index in grid order, zero-padded
  std::vector<std::string> values;          // one per SweepPlan::columns
  std::string platform, workload;           // resolved paths (relative to the spec's folder)
  std::string cluster;                      // for a platform written "cluster ARGS": ARGS, the platform is generated
  std::vector<WorkloadOverride> overrides;  // the spec's `set`, then the swept ones
};

struct SweepPlan {
  std::string name;
  std::string generator;                           // make_platform.py, resolved; needed by "cluster ARGS" platforms
  std::vector<std::string> columns;                // "platform", "workload", then the swept override keys
  std::size_t size = 0;                            // runs in the grid
  std::function<SweepRun(std::size_t index)> run;  // grid order: the first dimension varies slowest
  // Every file the sweep reads, once each, as {what, path}: the spec, the
  // generator, the platforms, the workloads and the files they name (a
  // schedule file, a model's config and calibration). No output may be one.
  std::vector<std::pair<std::string, std::string>> inputs;
};

// Called while the runs are checked, with how many are checked of how many.
using SweepChecking = std::function<void(std::size_t checked, std::size_t total)>;

// Reads SPEC; throws InputError "SPEC: [line N: ]FIELD: WHAT" for an unknown
// key, an empty grid or list, zipped lists of different lengths, a platform
// that is not a file (or "cluster ARGS" without a `generator`), and (by loading every run's workload with its
// overrides) an override of an unknown field or a bad value, an unknown schedule or schedule parameter.
// Checking a million runs takes minutes: `checking` hears how far it is.
SweepPlan load_sweep_plan(const std::string& spec, const SweepChecking& checking = nullptr);

// The runs (their indices) of shard I of N (1 <= I <= N): every N-th run from the I-th.
std::vector<std::size_t> shard_runs(const SweepPlan& plan, int index, int count);

// "I/N" -> {I, N}; throws std::invalid_argument unless 1 <= I <= N.
std::pair<int, int> parse_shard(const std::string& text);

}  // namespace pipesim
