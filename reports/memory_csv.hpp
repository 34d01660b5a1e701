// The memory trace as CSV, for plotting: time,device,category,bytes.
#pragma once

#include <ostream>
#include <vector>

#include "analysis/memory.hpp"
#include "sim/platform.hpp"

namespace pipesim {

// One row per sample, in trace order; device by name, bytes = the level
// after the event.
void write_memory_csv(std::ostream& os, const std::vector<MemorySample>& trace, const Platform& platform);

}  // namespace pipesim
