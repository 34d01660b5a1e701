// A model's layers timed on the platform's device type: each pass's OpWork
// through the compute model (devices/compute_model.hpp), or a calibration
// file's measured time. docs/devices.md.
#pragma once

#include "devices/compute_model.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// The workload with every model layer's costs in seconds on the device type
// of the platform's fastest compute device (host property `device`), and
// reference_speed that device's speed, so a device of that type runs each
// pass in exactly its modelled time (others scale by speed). Unchanged when
// the workload has no model or the device has no type (flops at the host's
// speed, as hand-written costs). Throws InputError for an unknown device
// type, a precision it lacks, or a bad calibration file.
Workload time_model_layers(const Workload& workload, const Platform& platform);

// What time_model_layers(W, platform) gives, taken from TIMED, the result of
// time_model_layers for a workload of the same model, TP size, micro-batch
// size and recompute on the same platform (its layers' costs, the reference
// speed, a calibrated optimizer step), without timing again: for searches
// that vary only the layout around the same layers (pipesim plan). Keep it
// in step with time_model_layers.
Workload with_timing_of(const Workload& w, const Workload& timed);

// A calibration file: a YAML map of OpWork keys to durations
// ({block.forward: 1.2ms, ...}), and of layer names to stash bytes
// ({block.stash_bytes: 67208192}).
Calibration load_calibration(const std::string& path);

// The model's layers keep the stash bytes its calibration measured (by layer
// name) instead of the memory model's. Throws InputError for a name that is
// no layer, a calibration of other shapes, or a model that recomputes.
void apply_calibrated_stash(Workload& workload);

}  // namespace pipesim
