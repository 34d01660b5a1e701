#include "analysis/training_figures.hpp"

#include "devices/device_spec.hpp"

namespace pipesim {

namespace {

// Each device's host-bound seconds over the run: its passes' layers' share.
std::vector<double> host_bound_by_device(const TaskGraph& graph, const Workload& w, std::size_t devices) {
  std::vector<double> out(devices, 0);
  for (TaskId x = 0; x < graph.size(); ++x) {
    const Task task = graph.task(x);
    if (task.device < 0 || static_cast<std::size_t>(task.device) >= devices || task.layer_first < 0) continue;
    for (int l = task.layer_first; l <= task.layer_last && l < static_cast<int>(w.layers.size()); ++l) {
      const Layer::HostBound& h = w.layers[l].host_bound;
      switch (task.kind) {
        case TaskKind::Forward:
          out[task.device] += h.forward;
          break;
        case TaskKind::Backward:
          out[task.device] += h.backward_input + h.backward_weight;
          break;
        case TaskKind::BackwardInput:
          out[task.device] += h.backward_input;
          break;
        case TaskKind::BackwardWeight:
          out[task.device] += h.backward_weight;
          break;
        default:
          break;
      }
    }
  }
  return out;
}

}  // namespace

std::optional<TrainingFigures> training_figures(const Workload& w, const Platform& platform, const Metrics& m,
                                                const TaskGraph& graph, const Folding* folding) {
  if (!w.model || !m.completed || !(m.makespan > 0)) return std::nullopt;
  TrainingFigures t;
  // Each DP replica trains its own micro-batches; a layer's flops are one
  // TP rank's share.
  const double replicas = w.parallel.dp, ranks = static_cast<double>(w.parallel.tp) * w.parallel.dp;
  const double microbatches = static_cast<double>(m.microbatches) * m.iterations;
  t.tokens_per_second = w.model->tokens_per_microbatch * microbatches * replicas / m.makespan;
  double recompute = 0;
  for (const Layer& layer : w.layers) {
    t.model_flops_per_iteration += layer.model_flops * m.microbatches * ranks;
    if (layer.ops) recompute += layer.ops->recompute.flops * m.microbatches * ranks;
  }
  t.hardware_flops_per_iteration = t.model_flops_per_iteration + recompute;
  double peak = 0;
  for (std::size_t d = 0; d < m.devices.size() && d < platform.devices.size(); ++d) {
    if (m.devices[d].tasks == 0) continue;
    ++t.gpus;
    const Device& device = platform.devices[d];
    const DeviceSpec* spec = device.type.empty() ? nullptr : find_device_preset(device.type);
    const double p = spec ? peak_flops(*spec, w.model->precision) : 0;
    peak += p > 0 ? p : device.speed;
    t.peak_source = spec && p > 0 ? spec->name + " " + to_string(w.model->precision) + " peak" : "host speed";
  }
  if (t.gpus == 0) return std::nullopt;
  const double seconds = m.makespan / m.iterations;
  t.peak_flops_per_gpu = peak / t.gpus;
  t.model_flops_per_gpu = t.model_flops_per_iteration / seconds / t.gpus;
  t.mfu = t.model_flops_per_iteration / seconds / peak;
  t.hfu = t.hardware_flops_per_iteration / seconds / peak;
  std::vector<double> host = host_bound_by_device(graph, w, m.devices.size());
  if (folding && folding->folded())  // every replica's devices as their images in the one simulated
    for (std::size_t d = 0; d < host.size(); ++d) host[d] = host[folding->device_image[d]];
  for (std::size_t d = 0; d < host.size(); ++d)
    if (host[d] > 0 && (t.host_bound_device < 0 || host[d] > host[t.host_bound_device]))
      t.host_bound_device = static_cast<int>(d);
  if (t.host_bound_device >= 0) {
    const double busy = m.devices[t.host_bound_device].busy_time;
    t.host_bound_seconds = host[t.host_bound_device] / m.iterations;
    t.host_bound_share = busy > 0 ? host[t.host_bound_device] / busy : 0;
  }
  return t;
}

}  // namespace pipesim
