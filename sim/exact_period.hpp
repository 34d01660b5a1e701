// The exact steady-state period of a periodic schedule: the maximum cycle
// ratio (delays / tokens) of its timed event graph.
#pragma once

#include <vector>

#include "sim/event_graph.hpp"

namespace pipesim {

struct ExactPeriod {
  double period = 0;
  std::vector<int> critical_cycle;  // node ids in cycle order
};

// Throws std::invalid_argument when the graph has no cycle (no steady state),
// when an arc has negative tokens, or when a cycle carries zero tokens (the
// schedule deadlocks; the message names that cycle's nodes).
ExactPeriod exact_period(const TimedEventGraph& graph);

}  // namespace pipesim
