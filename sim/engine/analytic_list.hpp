// The analytic engine's fast path (analytic_engine.hpp): a longest-path
// pass for graphs that make no choice.
#pragma once

#include <optional>

#include "sim/engine/analytic_engine.hpp"

namespace pipesim {

// The longest-path passes (analytic_list.cpp). Auto takes the id-order pass
// where every device order runs in increasing task id, else the queue pass
// (which also finds deadlocks); tests ask for the queue pass to compare.
enum class ListPass { Auto, IdOrder, Queue };

// When every compute task is in its device's order, on one lane at full
// share, the timeline (or the first conflict); otherwise nothing. Throws
// InputError on bad amounts (check_task_amounts). taken, if given, is set
// to the pass that gave the outcome (IdOrder or Queue).
std::optional<AnalyticOutcome> list_schedule(const TaskGraph& graph, const Platform& platform,
                                             const AnalyticSettings& settings, ListPass pass = ListPass::Auto,
                                             ListPass* taken = nullptr);

}  // namespace pipesim
