// Checks a periodic pattern without simulating it (pipesim validate).
#pragma once

#include <vector>

#include "patterns/pattern.hpp"
#include "patterns/pattern_timing.hpp"
#include "sim/platform.hpp"
#include "sim/violation.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Seed 000 Definition 1 and §6.2, in this order: structure (every task once
// per copy on a device, F and B of a layer together, offsets in [0, T), one
// transfer per cross-device pair; if any of these fails nothing else is
// checked), overlaps of ops on each device and of transfers on each link
// modulo T (every overlapping pair), shifts along each copy's chain, a
// deadlock (a cycle of the pattern's event graph carrying no token), and
// each device's steady-state peak memory against its capacity.
// Throws std::invalid_argument if the timing does not belong to the pattern.
std::vector<Violation> validate_pattern(const Pattern& pattern, const PatternTiming& timing, const Platform& platform,
                                        const Workload& workload);

}  // namespace pipesim
