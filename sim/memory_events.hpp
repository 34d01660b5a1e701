// The memory effects of a run in the order memory levels change: by time;
// at one instant every free before any allocation (a buffer freed and
// another allocated at the same instant never coexist), then effects at a
// task's finish before effects at a start, then by task, then in the order
// the task's effects were added. Shared by the analysis of a run and by the
// analytic steady-state memory of a pattern, so both read levels alike.
//
// An instant is every time within kSameInstant of its first, reported at
// that first time: SimGrid ends events that close in one round, at one
// clock, while the analytic engine's longest-path pass computes each time
// along its own chain of sums, so times SimGrid makes equal it leaves a few
// ulps apart. Read as one instant, both engines give the same levels.
#pragma once

#include <functional>
#include <vector>

#include "sim/task_graph.hpp"

namespace pipesim {

// SimGrid's default surf/precision (seconds).
constexpr double kSameInstant = 1e-9;

// Calls visit(time, task, effect) for every effect whose task started
// (AtStart) or finished (AtFinish) at a finite time. Holds a bounded share of
// the events at a time (about an eighth of them, at least `min_window`): the
// stream is sorted window by window, never as a whole. Tests lower
// `min_window` to exercise the windows on small graphs.
void for_each_memory_event(const TaskGraph& graph, const std::vector<double>& start, const std::vector<double>& finish,
                           const std::function<void(double time, TaskId task, const MemoryEffect& effect)>& visit,
                           std::size_t min_window = std::size_t{1} << 20);

}  // namespace pipesim
