// A human-readable summary of a run for the terminal.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "sim/platform.hpp"

namespace pipesim {

struct PatternSummary;
struct StageMemorySaving;

// Header lines (schedule, sizes, times, throughput, VALID/INVALID with the
// reasons), a per-device table and a table of the links that carried bytes.
void write_summary(std::ostream& os, const Metrics& metrics, const Platform& platform,
                   const std::string& schedule_name, const PatternSummary* pattern = nullptr,
                   const std::vector<StageMemorySaving>* memory_saving = nullptr);

}  // namespace pipesim
