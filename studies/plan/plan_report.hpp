// What `pipesim plan` writes (docs/plan.md): plan.csv, a row per candidate
// with its fate, bounds and run; and the summary it prints: the ranked
// table, the time/memory front, and why each schedule family lost.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "studies/plan/plan_search.hpp"

namespace pipesim {

// Every candidate in plan-space order; `rank` (by the objective) and
// `front` for the valid runs.
std::string plan_csv(const std::vector<PlanEntry>& entries, PlanObjective objective = PlanObjective::Time);

// The fates counted, the TOP best runs by the objective, the front, the families.
void write_plan_summary(std::ostream& os, const std::vector<PlanEntry>& entries, std::size_t top,
                        PlanObjective objective = PlanObjective::Time);

// When nothing fits: the candidate with the smallest memory bound, as one
// line ("the smallest memory bound is 92.4 GiB (tp 8 pp 8 dp 1, ...) against 80 GiB").
std::string smallest_memory_line(const std::vector<PlanEntry>& entries);

}  // namespace pipesim
