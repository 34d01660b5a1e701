#include "reports/track_lanes.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace pipesim {

// Hand-written rather than boost::sequential_vertex_coloring: that needs the
// interval graph, whose edges grow as the square of the overlapping transfers.
std::vector<int> assign_lanes(const std::vector<LaneInterval>& intervals) {
  std::vector<std::size_t> order(intervals.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(intervals[a].start, intervals[a].finish, a) < std::tie(intervals[b].start, intervals[b].finish, b);
  });
  std::vector<int> lane(intervals.size(), 0);
  std::vector<double> free_at;  // per lane: the finish of its last interval
  for (std::size_t i : order) {
    const auto it = std::find_if(free_at.begin(), free_at.end(), [&](double f) { return f <= intervals[i].start; });
    lane[i] = static_cast<int>(it - free_at.begin());
    if (it == free_at.end())
      free_at.push_back(intervals[i].finish);
    else
      *it = intervals[i].finish;
  }
  return lane;
}

}  // namespace pipesim
