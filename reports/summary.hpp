// A human-readable summary of a run for the terminal.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "sim/platform.hpp"

namespace pipesim {

struct PatternSummary;
struct SplitPlan;
struct StageMemorySaving;
struct TrainingFigures;

// Header lines (schedule, sizes, times, throughput, VALID/INVALID with the
// reasons), a per-device table and a table of the links that carried bytes.
// With a split plan, an "eq. 1 period" line and a table of its stages; a
// table of resources (share beta, share-weighted busy time, utilization)
// whenever the metrics have per-resource figures. With an engine, an
// "engine" line after the schedule (which engine ran, and why).
void write_summary(std::ostream& os, const Metrics& metrics, const Platform& platform, const std::string& schedule_name,
                   const PatternSummary* pattern = nullptr, const SplitPlan* split = nullptr,
                   const std::vector<StageMemorySaving>* memory_saving = nullptr, const std::string* engine = nullptr,
                   const TrainingFigures* training = nullptr);

}  // namespace pipesim
