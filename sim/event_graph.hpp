// A timed event graph: the steady state of a periodic schedule. Each node
// fires once per period; an arc (u, v, delay, tokens) says that firing k of v
// starts no earlier than firing k - tokens of u plus delay. Its maximum cycle
// ratio (sum of delays / sum of tokens) is the exact steady-state period.
#pragma once

#include <string>
#include <vector>

namespace pipesim {

struct EventArc {
  int from;
  int to;
  double delay;  // usually the duration of `from`
  int tokens;    // period shift: 0 within a period, 1 from the previous one, ...
};

struct TimedEventGraph {
  std::vector<std::string> nodes;  // names, for the critical cycle
  std::vector<EventArc> arcs;

  int add_node(std::string name) {
    nodes.push_back(std::move(name));
    return static_cast<int>(nodes.size()) - 1;
  }
  void add_arc(int from, int to, double delay, int tokens) { arcs.push_back({from, to, delay, tokens}); }
};

}  // namespace pipesim
