#include "schedules/training_state.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "devices/device_spec.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

bool is_compute_pass(TaskKind k) {
  return k == TaskKind::Forward || k == TaskKind::Backward || k == TaskKind::BackwardInput ||
         k == TaskKind::BackwardWeight || k == TaskKind::Recompute;
}

bool declares_layer_memory(const Workload& w) {
  for (int l = 0; l < static_cast<int>(w.layers.size()); ++l) {
    const Layer& layer = w.layers[l];
    if (layer.stash || layer.forward_workspace > 0 || layer.backward_workspace > 0) return true;
  }
  return false;
}

// Per-layer figures summed or maxed over a task's layer range.
struct LayerTables {
  std::vector<double> extra_stash;  // stash beyond the input a_{l-1}, which the families already hold
  // Of it, what a split backward keeps from its input gradient to its weight gradient.
  std::vector<double> extra_weight_stash;
  std::vector<double> forward_ws, backward_ws;
};

LayerTables layer_tables(const Workload& w) {
  const int L = static_cast<int>(w.layers.size());
  LayerTables t{std::vector<double>(L), std::vector<double>(L), std::vector<double>(L), std::vector<double>(L)};
  for (int l = 0; l < L; ++l) {
    const double input = l == 0 ? w.input : w.layers[l - 1].activation;
    const double extra = layer_stash(w, l) - input;
    t.extra_stash[l] = extra;
    t.extra_weight_stash[l] = extra <= 0 ? extra : std::clamp(layer_weight_stash(w, l) - input, 0.0, extra);
    t.forward_ws[l] = w.layers[l].forward_workspace;
    t.backward_ws[l] = w.layers[l].backward_workspace;
  }
  return t;
}

// Whether stage s runs seed 002's program (docs/memory-saving.md).
void add_layer_memory(TaskGraph& graph, const Workload& w, const std::vector<StageMemorySaving>& programs) {
  if (!declares_layer_memory(w)) return;
  // (device, layer) that a program runs: by the layers, since a pattern's tasks number layers, not stages.
  std::set<std::pair<int, int>> programmed;
  for (const StageMemorySaving& m : programs)
    for (int l = m.first_layer; l <= m.last_layer; ++l) programmed.emplace(m.device, l);
  const LayerTables t = layer_tables(w);
  const int L = static_cast<int>(w.layers.size());
  const std::size_t n = graph.size();
  for (TaskId id = 0; id < n; ++id) {
    const Task task = graph.task(id);
    if (!is_compute_pass(task.kind) || task.layer_first < 0 || task.layer_last >= L) continue;
    if (programmed.count({task.device, task.layer_first}))
      continue;  // its program holds the stash and workspaces (tape, overheads)
    double extra = 0, kept_for_weights = 0, workspace = 0;
    const bool forward = task.kind == TaskKind::Forward || task.kind == TaskKind::Recompute;
    for (int l = task.layer_first; l <= task.layer_last; ++l) {
      extra += t.extra_stash[l];
      kept_for_weights += t.extra_weight_stash[l];
      workspace = std::max(workspace, forward ? t.forward_ws[l] : t.backward_ws[l]);
    }
    if (workspace > 0) {
      graph.add_memory(id, task.device, MemoryCategory::Workspace, MemoryWhen::AtStart, workspace);
      graph.add_memory(id, task.device, MemoryCategory::Workspace, MemoryWhen::AtFinish, -workspace);
    }
    if (extra != 0 && task.kind == TaskKind::Forward)
      graph.add_memory(id, task.device, MemoryCategory::Activations, MemoryWhen::AtStart, extra);
    // A whole backward frees the stash; a split one frees at its input
    // gradient all but what its weight gradient reads, and that at the end.
    const double freed = task.kind == TaskKind::Backward         ? extra
                         : task.kind == TaskKind::BackwardInput  ? extra - kept_for_weights
                         : task.kind == TaskKind::BackwardWeight ? kept_for_weights
                                                                 : 0;
    if (freed != 0) graph.add_memory(id, task.device, MemoryCategory::Activations, MemoryWhen::AtFinish, -freed);
  }
}

// Which layers each device computes (from the forwards it runs).
std::vector<std::vector<bool>> layers_by_device(const TaskGraph& graph, int layers) {
  std::vector<std::vector<bool>> held(graph.device_count());
  for (std::uint32_t s = 0; s < graph.shape_count(); ++s) {
    const Task& t = graph.shape(s).task;
    if (t.kind != TaskKind::Forward || t.layer_first < 0 || t.device < 0) continue;
    auto& row = held[t.device];
    if (row.empty()) row.assign(layers, false);
    for (int l = t.layer_first; l <= std::min(t.layer_last, layers - 1); ++l) row[l] = true;
  }
  return held;
}

// The bandwidth at which the optimizer reads and writes a device's memory.
double optimizer_bandwidth(const Workload& w, const Device& device, const std::string& platform_file) {
  double bandwidth = device.memory_bandwidth;
  if (!(bandwidth > 0) && !device.type.empty())
    if (const DeviceSpec* spec = find_device_preset(device.type))
      bandwidth = spec->memory_bandwidth * spec->memory_efficiency;
  if (!(bandwidth > 0))
    throw InputError(platform_file, "host '" + device.name + "' property memory_bandwidth",
                     "the optimizer step of " + w.file +
                         " reads and writes memory: give the host a memory_bandwidth like '3.35TBps' or a device "
                         "type (property device)");
  return bandwidth;
}

// Seconds of the optimizer step on a device that updates `parameters`.
double optimizer_step_seconds(const Workload& w, const Device& device, double parameters,
                              const std::string& platform_file) {
  const double shards = w.optimizer.distributed ? w.optimizer.data_parallel : 1;
  if (w.optimizer.step_seconds_per_parameter > 0) return parameters / shards * w.optimizer.step_seconds_per_parameter;
  return parameters / shards * optimizer_step_bytes(w.optimizer) / optimizer_bandwidth(w, device, platform_file);
}

// Seconds of the gradient norm's pass: the device's gradients read once.
double gradient_norm_seconds(const Workload& w, const Device& device, double parameters,
                             const std::string& platform_file) {
  const double shards = w.optimizer.distributed ? w.optimizer.data_parallel : 1;
  return parameters / shards * w.optimizer.gradient_bytes / optimizer_bandwidth(w, device, platform_file);
}

// Where the end of each iteration goes in the device orders: after the
// iteration's last task, before the next iteration's first on the device.
class IterationEnds {
 public:
  IterationEnds(TaskGraph& graph, int iterations, const std::string& file, const Platform& platform)
      : graph_(graph), platform_(platform), next_first_(iterations, std::vector<TaskId>(graph.device_count())) {
    for (int d = 0; d < graph.device_count(); ++d) {
      int last = 0;
      for (const TaskId t : graph.device_order(d)) {
        const int it = graph.task(t).iteration;
        if (it < last)
          throw InputError(file, "iterations",
                           "the schedule's device orders run iterations into one another, so no optimizer step can "
                           "run between two: run iterations: 1");
        for (int i = last; i < it; ++i) next_first_[i][d] = t;
        last = it;
      }
      for (int i = last; i < iterations; ++i) next_first_[i][d] = kNoTask;
    }
  }

  // A pass at the end of iteration IT on device d, `seconds` long, after `deps`.
  TaskId add_pass(TaskKind kind, int d, double seconds, const std::vector<TaskId>& deps, int it) {
    Task task;
    task.kind = kind;
    task.device = d;
    task.amount = seconds * platform_.devices[d].speed;
    task.iteration = it;
    const TaskId id = graph_.add(task, deps);
    if (next_first_[it][d] == kNoTask)
      graph_.append_to_order(id);
    else
      graph_.insert_into_order(id, next_first_[it][d]);
    return id;
  }

 private:
  static constexpr TaskId kNoTask = static_cast<TaskId>(-1);
  TaskGraph& graph_;
  const Platform& platform_;
  std::vector<std::vector<TaskId>> next_first_;  // [iteration][device]: the next iteration's first ordered task
};

// Gradient clipping (Megatron's clip_grad_norm, before every step): each
// device reads its gradients for their norm, the norms are all-reduced over
// the devices (one fp32), and only then does any device step. `ready[d]`
// becomes what device d's step waits for. A job all-reduces over its own
// groups instead (parallelism/job_builder.cpp). With post-validation the
// norm is passed down the pipeline instead (pass_partial_norms).
void add_gradient_norms(IterationEnds& ends, TaskGraph& graph, const Workload& w, const Platform& platform,
                        const std::vector<double>& parameters, std::vector<std::vector<TaskId>>& ready, int it) {
  std::vector<int> group;
  std::vector<std::vector<TaskId>> norms;
  for (int d = 0; d < static_cast<int>(ready.size()); ++d) {
    if (ready[d].empty()) continue;
    const TaskId id =
        ends.add_pass(TaskKind::GradientNorm, d,
                      gradient_norm_seconds(w, platform.devices[d], parameters[d], platform.file), ready[d], it);
    group.push_back(d);
    norms.push_back({id});
    ready[d] = {id};
  }
  if (group.size() < 2 || w.parallel.given || w.optimizer.post_validation) return;
  CollectiveSpec spec;
  spec.group = group;
  spec.bytes = 4;
  spec.purpose = kGradientNormPurpose;
  Task tag;
  tag.iteration = it;
  const auto first_task = static_cast<TaskId>(graph.size());
  try {
    const CollectiveTasks sum = add_collective(graph, spec, platform, norms, tag);
    graph.add_collective_instance(sum.record, first_task);
    for (std::size_t i = 0; i < group.size(); ++i) ready[group[i]] = {sum.done[i]};
  } catch (const std::invalid_argument& e) {  // devices with no route between them
    throw InputError(w.file, "optimizer.clip_grad",
                     std::string("the gradients' norm is all-reduced over every device that steps: ") + e.what() +
                         " (clip_grad: false runs without it)");
  }
}

// The zero-bubble runtime's post-validation (its optimizer's pre_step): a
// device receives the norm and overflow flag reduced over the stages before
// it, adds its own, passes them on (two fp32) and steps; the full norm
// checks the step during the next iteration, off its critical path.
// PIPELINE: the devices that step, in the order of their first layer.
void pass_partial_norms(TaskGraph& graph, const std::vector<int>& pipeline, std::vector<std::vector<TaskId>>& ready,
                        int it) {
  for (std::size_t i = 1; i < pipeline.size(); ++i) {
    Task pass;
    pass.kind = TaskKind::Transfer;
    pass.device = pipeline[i - 1];
    pass.peer = pipeline[i];
    pass.amount = 8;
    pass.iteration = it;
    const TaskId id = graph.add(pass, ready[pipeline[i - 1]]);
    ready[pipeline[i]].push_back(id);
  }
}

// Megatron's embedding all-reduce (finalize_model_grads): with tied
// embeddings on two devices, the tied weights' gradient is summed between
// them before their optimizer steps; it joins what each step waits for.
// A job adds it per replica instead, after the DP reduction
// (parallelism/job_builder.cpp).
void sum_tied_gradients(TaskGraph& graph, const Workload& w, const Platform& platform,
                        const std::vector<std::vector<bool>>& held, std::vector<std::vector<TaskId>>& backwards,
                        int it) {
  const int head = tied_head(w);
  if (head < 0 || w.parallel.given) return;
  int first = -1, last = -1;
  for (int d = 0; d < static_cast<int>(held.size()); ++d) {
    if (held[d].empty()) continue;
    if (held[d][0] && first < 0) first = d;
    if (held[d][head]) last = d;
  }
  if (first < 0 || last < 0 || first == last) return;
  CollectiveSpec spec;
  spec.group = {first, last};
  spec.bytes = tied_gradient_bytes(w);
  spec.purpose = kTiedEmbeddingPurpose;
  Task tag;
  tag.layer_first = 0;
  tag.layer_last = head;
  tag.iteration = it;
  try {
    const auto first_task = static_cast<TaskId>(graph.size());
    const CollectiveTasks sum = add_collective(graph, spec, platform, {backwards[first], backwards[last]}, tag);
    graph.add_collective_instance(sum.record, first_task);
    backwards[first].push_back(sum.done[0]);
    backwards[last].push_back(sum.done[1]);
  } catch (const std::invalid_argument& e) {  // no route between the two devices
    throw InputError(w.file, "model.tied_embeddings",
                     "the tied embeddings' gradient is summed between hosts '" + platform.devices[first].name +
                         "' and '" + platform.devices[last].name + "': " + e.what());
  }
}

// The devices that hold layers, in the order of their first layer.
std::vector<int> pipeline_devices(const std::vector<std::vector<bool>>& held) {
  std::vector<std::pair<std::size_t, int>> first;
  for (int d = 0; d < static_cast<int>(held.size()); ++d)
    if (!held[d].empty()) first.emplace_back(std::find(held[d].begin(), held[d].end(), true) - held[d].begin(), d);
  std::sort(first.begin(), first.end());
  std::vector<int> out;
  for (const auto& f : first) out.push_back(f.second);
  return out;
}

// Per iteration, one Update per device after its last backward and its
// last send: it reads the gradients the iteration accumulated; the next
// iteration's passes on the device wait for it.
void add_optimizer_steps(TaskGraph& graph, const Workload& w, const Platform& platform,
                         const std::vector<std::vector<bool>>& held, const std::vector<double>& parameters) {
  if (w.iterations > 1 && w.parallel.given)
    throw InputError(w.file, "iterations",
                     "a parallel job's optimizer step is simulated once, after the last iteration: run iterations: 1");
  if (w.optimizer.post_validation && w.parallel.given)
    throw InputError(w.file, "optimizer.post_validation",
                     "not simulated in a parallel job yet (its norms are summed over TP and DP groups): leave it out");
  const int D = static_cast<int>(parameters.size());
  int iterations = 1;
  for (std::uint32_t s = 0; s < graph.shape_count(); ++s)
    iterations = std::max(iterations, graph.shape(s).task.iteration + 1);
  if (iterations != w.iterations)  // PipeDream's: its iterations are one stream of micro-batches
    throw InputError(w.file, "iterations",
                     "the schedule runs its iterations as one stream of micro-batches, with no step between two: "
                     "run iterations: 1");
  IterationEnds ends(graph, iterations, w.file, platform);
  std::vector<std::vector<std::vector<TaskId>>> backwards(iterations, std::vector<std::vector<TaskId>>(D));
  const std::size_t n = graph.size();
  for (TaskId id = 0; id < n; ++id) {
    const Task t = graph.task(id);
    if (t.device < 0 || t.device >= D || t.iteration < 0) continue;
    if (t.kind == TaskKind::Backward || t.kind == TaskKind::BackwardWeight)
      backwards[t.iteration][t.device].push_back(id);
    // Its sends too: Megatron's point-to-point calls wait on their requests
    // (2021's _communicate then synchronizes the device), so the iteration's
    // end starts once the device's last send is done.
    if (t.kind == TaskKind::Transfer && t.peer != t.device) backwards[t.iteration][t.device].push_back(id);
  }
  const std::vector<int> pipeline = pipeline_devices(held);
  for (int it = 0; it < iterations; ++it) {
    std::vector<std::vector<TaskId>>& ready = backwards[it];
    sum_tied_gradients(graph, w, platform, held, ready, it);
    if (w.optimizer.clip_grad) add_gradient_norms(ends, graph, w, platform, parameters, ready, it);
    if (w.optimizer.post_validation) pass_partial_norms(graph, pipeline, ready, it);
    for (int d = 0; d < D; ++d)
      if (!ready[d].empty())
        ends.add_pass(TaskKind::Update, d, optimizer_step_seconds(w, platform.devices[d], parameters[d], platform.file),
                      ready[d], it);
  }
}

void add_device_state(TaskGraph& graph, const Workload& w, const Platform& platform) {
  const int L = static_cast<int>(w.layers.size());
  const bool optimizer = w.optimizer.name != "none";
  bool tied = false;
  for (const Layer& layer : w.layers) tied = tied || layer.tied_to_first;
  if (!optimizer && w.runtime_reserve <= 0 && !tied) return;
  const auto held = layers_by_device(graph, L);
  std::vector<double> parameters(held.size(), 0);
  for (int d = 0; d < static_cast<int>(held.size()); ++d) {
    if (held[d].empty()) continue;
    double weights = 0, own_weights = 0;
    for (int l = 0; l < L; ++l) {
      if (!held[d][l]) continue;
      weights += w.layers[l].weights;
      if (w.layers[l].tied_to_first && held[d][0]) continue;  // the embedding's weights, already here
      own_weights += w.layers[l].weights;
      parameters[d] += layer_parameters(w, l);
    }
    // The families hold the weights and a gradient buffer of the same size for every layer they place.
    if (own_weights != weights) graph.add_static_memory(d, MemoryCategory::Weights, own_weights - weights);
    const double gradients = optimizer ? parameters[d] * w.optimizer.gradient_bytes : own_weights;
    if (gradients != weights) graph.add_static_memory(d, MemoryCategory::Gradients, gradients - weights);
    if (optimizer) {
      const double shards = w.optimizer.distributed ? w.optimizer.data_parallel : 1;
      graph.add_static_memory(d, MemoryCategory::Optimizer, parameters[d] * w.optimizer.state_bytes / shards);
    }
    if (w.runtime_reserve > 0) graph.add_static_memory(d, MemoryCategory::Runtime, w.runtime_reserve);
  }
  if (optimizer) add_optimizer_steps(graph, w, platform, held, parameters);
}

}  // namespace

double training_state_bytes(const Workload& w, int first, int last) {
  double bytes = std::max(0.0, w.runtime_reserve);
  const bool optimizer = w.optimizer.name != "none";
  const double state_shards = w.optimizer.distributed ? w.optimizer.data_parallel : 1;
  // ZeRO-2 shards every gradient byte over the replicas (job_static_bytes).
  const double gradient_shards = w.parallel.given && w.parallel.zero >= 2 ? w.parallel.dp : 1;
  for (int l = first; l <= last; ++l) {
    const double parameters = layer_parameters(w, l), weights = w.layers[l].weights;
    const double gradients = optimizer ? std::max(weights, parameters * w.optimizer.gradient_bytes) : weights;
    bytes +=
        gradients / gradient_shards - weights + (optimizer ? parameters * w.optimizer.state_bytes / state_shards : 0);
  }
  return bytes;
}

void add_training_state(TaskGraph& graph, const Workload& workload, const Platform& platform,
                        const std::vector<StageMemorySaving>& programs) {
  if (!declares_training_state(workload)) return;
  add_layer_memory(graph, workload, programs);
  add_device_state(graph, workload, platform);
}

}  // namespace pipesim
