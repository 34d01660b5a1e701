// The machine-readable result of a run: one JSON object with the metrics.
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

// Deterministic: the same metrics give the same bytes. Times in seconds,
// memory in bytes, throughput in samples per second. The first member is
// "version" (PIPESIM_VERSION), so a reader can tell which field set it has.
// With a split plan (seed 004's `split`), a "split" member gives its stages
// and shares; devices list their resources whenever metrics have them.
// With an engine ("simgrid" or "analytic"), an "engine" member after "platform".
void write_json_report(std::ostream& os, const Metrics& metrics, const Platform& platform,
                       const std::string& schedule_name, const PatternSummary* pattern = nullptr,
                       const SplitPlan* split = nullptr, const std::vector<StageMemorySaving>* memory_saving = nullptr,
                       const std::string* engine = nullptr, const TrainingFigures* training = nullptr);

}  // namespace pipesim
