// Violations as text (one per line, then the verdict) and as JSON.
#pragma once

#include <ostream>
#include <vector>

#include "sim/platform.hpp"
#include "sim/violation.hpp"

namespace pipesim {

// "kind: message" lines, then "VALID" or "INVALID: N violation(s)".
void write_violations(std::ostream& out, const std::vector<Violation>& violations);
// {"verdict": "VALID" | "INVALID", "violations": [{"kind", "device" (name or
// null), "time" (null if none), "message"}, ...]}
void write_violations_json(std::ostream& out, const std::vector<Violation>& violations, const Platform& platform);

}  // namespace pipesim
