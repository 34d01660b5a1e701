// How long an operation takes on a device: a roofline (compute at the
// precision's peak times an efficiency that depends on the GEMM sizes,
// memory traffic at the achieved bandwidth) and the host's launch time; the
// op takes the larger of the device time and the host time.
#pragma once

#include <map>
#include <string>

#include "devices/device_spec.hpp"
#include "devices/op_work.hpp"

namespace pipesim {

// Measured times that replace the model's: by OpWork::key.
struct Calibration {
  std::string file;
  std::map<std::string, double> seconds;  // key -> seconds
};

// Seconds of one op on a device. Throws InputError(file, field) when the
// device lacks the op's precision.
double op_seconds(const DeviceSpec& device, const OpWork& op, const Calibration* calibration = nullptr);

// The GEMM efficiency alone (0..efficiency_max), for tests and reports.
double gemm_efficiency(const DeviceSpec& device, const OpWork& op);

}  // namespace pipesim
