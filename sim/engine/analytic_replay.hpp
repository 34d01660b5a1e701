// The analytic engine's event replay (analytic_engine.hpp): the dispatch
// policy the SimGrid executor drives too (dispatch.hpp), round by round as
// SimGrid runs them.
#pragma once

#include "sim/engine/analytic_engine.hpp"

namespace pipesim {

// Any graph: ordered and greedy lanes, lanes sharing a resource. Expects
// amounts checked (check_task_amounts).
AnalyticOutcome replay_events(const TaskGraph& graph, const Platform& platform, const AnalyticSettings& settings);

}  // namespace pipesim
