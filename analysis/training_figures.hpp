// A run in the units LLM engineers use: tokens/s, model TFLOP/s per GPU,
// MFU (model flops against the devices' peak) and HFU (flops the hardware
// ran, recompute included). Only for workloads generated from a model.
#pragma once

#include <optional>
#include <string>

#include "analysis/metrics.hpp"
#include "sim/folding.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

struct TrainingFigures {
  double tokens_per_second = 0;
  double model_flops_per_iteration = 0;     // one pipeline replica, per tensor-parallel rank
  double hardware_flops_per_iteration = 0;  // with recompute
  int gpus = 0;                             // devices that ran compute
  double model_flops_per_gpu = 0;           // flop/s
  double peak_flops_per_gpu = 0;  // the device type's dense peak at the model's precision, else the host speed
  std::string peak_source;        // "h100-sxm bf16 peak" or "host speed"
  double mfu = 0;
  double hfu = 0;
  // Host-bound time: of the compute, the part where the GPU waits for the
  // host to launch its kernels (Layer::host_bound over the passes each
  // device ran), per iteration on the device that has most of it.
  double host_bound_seconds = 0;
  int host_bound_device = -1;   // -1: none has any
  double host_bound_share = 0;  // of that device's busy time
};

// nullopt when the workload has no model or the run did not complete.
// GRAPH: the run's, for the host-bound time of each device (one replica's when folded).
std::optional<TrainingFigures> training_figures(const Workload& workload, const Platform& platform,
                                                const Metrics& metrics, const TaskGraph& graph,
                                                const Folding* folding = nullptr);

}  // namespace pipesim
