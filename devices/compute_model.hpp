// How long an operation takes on a device: a roofline (compute at the
// precision's peak times an efficiency that depends on the GEMM sizes,
// memory traffic at the achieved bandwidth) and the host's launch time; the
// op takes the larger of the device time and the host time.
#pragma once

#include <map>
#include <string>

#include "devices/device_spec.hpp"
#include "devices/op_work.hpp"
#include "sim/input_error.hpp"

namespace pipesim {

// Measured times that replace the model's: by OpWork::key.
struct Calibration {
  std::string file;
  std::map<std::string, double> seconds;  // key -> seconds
  // Tokens per micro-batch of the measured ops (key tokens_per_microbatch); 0: not said.
  double tokens_per_microbatch = 0;
  // Bytes a micro-batch's layer keeps for its backward, by layer name (key
  // NAME.stash_bytes): memory, which the compute model does not read; the
  // workload's model layers take it (workloads/model_costs.hpp).
  std::map<std::string, double> stash_bytes;
};

// The device lacks the op's precision (its peak is 0). An InputError whose
// file is "device NAME" (the compute model does not know the input file):
// callers that know it (workloads: the workload file, field
// "model.precision") catch this type and rethrow
// InputError(their_file, their_field, e.reason()).
class UnsupportedPrecision : public InputError {
 public:
  UnsupportedPrecision(const std::string& device, Precision precision);
  const std::string& device() const { return device_; }
  Precision precision() const { return precision_; }
  // "device a100-40gb has no fp8 compute (peak 0)"
  const std::string& reason() const { return reason_; }

 private:
  std::string device_;
  Precision precision_;
  std::string reason_;
};

// How the host issues an op: alone (a pass launched and timed by itself:
// the host's per-kernel cost of an isolated eager pass), or as one of a
// chain of ops in one task, the host running ahead of the GPU at its
// in-sequence dispatch rate (chain_host_overhead).
enum class HostIssue { Isolated, InChain };

// Seconds of one op on a device: the calibration's time when it names
// op.key; else max(device time, host time) with
//   device time = (max(flops / (peak(precision) * gemm_efficiency), bytes / (memory_bandwidth * memory_efficiency))
//                  + serial_bytes / (memory_bandwidth * memory_efficiency)) * op_scale[op.key] (1 when absent)
//   host time   = kernels * the pass's host overhead (isolated: host_overhead, backward_host_overhead,
//                 launch_overhead; in a chain: chain_host_overhead, chain_backward_host_overhead).
// An op with no GEMM (gemm_m, gemm_n or gemm_k 0) is memory-bound only.
// Throws UnsupportedPrecision when the device lacks the precision and the op has flops.
double op_seconds(const DeviceSpec& device, const OpWork& op, const Calibration* calibration = nullptr,
                  HostIssue issue = HostIssue::Isolated);

// The device time alone (the roofline times op_scale).
double device_seconds(const DeviceSpec& device, const OpWork& op);

// The GEMM efficiency alone (0..efficiency_max of the op's curve), for
// tests and reports; 0 for an op with no GEMM. Under tensor parallelism
// (op.tp > 1 with op.parts): eff(m, n * tp, k), the layer's shape at tp 1,
// times sum(share / eff_i) at tp 1 over the same sum with each GEMM shrunk
// on its side (n / tp column-parallel, k / tp row-parallel).
double gemm_efficiency(const DeviceSpec& device, const OpWork& op);

// The curve an op follows (its pass and precision; fp8 layer passes scaled).
EfficiencyCurve efficiency_curve(const DeviceSpec& device, const OpWork& op);

// The host time alone: kernels * the pass's host overhead (DeviceSpec).
double host_seconds(const DeviceSpec& device, const OpWork& op, HostIssue issue = HostIssue::Isolated);

// How much of op_seconds the host adds: host time beyond the device time,
// the GPU waiting for its kernels to be launched (0 for a calibrated op,
// whose measured time is not split).
double host_bound_seconds(const DeviceSpec& device, const OpWork& op, const Calibration* calibration = nullptr,
                          HostIssue issue = HostIssue::Isolated);

}  // namespace pipesim
