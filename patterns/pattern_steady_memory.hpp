// The steady-state memory of an unrolled pattern without an engine, for the
// lifetime buffer policy, whose levels depend on when transfers start and end
// (docs/memory-model.md): every task as early as its dependencies and its
// device's previous task allow (the unrolled graph serialises each link, so
// nothing contends and this is the engine's timing), and the engine's memory
// replay over a window of periods after a warm-up.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "patterns/pattern.hpp"
#include "patterns/pattern_unroll.hpp"
#include "sim/task_graph.hpp"

namespace pipesim {

// The periods that stand for the steady state: after `first` periods of
// warm-up, `window` periods. One copy per period: 100 and 120 (a multiple
// of every cycle length up to 6); k copies: ceil(100 / k) and ceil(120 / k),
// at least 2 each, so that a flush pattern (k = M) stays cheap.
struct SteadyRange {
  int first = 100;
  int window = 120;
};
SteadyRange steady_range(const Pattern& pattern);

// Micro-batches to unroll so that every op runs in every period of the
// range and the drain does not reach it.
int steady_microbatches(const Pattern& pattern, const SteadyRange& range);

// Earliest start of every task (Kahn's algorithm over dependencies and device orders).
std::vector<double> earliest_starts(const TimedUnroll& unrolled);

// [from, to): from the first start of a task of period >= range.first to
// the first start of one of period >= range.first + range.window.
std::pair<double, double> steady_window(const TimedUnroll& unrolled, const std::vector<double>& start,
                                        const SteadyRange& range);

// The memory replay of analysis/memory.hpp (static memory first; at equal
// times frees, then finish effects, then by effect index; levels read once
// an instant is complete): visit(time, device, levels) for the level each
// device carries into [from, to) (at time `from`) and for every reading in it.
void window_readings(const TaskGraph& graph, const std::vector<double>& start, const std::vector<double>& finish,
                     double from, double to, const std::function<void(double, int, const MemoryBreakdown&)>& visit);

}  // namespace pipesim
