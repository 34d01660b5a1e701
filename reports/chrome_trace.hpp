// The run as a Chrome / Perfetto trace (chrome://tracing, ui.perfetto.dev):
// one track per device and per link, memory as counters.
#pragma once

#include <ostream>
#include <string>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

// Short event name: "F s1 mb7", "B s1 mb7", "T 0->1 mb7", ...
std::string trace_event_name(const Task& task);

// {"traceEvents":[...]}: process "devices" (pid 0) has a thread per device
// with its compute tasks and a memory counter per device; process "links"
// (pid 1) has a thread per link with every transfer crossing it. Tasks that
// overlap on a device or link go to extra threads "NAME #2", "NAME #3"...
// (assign_lanes), so the events of every thread nest. ts and dur are in
// microseconds. Metadata first, then events by (ts, pid, tid, task).
void write_chrome_trace(std::ostream& os, const TaskGraph& graph, const Timeline& timeline, const Platform& platform);

}  // namespace pipesim
