#include "analysis/metrics.hpp"

#include "analysis/unfold_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace pipesim {
namespace {

using Interval = std::pair<double, double>;

// Total length covered by the intervals; sorts them in place.
double union_length(std::vector<Interval>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  double sum = 0;
  double begin = 0, end = 0;
  bool open = false;
  for (const auto& [s, f] : intervals) {
    if (open && s <= end) {
      end = std::max(end, f);
      continue;
    }
    if (open) sum += end - begin;
    begin = s;
    end = f;
    open = true;
  }
  if (open) sum += end - begin;
  return sum;
}

// The union of intervals that come nearly in start order, merged as they
// come: the last kTail disjoint segments stay open to late intervals, older
// ones are counted and dropped. An interval reaching back to a dropped
// segment makes the set `unsorted`. Segments are counted in start order,
// as union_length counts them, so the sum is the same to the bit.
class IntervalUnion {
 public:
  void add(double s, double f) {
    if (unsorted_) return;
    if (s <= dropped_end_) {
      unsorted_ = true;
      return;
    }
    if (!open_.empty() && s >= open_.back().first) {  // in start order: the usual case
      if (s <= open_.back().second)
        open_.back().second = std::max(open_.back().second, f);
      else
        open_.push_back({s, f});
    } else {
      merge_late(s, f);
    }
    while (open_.size() > kTail) drop_first();
  }
  bool unsorted() const { return unsorted_; }
  double length() {
    while (!open_.empty()) drop_first();
    return sum_;
  }

 private:
  static constexpr std::size_t kTail = 256;
  // The first open segment that ends at or after s; those after it that f reaches join it.
  void merge_late(double s, double f) {
    auto it =
        std::lower_bound(open_.begin(), open_.end(), s, [](const Interval& seg, double x) { return seg.second < x; });
    if (it == open_.end() || it->first > f) {
      open_.insert(it, {s, f});
    } else {
      it->first = std::min(it->first, s);
      auto next = std::next(it);
      while (next != open_.end() && next->first <= std::max(it->second, f)) ++next;
      it->second = std::max({it->second, f, std::prev(next)->second});
      open_.erase(std::next(it), next);
    }
  }
  void drop_first() {
    sum_ += open_.front().second - open_.front().first;
    dropped_end_ = open_.front().second;
    open_.pop_front();
  }
  std::deque<Interval> open_;  // disjoint, in start order
  double sum_ = 0, dropped_end_ = -INFINITY;
  bool unsorted_ = false;
};

// Length of the union of each of `count` sets of intervals, which
// for_each(visit) lists as visit(set, start, finish): streamed by
// IntervalUnion, holding nothing per task (a device's ordered tasks, a
// link's transfers from a few sorted streams). Only a set that arrives too
// far out of order is listed again, kept and sorted.
template <class ForEach>
std::vector<double> union_lengths(std::size_t count, ForEach for_each) {
  std::vector<IntervalUnion> merge(count);
  for_each([&](std::size_t i, double s, double f) { merge[i].add(s, f); });
  std::vector<double> length(count, 0);
  bool any_unsorted = false;
  for (std::size_t i = 0; i < count; ++i) {
    if (merge[i].unsorted())
      any_unsorted = true;
    else
      length[i] = merge[i].length();
  }
  if (!any_unsorted) return length;
  std::vector<std::vector<Interval>> kept(count);
  for_each([&](std::size_t i, double s, double f) {
    if (merge[i].unsorted()) kept[i].push_back({s, f});
  });
  for (std::size_t i = 0; i < count; ++i)
    if (merge[i].unsorted()) length[i] = union_length(kept[i]);
  return length;
}

bool ran(const Timeline& tl, TaskId t) { return std::isfinite(tl.start[t]) && std::isfinite(tl.finish[t]); }

}  // namespace

double steady_time_per_microbatch(const TaskGraph& graph, const Timeline& timeline, int iteration, int first_mb,
                                  int last_mb) {
  if (last_mb <= first_mb) throw std::invalid_argument("steady time per micro-batch: empty range");
  // Completion of each micro-batch, in time order: schedules such as the
  // master scheduler's finish micro-batches out of index order.
  std::vector<double> completion;
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (task.iteration != iteration || task.microbatch < 0) continue;
    if (completion.size() <= static_cast<std::size_t>(task.microbatch))
      completion.resize(task.microbatch + 1, -INFINITY);
    completion[task.microbatch] =
        std::isfinite(timeline.finish[t]) ? std::max(completion[task.microbatch], timeline.finish[t]) : NAN;
  }
  if (completion.size() <= static_cast<std::size_t>(last_mb)) return NAN;
  for (double c : completion)
    if (!std::isfinite(c)) return NAN;
  std::sort(completion.begin(), completion.end());
  return (completion[last_mb] - completion[first_mb]) / (last_mb - first_mb);
}

namespace {

// Busy time (work at full speed) per compute resource, for graphs that use lanes
// or shares; nothing otherwise, so other runs report exactly what they did.
void resource_metrics(const TaskGraph& graph, const Timeline& timeline, const Platform& platform, Metrics& m) {
  bool lanes = false;
  for (const Task& task : graph.tasks())
    if (!is_transfer(task.kind) && (task.resource != 0 || task.lane != 0 || task.share < 1)) lanes = true;
  if (!lanes) return;
  for (int d = 0; d < platform.size(); ++d) {
    const Device& device = platform.devices[d];
    if (device.resources.empty()) m.devices[d].resources.push_back({device.kind});
    for (const ComputeResource& r : device.resources) m.devices[d].resources.push_back({r.type});
  }
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (is_transfer(task.kind) || !ran(timeline, t)) continue;
    auto& resources = m.devices[task.device].resources;
    if (task.resource < 0 || static_cast<std::size_t>(task.resource) >= resources.size()) continue;
    // A task with a share runs at exactly it; one without may have split the
    // speed with another lane (DualPipeV's pairs): its work at full speed.
    const Device& device = platform.devices[task.device];
    const double speed = device.resources.empty() ? device.speed : device.resources[task.resource].speed;
    const double duration = timeline.finish[t] - timeline.start[t];
    resources[task.resource].busy_time +=
        task.share < 1 ? task.share * duration : (speed > 0 ? std::min(duration, task.amount / speed) : duration);
  }
  for (DeviceMetrics& dm : m.devices)
    for (ResourceMetrics& r : dm.resources) r.utilization = m.makespan > 0 ? r.busy_time / m.makespan : 0;
}

}  // namespace

Metrics compute_metrics(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                        int samples_per_microbatch, const Folding* folding) {
  if (graph.device_count() > platform.size())
    throw std::invalid_argument("metrics: the task graph has more devices than the platform");
  if (timeline.start.size() < graph.size() || timeline.finish.size() < graph.size())
    throw std::invalid_argument("metrics: timeline has fewer tasks than the graph");

  Metrics m;
  m.makespan = timeline.makespan;
  for (const Task& t : graph.tasks()) {
    m.microbatches = std::max(m.microbatches, t.microbatch + 1);
    m.iterations = std::max(m.iterations, t.iteration + 1);
  }
  m.iteration_time = m.iterations > 0 ? m.makespan / m.iterations : 0;
  m.steady_iteration_time = m.iteration_time;
  if (m.iterations >= 2) {
    std::vector<double> ends(m.iterations, 0);
    for (TaskId t = 0; t < graph.size(); ++t) {
      const int it = graph.shape(graph.shape_of(t)).task.iteration;
      if (ran(timeline, t) && it >= 0) ends[it] = std::max(ends[it], timeline.finish[t]);
    }
    m.steady_iteration_time = ends[m.iterations - 1] - ends[m.iterations - 2];
  }
  m.iteration_time_per_microbatch = m.microbatches > 0 ? m.iteration_time / m.microbatches : 0;
  // A run that deadlocked did not train its micro-batches: no throughput.
  m.throughput = m.makespan > 0 && timeline.completed()
                     ? static_cast<double>(m.microbatches) * samples_per_microbatch * m.iterations / m.makespan
                     : 0;

  // Steady state: skip the fill and drain quarters of the last iteration.
  const int M = m.microbatches;
  const int first = M / 4, last = M - 1 - M / 4;
  double steady = NAN;
  if (last - first + 1 >= 2) steady = steady_time_per_microbatch(graph, timeline, m.iterations - 1, first, last);
  m.time_per_microbatch = std::isfinite(steady) ? steady : m.iteration_time_per_microbatch;

  // Devices: compute intervals (busy is their union, so it never exceeds
  // the makespan even if a device ran tasks concurrently).
  const int D = platform.size();
  m.devices.resize(D);
  const MemoryOutcome memory = memory_outcome(graph, timeline, platform);
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.shape(graph.shape_of(t)).task;
    if (!is_transfer(task.kind)) ++m.devices[task.device].tasks;
  }
  const std::vector<double> busy = union_lengths(D, [&](auto visit) {
    for (TaskId t = 0; t < graph.size(); ++t) {
      const Task& task = graph.shape(graph.shape_of(t)).task;
      if (!is_transfer(task.kind) && ran(timeline, t)) visit(task.device, timeline.start[t], timeline.finish[t]);
    }
  });
  resource_metrics(graph, timeline, platform, m);
  for (int d = 0; d < D; ++d) {
    DeviceMetrics& dm = m.devices[d];
    dm.name = platform.devices[d].name;
    dm.busy_time = busy[d];
    dm.idle_time = m.makespan - dm.busy_time;
    dm.bubble_fraction = m.makespan > 0 ? dm.idle_time / m.makespan : 0;
    dm.peak = memory.peaks[d];
  }

  // Links: every transfer counts on each link of its route.
  const std::size_t L = timeline.links.size();
  m.links.resize(L);
  // A hand-made timeline may leave routes out: tasks past route_offsets have none.
  const std::size_t routed = timeline.route_offsets.empty() ? 0 : timeline.route_offsets.size() - 1;
  for (TaskId t = 0; t < std::min<std::size_t>(graph.size(), routed); ++t) {
    if (!ran(timeline, t)) continue;
    for (auto it = timeline.route_begin(t); it != timeline.route_end(t); ++it) {
      if (*it >= L) throw std::invalid_argument("metrics: route through an unknown link");
      const double amount = graph.shape(graph.shape_of(t)).task.amount;
      // A folded flow stands for route_weights' flows of the whole job on each link.
      m.links[*it].bytes +=
          timeline.route_weights.empty() ? amount : amount * timeline.route_weights[it - timeline.route_links.data()];
    }
  }
  const std::vector<double> carried = union_lengths(L, [&](auto visit) {
    for (TaskId t = 0; t < std::min<std::size_t>(graph.size(), routed); ++t)
      if (ran(timeline, t))
        for (auto it = timeline.route_begin(t); it != timeline.route_end(t); ++it)
          visit(*it, timeline.start[t], timeline.finish[t]);
  });
  for (std::size_t l = 0; l < L; ++l) {
    LinkMetrics& lm = m.links[l];
    lm.name = timeline.links[l].name;
    lm.busy_time = carried[l];
    lm.utilization = m.makespan > 0 ? lm.busy_time / m.makespan : 0;
  }

  m.violations = memory.violations;
  m.collectives = collective_metrics(graph, timeline, folding);
  if (folding && folding->folded()) unfold_metrics(m, *folding);
  m.completed = timeline.completed();
  m.blocked_tasks = timeline.blocked.size();
  m.deadlock = timeline.deadlock;
  m.valid = m.completed && m.violations.empty();
  return m;
}

}  // namespace pipesim
