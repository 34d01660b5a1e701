// Device presets: datasheet peaks (dense, no sparsity), memory bandwidth and
// capacity (decimal units, as the datasheets state them), and the compute
// model's curves and host overheads fitted to the project's measurements
// (H100, H200; tests/data/measured/README-devices.md) or taken from them by
// analogy (A100, MI300X). Figures, sources and fit: docs/devices.md.
#include <map>
#include <string>
#include <utility>

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

// Host seconds per kernel (docs/devices.md, "Host").
struct HostCosts {
  double forward, backward;              // eager PyTorch 2.11, one block alone: fitted on the host-bound
                                         // h = 2048, b = 1 blocks (14 forward kernels; 24 + 8 backward)
  double launch;                         // a bare GEMM launched alone from Python: the fastest small
                                         // GEMM of the table (1024^3)
  double chain_forward, chain_backward;  // in a chain (a stage's layers issued one after another, the
                                         // host running ahead): the 2-block stages' in-sequence dispatch
                                         // (stages.json, cpu_dispatch_fwd_ms over 28 kernels); backward
                                         // by the isolated backward/forward ratio
};
constexpr HostCosts kH100Host{51.2 * us, 36.4 * us, 20.7 * us, 22.2 * us, 15.8 * us};
constexpr HostCosts kH200Host{40.4 * us, 31.5 * us, 31.6 * us, 24.8 * us, 19.3 * us};
// By analogy, for the devices not measured: the mean of the two.
constexpr HostCosts kMeanHost{(kH100Host.forward + kH200Host.forward) / 2,
                              (kH100Host.backward + kH200Host.backward) / 2, (kH100Host.launch + kH200Host.launch) / 2,
                              (kH100Host.chain_forward + kH200Host.chain_forward) / 2,
                              (kH100Host.chain_backward + kH200Host.chain_backward) / 2};

// Device-time factors of the layers the block curves do not describe, fitted
// on the GPU-only times of the isolated embedding and LN + LM head + fp32
// cross-entropy (transformer-block/blocks.json embed_head, 2,048 and 8,192
// tokens, geometric mean): the head's fp32 cross-entropy moves more than its
// OpWork bytes, the embedding's backward sorts and scatter-adds.
std::map<std::string, double> h100_op_scale() {
  return {{"head.forward", 1.95},         {"head.recompute", 1.95},    {"head.backward_input", 1.18},
          {"head.backward_weight", 1.18}, {"embedding.forward", 1.52}, {"embedding.backward_weight", 5.67}};
}
std::map<std::string, double> h200_op_scale() {
  return {{"head.forward", 1.93},         {"head.recompute", 1.93},    {"head.backward_input", 1.14},
          {"head.backward_weight", 1.14}, {"embedding.forward", 1.67}, {"embedding.backward_weight", 6.46}};
}

// A device as its data sheet gives it: dense peaks (fp16 = bf16), bandwidth, capacity.
DeviceSpec datasheet(const std::string& name, double fp32, double bf16, double fp8, double bandwidth, double memory,
                     const std::string& source) {
  DeviceSpec d;
  d.name = name;
  d.peak_fp32 = fp32 * T;
  d.peak_bf16 = bf16 * T;
  d.peak_fp16 = bf16 * T;
  d.peak_fp8 = fp8 * T;
  d.memory_bandwidth = bandwidth * T;
  d.memory_bytes = memory * GB;
  d.source = source;
  return d;
}

// The fitted part: curves, memory efficiency, host costs, op factors.
DeviceSpec fitted(DeviceSpec d, const EfficiencyCurve& gemm, const EfficiencyCurve& fp8, const EfficiencyCurve& forward,
                  const EfficiencyCurve& backward, double memory_efficiency, const HostCosts& host,
                  std::map<std::string, double> op_scale, bool measured) {
  d.gemm = gemm;
  d.gemm_fp8 = fp8;
  d.forward = forward;
  d.backward = backward;
  d.memory_efficiency = memory_efficiency;
  d.host_overhead = host.forward;
  d.backward_host_overhead = host.backward;
  d.launch_overhead = host.launch;
  d.chain_host_overhead = host.chain_forward;
  d.chain_backward_host_overhead = host.chain_backward;
  d.op_scale = std::move(op_scale);
  d.measured = measured;
  return d;
}

// Measured on the H100 (tests/data/measured); the others by analogy with it.
DeviceSpec h100_fit(DeviceSpec d, bool measured) {
  return fitted(std::move(d), kH100Gemm, kH100Fp8, kH100Forward, kH100Backward, 0.876, measured ? kH100Host : kMeanHost,
                h100_op_scale(), measured);
}

// The A100s: the H100's curves, refitted where the validation suite's
// declared subset (docs/validation.md, 21 of its 67 points) says the A100
// differs: kernels reach their plateau at a third of the tokens (a slower GPU
// fills sooner), and the LM head runs at its GEMM's rate (its fp32 cross-entropy,
// memory-bound, costs relatively less at the A100's bytes per flop).
constexpr double kA100TokenHalfFactor = 0.35;

DeviceSpec a100_fit(DeviceSpec d) {
  d = h100_fit(std::move(d), false);
  for (EfficiencyCurve* c : {&d.gemm, &d.forward, &d.backward}) c->half_m *= kA100TokenHalfFactor;
  for (const char* key : {"head.forward", "head.recompute", "head.backward_input", "head.backward_weight"})
    d.op_scale.erase(key);
  return d;
}

std::map<std::string, DeviceSpec> make_presets() {
  const char* const analogy = "; curves and host overhead by analogy with the measured H100/H200 (not measured)";
  const char* const a100 =
      "; curves by analogy with the measured H100, their token half-size and the LM head fitted on published "
      "training runs (docs/validation.md), host overhead by analogy with the H100/H200";
  const DeviceSpec all[] = {
      h100_fit(datasheet("h100-sxm", 67, 989, 1979, 3.35, 80,
                         "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: FP32 67 TFLOP/s, BF16/FP16 989 TFLOP/s and "
                         "FP8 1,979 TFLOP/s dense (the sheet's 1,979 / 3,958 are with sparsity), 80 GB HBM3, 3.35 "
                         "TB/s); curves, memory efficiency and host overhead fitted to measurements on an H100 80GB "
                         "HBM3 (tests/data/measured)"),
               true),
      fitted(datasheet("h200", 67, 989, 1979, 4.8, 141,
                       "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM: compute as H100 SXM, FP32 67, BF16/FP16 989, "
                       "FP8 1,979 TFLOP/s dense; 141 GB HBM3e, 4.8 TB/s); curves, memory efficiency and host overhead "
                       "fitted to measurements on an H200 (tests/data/measured)"),
             kH200Gemm, kH200Fp8, kH200Forward, kH200Backward, 0.814, kH200Host, h200_op_scale(), true),
      a100_fit(datasheet("a100-40gb", 19.5, 312, 0, 1.555, 40,
                         std::string("NVIDIA A100 Tensor Core GPU datasheet (A100 SXM: FP32 19.5 TFLOP/s, BF16/FP16 "
                                     "312 TFLOP/s dense, no FP8; 40 GB HBM2, 1,555 GB/s)") +
                             a100)),
      a100_fit(datasheet("a100-80gb", 19.5, 312, 0, 2.039, 80,
                         std::string("NVIDIA A100 Tensor Core GPU datasheet (A100 SXM: FP32 19.5 TFLOP/s, BF16/FP16 "
                                     "312 TFLOP/s dense, no FP8; 80 GB HBM2e, 2,039 GB/s)") +
                             a100)),
      h100_fit(datasheet("mi300x", 163.4, 1307.4, 2614.9, 5.3, 192,
                         std::string("AMD Instinct MI300X data sheet (FP32 vector 163.4 TFLOP/s, BF16/FP16 1,307.4 and "
                                     "FP8 2,614.9 TFLOP/s dense, 192 GB HBM3, 5.3 TB/s)") +
                             analogy),
               false),
  };
  std::map<std::string, DeviceSpec> p;
  for (const DeviceSpec& d : all) p[d.name] = d;
  return p;
}

const std::map<std::string, DeviceSpec>& presets() {
  static const std::map<std::string, DeviceSpec> p = make_presets();
  return p;
}

}  // namespace

double peak_flops(const DeviceSpec& d, Precision p) {
  switch (p) {
    case Precision::FP32:
      return d.peak_fp32;
    case Precision::BF16:
      return d.peak_bf16;
    case Precision::FP16:
      return d.peak_fp16;
    case Precision::FP8:
      return d.peak_fp8;
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
