// A training workload: a chain of layers, how many micro-batches, which
// schedule, and where the stages go. Plain data, read from YAML.
#pragma once

#include <algorithm>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "devices/op_work.hpp"
#include "models/transformer.hpp"

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

// What each pass of a layer asks of a device (from a model: models/), so
// that the compute model can time it on the platform's device type.
struct LayerOps {
  OpWork forward;
  OpWork backward_input;
  OpWork backward_weight;
  OpWork recompute;  // forward work redone before the backward (0 flops: none)
};

// Seed 004's §VI lookup table entry: seconds of a layer's passes on one
// whole compute resource of a type (infinite: that type cannot run the pass).
struct ResourceTimes {
  double forward = 0;
  double backward = 0;
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
  // Bytes kept from the forward until the backward. Absent: the layer's input
  // a_{l-1} (seed 000's model). A transformer block keeps about 30 s.b.h
  // but sends only 2 s.b.h (`activation`): docs/model-to-workload.md.
  std::optional<double> stash{};
  // Of the stash, what a split backward keeps from its input gradient until
  // its weight gradient (a model layer's weight GEMMs' inputs and output
  // gradients). Absent, or above the stash: the whole stash.
  std::optional<double> weight_stash{};
  // Transient working memory above what is held, while the pass runs.
  double forward_workspace = 0;
  double backward_workspace = 0;
  // Parameter count, for gradients and optimizer state. Absent: weights /
  // optimizer.weight_bytes.
  std::optional<double> parameters{};
  // The LM head whose weights are the first layer's (tied embeddings): on the
  // device that also holds the first layer, they are not held twice.
  bool tied_to_first = false;
  // Forward + backward model flops, without recompute: MFU's numerator.
  // 0: the layer's forward and backward costs when they are flops.
  double model_flops = 0;
  // By resource type ("cpu", "gpu", ...): the layer's time on each, for the
  // `split` schedule (docs/mobile.md#time-tables); empty: flops / speed.
  std::map<std::string, ResourceTimes> resource_times{};
  std::optional<LayerOps> ops{};  // present for layers generated from a model
  // Of each pass's time, the part the host adds beyond the device's (the GPU
  // waiting for kernel launches), set with the times from a model's ops
  // (model_costs.hpp); the report's host-bound line sums it.
  struct HostBound {
    double forward = 0, backward_input = 0, backward_weight = 0;  // seconds
  } host_bound{};
  TpCollectives tp{};  // its tensor-parallel collectives (from a model with tp > 1)
};

// PipeDream's activation bytes of a layer (operator_activations, else activation).
inline double operator_activations(const Layer& layer) {
  return layer.operator_activations ? *layer.operator_activations : layer.activation;
}

// How automatic placement splits the layers into stages
// (docs/workload-format.md#placement): Auto is each schedule family's own
// rule (flush and pattern schedules Balanced, the PyTorch schedules Even).
enum class PartitionRule { Auto, Even, Balanced };

struct Placement {
  bool automatic = true;
  int stages = 0;  // with automatic: number of stages (0 = one per device)
  // Explicit: inclusive 0-based layer range of each stage, and its host name.
  std::vector<std::pair<int, int>> stage_layers;
  std::vector<std::string> stage_hosts;
  PartitionRule partition = PartitionRule::Auto;  // with automatic
  // With automatic: the layers of each stage, counted in stage order
  // (placement.layers); empty: split by `partition`. Sets `stages`.
  std::vector<int> layer_counts{};
};

// Seed 002's memory saving applied to every stage of a flush pipeline
// (docs/workload-format.md#memory-saving, docs/memory-saving.md).
struct MemorySaving {
  std::string policy = "none";  // none, remat, offload or both (docs/workload-format.md)
  double limit = 0;             // bytes per micro-batch; 0 = auto (or fit)
  bool fit = false;             // limit fit: the largest that fits beside the waiting micro-batches
  int slots = 500;              // the program's memory grid N
  bool operator==(const MemorySaving& o) const {
    return policy == o.policy && limit == o.limit && fit == o.fit && slots == o.slots;
  }
};

// Optimizer state and its step (docs/workload-format.md#optimizer). Bytes
// per parameter; the mixed-precision default: bf16 weights and gradients,
// fp32 master weights and Adam's two moments (12 bytes).
struct Optimizer {
  std::string name = "none";  // none, adam (adamw)
  double weight_bytes = 2;
  double gradient_bytes = 2;  // 4: fp32 gradient accumulation
  double state_bytes = 12;
  // ZeRO-1 (the distributed optimizer): the state and its step are sharded
  // over the data-parallel ranks.
  bool distributed = false;
  int data_parallel = 1;
  // Gradient clipping by the global norm (Megatron's default clip_grad 1.0):
  // each device reads its gradients, their norm is all-reduced, then the step.
  bool clip_grad = true;
  // The zero-bubble runtime's optimizer post-validation (Qi et al. 2024 §4):
  // each device steps once its own gradients are final and its pipeline
  // predecessor has passed it the partially reduced norm, and checks the step
  // against the full norm during the next iteration; no device waits for the
  // norm's all-reduce.
  bool post_validation = false;
  // A calibration's measured step (key optimizer.step, the whole model on one
  // device) per parameter; 0: timed by the device's memory bandwidth.
  double step_seconds_per_parameter = 0;
};

// Bytes per parameter the optimizer step reads and writes: the state read
// and written, the gradient read, the low-precision weights written.
inline double optimizer_step_bytes(const Optimizer& o) { return 2 * o.state_bytes + o.gradient_bytes + o.weight_bytes; }

// How the job splits over the platform's devices: tensor (tp), pipeline
// (pp) and data (dp) parallelism, the rank order, the gradient reduction
// and ZeRO (docs/parallelism.md). Absent: one pipeline, one device per stage.
struct Parallel {
  bool given = false;
  int tp = 1;
  int pp = 0;  // 0: the devices left, devices / (tp x dp)
  int dp = 1;
  // Rank order, innermost first: rank = t + tp.(d + dp.p) for "tp-dp-pp"
  // (Megatron's default tp-cp-dp-pp, so a TP group shares a box).
  std::string order = "tp-dp-pp";
  std::vector<std::string> devices;  // explicit: a host name per rank, in rank order
  int gpus = 0;                      // > 0: the platform's first GPUS compute devices, not all of them
  int zero = 0;             // 0: all-reduce (DDP); 1: distributed optimizer; 2: + gradients; 3: + weights (FSDP)
  double bucket_bytes = 0;  // gradient bucket; 0: Megatron's max(40M, 1M x dp) parameters
  bool overlap_gradient_reduce = true;  // buckets reduce while the last backward runs
  // ZeRO >= 1: the weights' all-gather after the step overlaps the next
  // iteration's forward (Megatron's --overlap-param-gather, NeMo's
  // overlap_param_sync): each device's first forward waits for its first
  // bucket, its first backward for the rest; false: the step waits for it.
  bool overlap_param_gather = false;
  bool overlap_tp = false;  // TP collectives overlap the device's next task
  // Pipeline sends overlap the device's next pass (true), or the pass waits
  // for the sends of the one before it (false: Megatron without
  // --overlap-p2p-communication, whose point-to-point calls wait on their requests).
  bool overlap_p2p = true;
  // A tensor every TP rank holds whole (no sequence parallelism) crosses a
  // pipeline boundary as 1/tp per rank, then the receiving TP group
  // all-gathers it (Megatron's scatter/gather optimization: Narayanan et al.
  // 2021, SC'21, section 4.1; on by default there).
  bool scatter_gather = true;
  std::string tp_algorithm = "auto";
  std::string dp_algorithm = "auto";
};

// What a workload generated from a model knows of the job (reports: tokens/s, MFU).
struct ModelJob {
  std::string model;  // preset or config name
  double tokens_per_microbatch = 0;
  Precision precision = Precision::BF16;
  double parameters = 0;           // whole model
  std::string config;              // the Hugging Face config.json it was read from, "" for none
  std::string calibration;         // a calibration file (devices/compute_model.hpp), "" for none
  std::string recompute = "none";  // none, selective, full
};

struct Workload {
  std::string file;  // for error messages
  std::string name;
  std::vector<Layer> layers;
  double input = 0;         // bytes of the network input a_0 (one micro-batch)
  int microbatches = 1;     // 0: left out, for a schedule that reads it from its file (csv)
  int microbatch_size = 1;  // samples per micro-batch, for throughput
  int iterations = 1;
  // flop/s of the device on which second-valued costs were measured;
  // 0 = the fastest device of the platform.
  double reference_speed = 0;
  std::string schedule;                                // "1f1b", "gpipe", ...
  std::map<std::string, std::string> schedule_params;  // generator-specific
  Placement placement;
  MemorySaving memory_saving;                      // a map: every stage
  std::vector<MemorySaving> memory_saving_stages;  // a list: one per stage (then memory_saving is none)
  Optimizer optimizer;
  // Static bytes per device beyond the model: library workspaces, the
  // allocator's buffers, a CUDA context (docs/workload-format.md#memory).
  double runtime_reserve = 0;
  std::optional<ModelJob> model;  // present when layers come from a `model:` section
  Parallel parallel;
};

// Whether the workload declares memory beyond seed 000's chain (a stash
// other than the input, workspaces, tied weights, optimizer state, a
// reserve): schedules/training_state.cpp adds it to every family's graph;
// the pattern model's analytic memory does not hold it.
inline bool declares_training_state(const Workload& w) {
  if (w.optimizer.name != "none" || w.runtime_reserve > 0) return true;
  for (const Layer& layer : w.layers)
    if (layer.stash || layer.forward_workspace > 0 || layer.backward_workspace > 0 || layer.tied_to_first) return true;
  return false;
}

// The bytes layer l keeps from its forward to its backward.
inline double layer_stash(const Workload& w, int l) {
  const Layer& layer = w.layers[l];
  if (layer.stash) return *layer.stash;
  return l == 0 ? w.input : w.layers[l - 1].activation;
}

// Of layer_stash, the bytes a split backward keeps from its input gradient
// until its weight gradient.
inline double layer_weight_stash(const Workload& w, int l) {
  const double stash = layer_stash(w, l);
  const std::optional<double>& kept = w.layers[l].weight_stash;
  return kept && *kept < stash ? *kept : stash;
}

// The layer whose weights are the first layer's (a tied LM head), -1 for none.
inline int tied_head(const Workload& w) {
  for (int l = static_cast<int>(w.layers.size()) - 1; l > 0; --l)
    if (w.layers[l].tied_to_first) return l;
  return -1;
}

// Parameters of layer l.
inline double layer_parameters(const Workload& w, int l) {
  const Layer& layer = w.layers[l];
  if (layer.parameters) return *layer.parameters;
  return w.optimizer.weight_bytes > 0 ? layer.weights / w.optimizer.weight_bytes : 0;
}

// The gradient of the tied weights that the first layer's device and the
// head's sum at the end of the iteration, when they differ (Megatron's
// embedding all-reduce): the parameters both hold, the smaller of the two
// layers' (the embedding may add position embeddings, the head its final
// norm), at the gradient's precision. 0 without a tied head.
inline double tied_gradient_bytes(const Workload& w) {
  const int head = tied_head(w);
  if (head < 0) return 0;
  return std::min(layer_parameters(w, 0), layer_parameters(w, head)) * w.optimizer.gradient_bytes;
}

// The schedule's `file` parameter (schedule pattern, csv) as a path: relative
// ones are relative to the workload's folder. "" when there is none.
// A path the workload names: relative ones are relative to its folder.
inline std::string path_beside(const Workload& w, const std::string& given) {
  const std::filesystem::path p(given);
  return p.is_absolute() ? given : (std::filesystem::path(w.file).parent_path() / p).string();
}

inline std::string schedule_file_path(const Workload& w) {
  const auto it = w.schedule_params.find("file");
  if (it == w.schedule_params.end() || it->second.empty()) return "";
  return path_beside(w, it->second);
}

// Whether a memory-saving policy moves activations to host memory.
inline bool uses_host_memory(const std::string& policy) { return policy == "both" || policy == "offload"; }

// Whether any stage offloads to host memory.
inline bool offloads(const Workload& w) {
  if (uses_host_memory(w.memory_saving.policy)) return true;
  for (const MemorySaving& m : w.memory_saving_stages)
    if (uses_host_memory(m.policy)) return true;
  return false;
}

// Whether any stage saves memory.
inline bool saves_memory(const Workload& w) {
  if (w.memory_saving.policy != "none") return true;
  for (const MemorySaving& m : w.memory_saving_stages)
    if (m.policy != "none") return true;
  return false;
}

}  // namespace pipesim
