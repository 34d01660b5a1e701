// A profiled step's costs as a calibration file (docs/devices.md#calibration-files):
// the op keys of models/ (embedding, block, head; forward, backward_input,
// backward_weight) and the optimizer step, each what it added to the step,
// averaged over its occurrences. docs/import.md#profiler-traces.
#pragma once

#include <string>

#include "devices/compute_model.hpp"
#include "traces/saved_bytes.hpp"
#include "traces/step_costs.hpp"

namespace pipesim {

// Per op key: seconds (forward, input gradient, weight gradient), and the
// device time of the same ops (kernels with the launch gap).
struct TraceCalibration {
  Calibration step;    // what the ops add to the step: the calibration written
  Calibration device;  // their kernels alone
  int microbatches = 0;
  int blocks = 0;
  std::map<std::string, double> stash_bytes;  // by part key, from an execution trace; empty: none read
  std::string execution_trace;                // the file they came from
};

TraceCalibration calibration_from_step(const StepCosts& costs);
// Adds the parts' stash bytes read from FILE, an execution trace of the same step.
void add_saved_bytes(TraceCalibration& calibration, const SavedBytes& saved, const std::string& file);

// The calibration file's text: the keys with comments that say where they
// come from. TRACE names the trace in the header. DEVICE_TIME: the keys are
// the kernels' time alone, the step's time in the comments.
std::string calibration_yaml(const TraceCalibration& calibration, const StepCosts& costs, const std::string& trace,
                             bool device_time = false);

}  // namespace pipesim
