// How much memory a simulation may use: shared by the task-graph estimate
// (schedules/memory_estimate) and the platform's (sim/engine/platform_size),
// so that one --max-memory bounds both.
#pragma once

namespace pipesim {

// The limit when none is given: 3/4 of the physical memory, at most 16 GiB
// (a simulation should leave the machine usable, and CI runners have ~16 GiB).
double default_memory_limit();

// LIMIT if positive, else default_memory_limit().
inline double memory_limit_or_default(double limit) { return limit > 0 ? limit : default_memory_limit(); }

}  // namespace pipesim
