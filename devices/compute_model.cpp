#include "devices/compute_model.hpp"

#include <algorithm>
#include <cmath>

namespace pipesim {

UnsupportedPrecision::UnsupportedPrecision(const std::string& device, Precision precision)
    : InputError("device " + device, "", std::string("has no ") + to_string(precision) + " compute (peak 0)"),
      device_(device),
      precision_(precision),
      reason_("device " + device + " has no " + to_string(precision) + " compute (peak 0)") {}

namespace {

bool has_gemm(const OpWork& op) { return op.gemm_m > 0 && op.gemm_n > 0 && op.gemm_k > 0; }

double limit(double half, double size, double exponent) { return half > 0 ? std::pow(half / size, exponent) : 0.0; }

double curve_efficiency(const EfficiencyCurve& c, double m, double n, double k) {
  const double p = c.exponent;
  return c.efficiency_max / (1 + limit(c.half_m, m, p) + limit(c.half_n, n, p) + limit(c.half_k, k, p));
}

}  // namespace

EfficiencyCurve efficiency_curve(const DeviceSpec& device, const OpWork& op) {
  const bool fp8 = op.precision == Precision::FP8;
  switch (op.pass) {
    case Pass::Gemm:
      return fp8 ? device.gemm_fp8 : device.gemm;
    case Pass::Forward:
    case Pass::Backward: {
      EfficiencyCurve c = op.pass == Pass::Forward ? device.forward : device.backward;
      // fp8 layer passes that do not say their GEMMs' flops: unmeasured; the
      // layer curve scaled by how the bare fp8 GEMM plateau compares with
      // the bf16 one (by analogy). Those that do: fp8_layer_seconds.
      if (fp8 && device.gemm.efficiency_max > 0)
        c.efficiency_max *= device.gemm_fp8.efficiency_max / device.gemm.efficiency_max;
      return c;
    }
  }
  return device.forward;
}

double gemm_efficiency(const DeviceSpec& device, const OpWork& op) {
  if (!has_gemm(op)) return 0;
  const EfficiencyCurve c = efficiency_curve(device, op);
  if (op.tp <= 1 || op.parts.empty()) return curve_efficiency(c, op.gemm_m, op.gemm_n, op.gemm_k);
  // Under TP: the layer's tp = 1 efficiency, lowered as much as its GEMMs'
  // flop-weighted harmonic mean efficiency falls when each shrinks on its side.
  double whole = 0, split = 0;
  for (const GemmPart& g : op.parts) {
    whole += g.share / curve_efficiency(c, op.gemm_m, g.n, g.k);
    split += g.share /
             curve_efficiency(c, op.gemm_m, g.row_parallel ? g.n : g.n / op.tp, g.row_parallel ? g.k / op.tp : g.k);
  }
  return curve_efficiency(c, op.gemm_m, op.gemm_n * op.tp, op.gemm_k) * whole / split;
}

double host_seconds(const DeviceSpec& device, const OpWork& op, HostIssue issue) {
  double per_kernel = device.host_overhead;
  if (op.pass == Pass::Backward && device.backward_host_overhead > 0) per_kernel = device.backward_host_overhead;
  if (op.pass == Pass::Gemm && device.launch_overhead > 0) per_kernel = device.launch_overhead;
  if (issue == HostIssue::InChain) {
    if (op.pass == Pass::Backward && device.chain_backward_host_overhead > 0)
      per_kernel = device.chain_backward_host_overhead;
    else if (op.pass != Pass::Backward && device.chain_host_overhead > 0)
      per_kernel = device.chain_host_overhead;
  }
  return std::max(0, op.kernels) * per_kernel;
}

namespace {

double roofline_seconds(const DeviceSpec& device, const OpWork& op);

// Seconds of the op's weight GEMMs alone (gemm_flops) as bare GEMMs of its
// shapes at PRECISION, on the measured GEMM curves.
double bare_gemm_seconds(const DeviceSpec& device, const OpWork& op, Precision precision) {
  OpWork g = op;
  g.pass = Pass::Gemm, g.precision = precision, g.flops = op.gemm_flops;
  g.bytes = g.serial_bytes = 0;
  return roofline_seconds(device, g);
}

// An fp8 layer pass as Transformer Engine runs it: only its weight GEMMs
// in fp8. It saves what those GEMMs save, bare, from bf16 to fp8; what the
// rest of the pass takes in bf16 (the bf16 pass less its GEMMs) it keeps.
double fp8_layer_seconds(const DeviceSpec& device, const OpWork& op) {
  OpWork bf16 = op;
  bf16.precision = Precision::BF16;
  const double rest = roofline_seconds(device, bf16) - bare_gemm_seconds(device, op, Precision::BF16);
  return std::max(0.0, rest) + bare_gemm_seconds(device, op, Precision::FP8);
}

double roofline_seconds(const DeviceSpec& device, const OpWork& op) {
  const double peak = peak_flops(device, op.precision);
  if (peak <= 0) throw UnsupportedPrecision(device.name, op.precision);
  if (op.precision == Precision::FP8 && op.pass != Pass::Gemm && op.gemm_flops >= 0 && has_gemm(op) &&
      peak_flops(device, Precision::BF16) > 0)
    return fp8_layer_seconds(device, op);
  double compute = 0;
  if (has_gemm(op) && op.flops > 0) compute = op.flops / (peak * gemm_efficiency(device, op));
  double memory = 0, serial = 0;
  if (device.memory_bandwidth > 0) {
    const double rate = device.memory_bandwidth * device.memory_efficiency;
    if (op.bytes > 0) memory = op.bytes / rate;
    if (op.serial_bytes > 0) serial = op.serial_bytes / rate;
  }
  return std::max(compute, memory) + serial;
}

}  // namespace

double device_seconds(const DeviceSpec& device, const OpWork& op) {
  const double seconds = roofline_seconds(device, op);
  double scale = 1;
  if (!op.key.empty()) {
    const auto it = device.op_scale.find(op.key);
    if (it != device.op_scale.end()) scale = it->second;
  }
  return seconds * scale;
}

double host_bound_seconds(const DeviceSpec& device, const OpWork& op, const Calibration* calibration, HostIssue issue) {
  if (calibration && !op.key.empty() && calibration->seconds.count(op.key)) return 0;
  return std::max(0.0, host_seconds(device, op, issue) - device_seconds(device, op));
}

double op_seconds(const DeviceSpec& device, const OpWork& op, const Calibration* calibration, HostIssue issue) {
  if (calibration && !op.key.empty()) {
    const auto it = calibration->seconds.find(op.key);
    if (it != calibration->seconds.end()) return it->second;
  }
  return std::max(device_seconds(device, op), host_seconds(device, op, issue));
}

}  // namespace pipesim
