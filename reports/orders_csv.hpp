// A run's per-device orders in PyTorch pipelining's compute-only CSV format
// (--export-orders; docs/pytorch.md), to hand to _PipelineScheduleRuntime or
// to run again with schedule: {name: csv, file: FILE}.
#pragma once

#include <ostream>

#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

// Row d = device d (up to the last device that computes), cells
// <stage><F|B|I|W><micro-batch> of the first iteration, in the device's
// order (by simulated start for a device without one), comma-separated; a
// task run beside the previous one (DualPipeV) shares its cell as
// (aFm;bBn)OVERLAP_F_B.
// Throws std::invalid_argument (the reason) for graphs PyTorch's format
// cannot hold: other compute kinds (recompute, update, ...), tasks without a
// stage, or a stage on two devices.
void write_orders_csv(std::ostream& os, const TaskGraph& graph, const Timeline& timeline);

}  // namespace pipesim
