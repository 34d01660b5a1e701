// A device type as the compute model sees it: peaks by precision, memory
// bandwidth and capacity, how close kernels come to the peak by size, and
// the host's cost per kernel. Presets with cited figures: device_presets.
#pragma once

#include <string>
#include <vector>

#include "devices/op_work.hpp"

namespace pipesim {

struct DeviceSpec {
  std::string name;             // "h100-sxm", ...
  double peak_fp32 = 0;         // dense flop/s (no sparsity); 0 = unsupported
  double peak_bf16 = 0;
  double peak_fp16 = 0;
  double peak_fp8 = 0;
  double memory_bandwidth = 0;  // bytes/s
  double memory_bytes = 0;
  // Efficiency of a GEMM-bound op against the peak: efficiency_max reached
  // by large GEMMs, falling for small ones (curve in compute_model.cpp).
  double efficiency_max = 0.8;
  double efficiency_half = 0;   // the size at which half of efficiency_max is reached (model-specific unit)
  double memory_efficiency = 0.8;  // achieved fraction of memory_bandwidth
  double host_overhead = 0;     // seconds of host time per kernel launch
  std::string source;           // where the figures come from
};

// Dense peak flop/s of a precision; 0 when the device lacks it.
double peak_flops(const DeviceSpec& d, Precision p);

// The presets ("a100-40gb", "a100-80gb", "h100-sxm", "h200", "mi300x", ...).
const DeviceSpec* find_device_preset(const std::string& name);
std::vector<std::string> device_preset_names();

}  // namespace pipesim
