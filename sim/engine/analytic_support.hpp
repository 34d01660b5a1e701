// What the analytic engine's two evaluations share (analytic_replay.cpp,
// analytic_list.cpp): routes and their Shared links, refusals, allocation.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <sys/mman.h>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim::analytic {

constexpr TaskId kNone = std::numeric_limits<TaskId>::max();
// CpuTiTmgr::solve (SimGrid's TI model) ends at once an execution shorter than this.
constexpr double kTiEpsilon = 1e-9;

// Thrown (or returned) at the first condition that makes the evaluation inexact.
struct Refused {
  std::string why;
};

// A transfer's route between two devices.
struct Route {
  double latency = 0;
  double bandwidth = 0;
  std::vector<std::uint32_t> links;    // Path::links, for the timeline
  std::vector<double> weights;         // Path::weights (empty: 1 each), for the timeline
  std::vector<std::uint32_t> shared;   // occupancy indices of its Shared links
  std::vector<double> shared_weights;  // per Shared link: the flows this one stands for on it (Path::weights)
  // Its rate alone on its links: the bandwidth, or less where a weighted
  // Shared link splits among the flows this one stands for.
  double alone_bandwidth = 0;
  std::string other;  // a link whose sharing is not modelled, if any
};

// The route of task's transfer. Occupancy indices are Platform::links
// indices, then one private link per ordered pair of a hand-filled path table
// (no Platform::links), whose name is appended to private_names: a caller's
// occupancy array needs platform.links.size() + private_names.size() entries.
Route make_route(const Task& task, const Path& path, const Platform& platform, std::vector<std::string>& private_names);
// Appends a transfer's links (and, once any route is weighted, their weights) to the timeline's routes.
void append_route(Timeline& timeline, const Route& route);
std::string link_name(std::uint32_t occupancy, const Platform& platform, const std::vector<std::string>& private_names);

std::string quoted(const TaskGraph& graph, TaskId t);  // 'forward stage 1 mb 7 (dev 3)'
std::string contention(const TaskGraph& graph, TaskId first, TaskId second, const std::string& link, double at);

// Reserves room for n elements and asks for transparent huge pages: the
// fast path fills a few arrays of millions of elements once, and 4 KiB page
// faults were a tenth of its time.
template <class T>
void reserve_huge(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  const auto begin = (reinterpret_cast<std::uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(v.data() + n)) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

}  // namespace pipesim::analytic
