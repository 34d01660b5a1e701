#include "analysis/training_figures.hpp"

#include "devices/device_spec.hpp"

namespace pipesim {

std::optional<TrainingFigures> training_figures(const Workload& w, const Platform& platform, const Metrics& m) {
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
  return t;
}

}  // namespace pipesim
