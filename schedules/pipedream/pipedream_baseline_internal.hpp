// Exposed for tests only: the baseline's pieces (PipeDream's memory estimate,
// one plan). Product code includes pipedream_baseline.hpp.
#pragma once

#include "schedules/pipedream/pipedream_baseline.hpp"

namespace pipesim {

// PipeDream's estimate of the memory of the stage holding layers
// [first, last] in machine slot `slot` of P = `machines`: (Σ operator
// activations + Σ weights) × (P − 1 − slot). Slot 0 counts P − 1 copies, the
// last slot none: the over-simplified model seed 000 §7 criticises.
double pipedream_memory_estimate(const Workload& workload, int first, int last, int slot, int machines);

// PipeDream's partition of the workload on the platform (stage s runs on
// device s). Not feasible when nothing fits the target.
PipeDreamPlan pipedream_plan(const Workload& workload, const Platform& platform, const PipeDreamFlags& flags = {});

}  // namespace pipesim
