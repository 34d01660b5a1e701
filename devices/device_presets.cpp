// Device presets: datasheet peaks (dense, no sparsity), memory bandwidth and
// capacity (decimal units, as the datasheets state them), and the compute
// model's curves and host overheads fitted to the project's measurements
// (H100, H200; tests/data/measured/README-devices.md) or taken from them by
// analogy (A100, MI300X). Figures, sources and fit: docs/devices.md.
#include <map>

#include "devices/device_spec.hpp"

namespace pipesim {
namespace {

constexpr double T = 1e12;  // TFLOP/s, TB/s
constexpr double GB = 1e9;
constexpr double us = 1e-6;

// Fitted 2026-11-26 on tests/data/measured/gpu-gemm-h100.json and h100-blocks.json;
// the layer curves refitted with the GPU-only times of the 2,048-token blocks
// (h100-blocks.json h = 2048, b = 1; the 4-stage model's blocks, stages.json).
const EfficiencyCurve kH100Gemm{0.708, 1990, 492, 945, 4.94};
const EfficiencyCurve kH100Fp8{0.686, 1760, 1760, 1760, 2.93};
const EfficiencyCurve kH100Forward{0.7615, 150.1, 243.6, 673.6, 1.161};
const EfficiencyCurve kH100Backward{0.8205, 562.9, 8.50, 962.0, 0.908};
// Fitted on gpu-gemm-h200.json and h200-blocks.json.
const EfficiencyCurve kH200Gemm{0.696, 2140, 1170, 1270, 6.80};
const EfficiencyCurve kH200Fp8{0.693, 2060, 2060, 2060, 2.67};
const EfficiencyCurve kH200Forward{0.6675, 9.91, 0, 587, 5.12};
const EfficiencyCurve kH200Backward{0.628, 672, 259, 795, 2.40};

// Host: seconds per kernel of an eager PyTorch 2.11 block (forward issued
// from Python, backward from the autograd engine), fitted on the host-bound
// h = 2048, b = 1 blocks (14 forward kernels; 24 + 8 backward).
constexpr double kH100HostForward = 51.2 * us, kH100HostBackward = 36.4 * us;
constexpr double kH200HostForward = 40.4 * us, kH200HostBackward = 31.5 * us;
// Host in a chain (a stage's layers issued one after another, the host
// running ahead of the GPU): the measured in-sequence dispatch of the
// 2-block stages (stages.json stages 1 and 2: cpu_dispatch_fwd_ms over their
// 28 kernels); backward by the isolated backward/forward ratio.
constexpr double kH100ChainForward = 22.2 * us, kH100ChainBackward = 15.8 * us;
constexpr double kH200ChainForward = 24.8 * us, kH200ChainBackward = 19.3 * us;
// A bare GEMM launched alone from Python: the fastest small GEMM of the table
// (launch-bound: 1024^3 at 20.7 us on the H100, 31.6 us on the H200).
constexpr double kH100Launch = 20.7 * us, kH200Launch = 31.6 * us;

// Device-time factors of the layers the block curves do not describe, fitted
// on the GPU-only times of the isolated embedding and LN + LM head + fp32
// cross-entropy (transformer-block/blocks.json embed_head, 2,048 and 8,192
// tokens, geometric mean): the head's fp32 cross-entropy moves more than its
// OpWork bytes, the embedding's backward sorts and scatter-adds.
std::map<std::string, double> h100_op_scale() {
  return {{"head.forward", 1.95},      {"head.recompute", 1.95},      {"head.backward_input", 1.18},
          {"head.backward_weight", 1.18}, {"embedding.forward", 1.52}, {"embedding.backward_weight", 5.67}};
}
std::map<std::string, double> h200_op_scale() {
  return {{"head.forward", 1.93},      {"head.recompute", 1.93},      {"head.backward_input", 1.14},
          {"head.backward_weight", 1.14}, {"embedding.forward", 1.67}, {"embedding.backward_weight", 6.46}};
}

DeviceSpec with_h100_curves(DeviceSpec d) {
  d.gemm = kH100Gemm;
  d.gemm_fp8 = kH100Fp8;
  d.forward = kH100Forward;
  d.backward = kH100Backward;
  d.op_scale = h100_op_scale();
  return d;
}

std::map<std::string, DeviceSpec> make_presets() {
  std::map<std::string, DeviceSpec> p;
  {
    DeviceSpec d;
    d.name = "h100-sxm";
    d.peak_fp32 = 67 * T;
    d.peak_bf16 = 989 * T;
    d.peak_fp16 = 989 * T;
    d.peak_fp8 = 1979 * T;
    d.memory_bandwidth = 3.35 * T;
    d.memory_bytes = 80 * GB;
    d = with_h100_curves(d);
    d.memory_efficiency = 0.876;
    d.host_overhead = kH100HostForward;
    d.backward_host_overhead = kH100HostBackward;
    d.launch_overhead = kH100Launch;
    d.chain_host_overhead = kH100ChainForward;
    d.chain_backward_host_overhead = kH100ChainBackward;
    d.measured = true;
    d.source =
        "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: FP32 67 TFLOP/s, BF16/FP16 989 TFLOP/s and FP8 1,979 "
        "TFLOP/s dense (the sheet's 1,979 / 3,958 are with sparsity), 80 GB HBM3, 3.35 TB/s); curves, memory "
        "efficiency and host overhead fitted to measurements on an H100 80GB HBM3 (tests/data/measured)";
    p[d.name] = d;
  }
  {
    DeviceSpec d;
    d.name = "h200";
    d.peak_fp32 = 67 * T;
    d.peak_bf16 = 989 * T;
    d.peak_fp16 = 989 * T;
    d.peak_fp8 = 1979 * T;
    d.memory_bandwidth = 4.8 * T;
    d.memory_bytes = 141 * GB;
    d.gemm = kH200Gemm;
    d.gemm_fp8 = kH200Fp8;
    d.forward = kH200Forward;
    d.backward = kH200Backward;
    d.memory_efficiency = 0.814;
    d.host_overhead = kH200HostForward;
    d.backward_host_overhead = kH200HostBackward;
    d.launch_overhead = kH200Launch;
    d.chain_host_overhead = kH200ChainForward;
    d.chain_backward_host_overhead = kH200ChainBackward;
    d.op_scale = h200_op_scale();
    d.measured = true;
    d.source =
        "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM: compute as H100 SXM, FP32 67, BF16/FP16 989, FP8 1,979 "
        "TFLOP/s dense; 141 GB HBM3e, 4.8 TB/s); curves, memory efficiency and host overhead fitted to "
        "measurements on an H200 (tests/data/measured)";
    p[d.name] = d;
  }
  // By analogy: the H100's curves, the mean of the measured hosts, the
  // H100's memory efficiency (no measurement of these devices).
  const double host_forward = (kH100HostForward + kH200HostForward) / 2;
  const double host_backward = (kH100HostBackward + kH200HostBackward) / 2;
  const double launch = (kH100Launch + kH200Launch) / 2;
  const double chain_forward = (kH100ChainForward + kH200ChainForward) / 2;
  const double chain_backward = (kH100ChainBackward + kH200ChainBackward) / 2;
  for (const bool big : {false, true}) {
    DeviceSpec d;
    d.name = big ? "a100-80gb" : "a100-40gb";
    d.peak_fp32 = 19.5 * T;
    d.peak_bf16 = 312 * T;
    d.peak_fp16 = 312 * T;
    d.peak_fp8 = 0;
    d.memory_bandwidth = (big ? 2.039 : 1.555) * T;
    d.memory_bytes = (big ? 80 : 40) * GB;
    d = with_h100_curves(d);
    d.memory_efficiency = 0.876;
    d.host_overhead = host_forward;
    d.backward_host_overhead = host_backward;
    d.launch_overhead = launch;
    d.chain_host_overhead = chain_forward;
    d.chain_backward_host_overhead = chain_backward;
    d.source = std::string("NVIDIA A100 Tensor Core GPU datasheet (A100 SXM: FP32 19.5 TFLOP/s, BF16/FP16 312 "
                           "TFLOP/s dense, no FP8; ") +
               (big ? "80 GB HBM2e, 2,039 GB/s" : "40 GB HBM2, 1,555 GB/s") +
               "); curves and host overhead by analogy with the measured H100/H200 (not measured)";
    p[d.name] = d;
  }
  {
    DeviceSpec d;
    d.name = "mi300x";
    d.peak_fp32 = 163.4 * T;
    d.peak_bf16 = 1307.4 * T;
    d.peak_fp16 = 1307.4 * T;
    d.peak_fp8 = 2614.9 * T;
    d.memory_bandwidth = 5.3 * T;
    d.memory_bytes = 192 * GB;
    d = with_h100_curves(d);
    d.memory_efficiency = 0.876;
    d.host_overhead = host_forward;
    d.backward_host_overhead = host_backward;
    d.launch_overhead = launch;
    d.chain_host_overhead = chain_forward;
    d.chain_backward_host_overhead = chain_backward;
    d.source =
        "AMD Instinct MI300X data sheet (FP32 vector 163.4 TFLOP/s, BF16/FP16 1,307.4 and FP8 2,614.9 TFLOP/s dense, "
        "192 GB HBM3, 5.3 TB/s); curves and host overhead by analogy with the measured H100/H200 (not measured)";
    p[d.name] = d;
  }
  return p;
}

const std::map<std::string, DeviceSpec>& presets() {
  static const std::map<std::string, DeviceSpec> p = make_presets();
  return p;
}

}  // namespace

double peak_flops(const DeviceSpec& d, Precision p) {
  switch (p) {
    case Precision::FP32: return d.peak_fp32;
    case Precision::BF16: return d.peak_bf16;
    case Precision::FP16: return d.peak_fp16;
    case Precision::FP8: return d.peak_fp8;
  }
  return 0;
}

const DeviceSpec* find_device_preset(const std::string& name) {
  const auto it = presets().find(name);
  return it == presets().end() ? nullptr : &it->second;
}

std::vector<std::string> device_preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, spec] : presets()) names.push_back(name);
  return names;
}

}  // namespace pipesim
