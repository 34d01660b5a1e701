// A device type as the compute model sees it: peaks by precision, memory
// bandwidth and capacity, how close kernels come to the peak by GEMM shape,
// and the host's cost per kernel. Presets with cited figures:
// device_presets.cpp; the model and the fit: docs/devices.md.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "devices/op_work.hpp"

namespace pipesim {

// Efficiency against the peak as a smooth function of the GEMM shape
// (OpWork::gemm_m, gemm_n, gemm_k):
//   eff(m, n, k) = efficiency_max / (1 + (half_m/m)^p + (half_n/n)^p + (half_k/k)^p)
// with p = exponent. It rises to efficiency_max for large GEMMs and falls
// for small ones; a dimension whose half is 0 does not limit it. One
// dimension d alone at d = half_d gives efficiency_max / 2.
struct EfficiencyCurve {
  double efficiency_max = 0.7;
  double half_m = 0;  // tokens b*s
  double half_n = 0;  // FFN inner (or vocabulary rows) per TP rank
  double half_k = 0;  // hidden size
  double exponent = 2;
};

struct DeviceSpec {
  std::string name;      // "h100-sxm", ...
  double peak_fp32 = 0;  // dense flop/s (no sparsity); 0 = unsupported
  double peak_bf16 = 0;
  double peak_fp16 = 0;
  double peak_fp8 = 0;
  double memory_bandwidth = 0;  // bytes/s
  double memory_bytes = 0;
  // The curves (OpWork::pass picks one): a bare GEMM kernel, a layer's
  // forward, a layer's backward; fp8 bare GEMMs have their own (fp8 layer
  // passes scale the layer curve's maximum by gemm_fp8/gemm, docs/devices.md).
  EfficiencyCurve gemm;
  EfficiencyCurve gemm_fp8;
  EfficiencyCurve forward;
  EfficiencyCurve backward;
  double memory_efficiency = 0.8;  // achieved fraction of memory_bandwidth
  // Seconds of host time per kernel launch, by pass: a layer's forward
  // (eager PyTorch: Python modules), its backward (the autograd engine), a
  // bare GEMM launched alone. 0 for the last two = host_overhead.
  double host_overhead = 0;
  double backward_host_overhead = 0;
  double launch_overhead = 0;
  // Seconds of host time per kernel when the op is one of a chain of ops in
  // one task (a stage's layers): the host issues ahead of the GPU at its
  // in-sequence dispatch rate, and only a layer's host time beyond its
  // device time shows (HostIssue::InChain). 0 = host_overhead
  // (chain_backward_host_overhead: 0 = backward_host_overhead).
  double chain_host_overhead = 0;
  double chain_backward_host_overhead = 0;
  // Factors on the device time of ops by OpWork::key ("head.forward", ...):
  // layers whose measured time the flops/bytes of their OpWork and the block
  // curves do not describe (the LM head's fp32 cross-entropy, the
  // embedding's scatter-add backward); fitted per device (docs/devices.md).
  std::map<std::string, double> op_scale;
  bool measured = false;  // the curves are fitted to measurements of this device (else by analogy)
  std::string source;     // where the figures come from
};

// Dense peak flop/s of a precision; 0 when the device lacks it.
double peak_flops(const DeviceSpec& d, Precision p);

// The presets ("a100-40gb", "a100-80gb", "h100-sxm", "h200", "mi300x").
const DeviceSpec* find_device_preset(const std::string& name);
std::vector<std::string> device_preset_names();

}  // namespace pipesim
