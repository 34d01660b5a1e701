// The analytic engine's fast path (analytic_engine.hpp): a longest-path
// pass for graphs that make no choice.
#pragma once

#include <optional>

#include "sim/engine/analytic_engine.hpp"

namespace pipesim {

// Which longest-path pass list_schedule takes: the id-order pass where
// orders_follow_ids, else the queue pass (which also finds deadlocks); tests
// force the queue pass to compare the two.
enum class ListPass { Fastest, Queue };

// Whether every device order is strictly increasing in task id and holds
// only compute tasks: then, as dependencies have smaller ids than their
// task, one pass in id order meets every task after all it waits for.
bool orders_follow_ids(const TaskGraph& graph);

// When every compute task is in its device's order, on one lane at full
// share, the timeline (or the first conflict); otherwise nothing. Throws
// InputError on bad amounts (check_task_amounts).
std::optional<AnalyticOutcome> list_schedule(const TaskGraph& graph, const Platform& platform,
                                             const AnalyticSettings& settings, ListPass pass = ListPass::Fastest);

}  // namespace pipesim
