// Violations as text (one per line, then the verdict) and as JSON.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/platform.hpp"
#include "sim/violation.hpp"

namespace pipesim {

// What a completed run of the checked schedule measured (CSV orders).
struct SimulatedRun {
  double makespan = 0;                                  // seconds
  std::vector<std::pair<std::string, double>> bubbles;  // used device, idle fraction of the makespan
};

// "kind: message" lines, then, after a run, "simulated: makespan 49.35 ms;
// bubbles gpu0 2.1 %, gpu1 2.1 %", then "VALID" or "INVALID: N violation(s)".
void write_violations(std::ostream& out, const std::vector<Violation>& violations,
                      const std::optional<SimulatedRun>& run = std::nullopt);
// {"verdict": "VALID" | "INVALID", "violations": [{"kind", "device" (name or
// null), "time" (null if none), "message"}, ...]}, and after a run
// "simulated": {"makespan": seconds, "bubbles": {device: fraction, ...}}.
void write_violations_json(std::ostream& out, const std::vector<Violation>& violations, const Platform& platform,
                           const std::optional<SimulatedRun>& run = std::nullopt);

}  // namespace pipesim
