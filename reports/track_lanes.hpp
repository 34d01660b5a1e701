// Splits one track of a trace into lanes so that no two intervals of a lane
// overlap: Chrome / Perfetto require the complete events of one thread to
// nest, and two transfers sharing a link (or two jobs on one worker) overlap
// without nesting.
#pragma once

#include <vector>

namespace pipesim {

struct LaneInterval {
  double start = 0;
  double finish = 0;
};

// Greedy interval colouring: intervals in order of (start, finish, index),
// each in the first lane already free at its start (the lane's last finish
// <= start; touching intervals share a lane). Uses as few lanes as the most
// intervals open at one instant. Returns the lane of each interval, from 0;
// deterministic.
std::vector<int> assign_lanes(const std::vector<LaneInterval>& intervals);

}  // namespace pipesim
