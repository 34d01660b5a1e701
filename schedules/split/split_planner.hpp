// The `split` schedule's plan (seed 004): which layers each worker runs and
// how each of its resources is split between forward and backward, from the
// workload's parameters and the platform's devices. The boundary where the
// algorithms' std::invalid_argument become InputError lines.
#pragma once

#include <vector>

#include "sim/platform.hpp"
#include "sim/split_plan.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// A device's compute resources; a device read without any (hand-made
// platforms) is one resource of its kind at its speed for both passes.
std::vector<ComputeResource> device_resources(const Device& device);

// Parameters (docs/mobile.md, "The split schedule"): workers (default: every
// device, one worker per device), grouping (none | algorithm2 | brute-force |
// sorting: q groups of all devices, each one worker), partition (exact | algorithm1) and epsilon,
// allocation (optimal | none) and beta (with none, default 0.5), in_flight,
// sends (auto | sum | max: how h counts a worker's two sends; auto follows
// its routes).
// Throws InputError naming the workload's or the platform's field.
SplitPlan plan_split(const Workload& workload, const Platform& platform);

// Stage s's default bound on micro-batches in flight: enough that the wait
// for a free slot never slows the pipeline below its period, i.e.
// ceil(L_s / P) + 1 where L_s bounds a micro-batch's round trip from stage s
// (forward and backward times of stages s.., and P + latency for every
// transfer on the way) and P is eq. 1's period.
int default_in_flight(const SplitPlan& plan, const Platform& platform, int stage);

}  // namespace pipesim
