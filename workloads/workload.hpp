// A training workload: a chain of layers, how many micro-batches, which
// schedule, and where the stages go. Plain data, read from YAML.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pipesim {

// The largest cost value the loader accepts (seconds or flops): sums of
// millions of such times stay finite. generate() also bounds the time of a
// cost on the platform's slowest device (kMaxCost seconds).
constexpr double kMaxCost = 1e100;

// A compute cost: seconds on the reference device, or flops.
struct Cost {
  double value = 0;
  bool flops = false;
};

struct Layer {
  std::string name;
  Cost forward;
  Cost backward;
  double activation = 0;  // bytes of the output activation a_l (and of its gradient)
  double weights = 0;     // bytes of the layer's parameters
  // The two halves of a split backward (schedules with I and W ops: zb-h1,
  // zbv, PyTorch CSVs): input gradient and weight gradient. Given together
  // or not at all; without them each half costs backward / 2.
  bool split_given = false;
  Cost backward_input{};
  Cost backward_weight{};
  // Bytes of the outputs of every operator folded into the layer (a PipeDream
  // profile's activation_size summed over its group): what PipeDream's planner
  // counts as the layer's activations. Absent: `activation` (one operator).
  std::optional<double> operator_activations{};
};

// PipeDream's activation bytes of a layer (operator_activations, else activation).
inline double operator_activations(const Layer& layer) {
  return layer.operator_activations ? *layer.operator_activations : layer.activation;
}

struct Placement {
  bool automatic = true;
  int stages = 0;  // with automatic: number of stages (0 = one per device)
  // Explicit: inclusive 0-based layer range of each stage, and its host name.
  std::vector<std::pair<int, int>> stage_layers;
  std::vector<std::string> stage_hosts;
};

// Seed 002's memory saving applied to every stage of a flush pipeline
// (docs/workload-format.md#memory-saving, docs/memory-saving.md).
struct MemorySaving {
  std::string policy = "none";  // none, remat, offload or both (docs/workload-format.md)
  double limit = 0;             // bytes per micro-batch; 0 = auto (or fit)
  bool fit = false;             // limit fit: the largest that fits beside the waiting micro-batches
  int slots = 500;              // the program's memory grid N
};

struct Workload {
  std::string file;  // for error messages
  std::string name;
  std::vector<Layer> layers;
  double input = 0;  // bytes of the network input a_0 (one micro-batch)
  int microbatches = 1;  // 0: left out, for a schedule that reads it from its file (csv)
  int microbatch_size = 1;  // samples per micro-batch, for throughput
  int iterations = 1;
  // flop/s of the device on which second-valued costs were measured;
  // 0 = the fastest device of the platform.
  double reference_speed = 0;
  std::string schedule;  // "1f1b", "gpipe", ...
  std::map<std::string, std::string> schedule_params;  // generator-specific
  Placement placement;
  MemorySaving memory_saving;                      // a map: every stage
  std::vector<MemorySaving> memory_saving_stages;  // a list: one per stage (then memory_saving is none)
};

// The schedule's `file` parameter (schedule pattern, csv) as a path: relative
// ones are relative to the workload's folder. "" when there is none.
inline std::string schedule_file_path(const Workload& w) {
  const auto it = w.schedule_params.find("file");
  if (it == w.schedule_params.end() || it->second.empty()) return "";
  const std::filesystem::path given(it->second);
  return given.is_absolute() ? given.string() : (std::filesystem::path(w.file).parent_path() / given).string();
}

// Whether any stage saves memory.
inline bool saves_memory(const Workload& w) {
  if (w.memory_saving.policy != "none") return true;
  for (const MemorySaving& m : w.memory_saving_stages)
    if (m.policy != "none") return true;
  return false;
}

}  // namespace pipesim
