// Checks a schedule and says everything that is wrong with it, one violation
// at a time (pipesim validate, docs/validate.md). Periodic patterns are
// checked against seed 000 Definition 1 and §6.2 without simulating;
// explicit per-device orders are checked statically, then from the run.
// Header-only use of schedules/: this library does not link it.
#pragma once

#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "schedules/explicit_orders.hpp"
#include "schedules/pattern.hpp"
#include "schedules/pattern_timing.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

struct Violation {
  std::string kind;     // structure, overlap, shift, dependency, memory, deadlock
  std::string message;  // one line, without the kind
  int device = -1;      // the device at fault, -1 if none (a link, a cycle)
  double time = std::numeric_limits<double>::quiet_NaN();  // pattern: offset in the period; run: seconds
};

// Seed 000 Definition 1 and §6.2, in this order: structure (every task once
// per copy on a device, F and B of a layer together, offsets in [0, T), one
// transfer per cross-device pair; if any of these fails nothing else is
// checked), overlaps of ops on each device and of transfers on each link
// modulo T (every overlapping pair), shifts along each copy's chain, a
// deadlock (a cycle of the pattern's event graph carrying no token), and
// each device's steady-state peak memory against its capacity.
// Throws std::invalid_argument if the timing does not belong to the pattern.
std::vector<Violation> validate_pattern(const Pattern& pattern, const PatternTiming& timing,
                                        const Platform& platform, const Workload& workload);

// What the orders say without running them: structure (each stage on one
// rank, micro-batches in 0..microbatches-1, F once and B once or I and W once
// for every stage and micro-batch, no stage without ops) and dependencies
// (a device that runs a consumer before a producer it holds itself).
// Dependencies between devices show up as a deadlock when run.
std::vector<Violation> validate_orders(const ExplicitOrders& orders, int microbatches, const Platform& platform);

// What a run shows: the engine's deadlock explanation and, per device, the
// first instant its memory exceeded its capacity (names: per task, for messages).
std::vector<Violation> run_violations(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                                      const std::vector<std::string>& names);

// "kind: message" lines, then "VALID" or "INVALID: N violation(s)".
void write_violations(std::ostream& out, const std::vector<Violation>& violations);
// [{"kind", "device" (name or null), "time" (null if none), "message"}, ...]
void write_violations_json(std::ostream& out, const std::vector<Violation>& violations, const Platform& platform);

}  // namespace pipesim
