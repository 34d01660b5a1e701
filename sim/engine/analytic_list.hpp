// The analytic engine's fast path (analytic_engine.hpp): a longest-path
// pass for graphs that make no choice.
#pragma once

#include <optional>

#include "sim/engine/analytic_engine.hpp"

namespace pipesim {

// When every compute task is in its device's order, on one lane at full
// share, the timeline (or the first conflict); otherwise nothing. Throws
// InputError on bad amounts (check_task_amounts).
std::optional<AnalyticOutcome> list_schedule(const TaskGraph& graph, const Platform& platform,
                                             const AnalyticSettings& settings);

}  // namespace pipesim
