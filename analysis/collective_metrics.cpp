#include "analysis/collective_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace pipesim {
namespace {

// A device's compute intervals merged, with the busy time before each: the
// busy time inside any window by two binary searches.
class BusyTime {
 public:
  void add(double start, double finish) { raw_.push_back({start, finish}); }
  void seal() {
    std::sort(raw_.begin(), raw_.end());
    for (const auto& [a, b] : raw_) {
      if (!merged_.empty() && a <= merged_.back().second)
        merged_.back().second = std::max(merged_.back().second, b);
      else
        merged_.push_back({a, b});
    }
    raw_.clear();
    before_.assign(merged_.size() + 1, 0);
    for (std::size_t i = 0; i < merged_.size(); ++i)
      before_[i + 1] = before_[i] + (merged_[i].second - merged_[i].first);
  }
  // Busy time in [0, t].
  double until(double t) const {
    const auto it = std::upper_bound(merged_.begin(), merged_.end(), std::pair<double, double>{t, INFINITY});
    const std::size_t i = static_cast<std::size_t>(it - merged_.begin());
    double busy = before_[i];
    if (i > 0 && merged_[i - 1].second > t) busy -= merged_[i - 1].second - t;
    return busy;
  }
  double within(double a, double b) const { return until(b) - until(a); }

 private:
  std::vector<std::pair<double, double>> raw_, merged_;
  std::vector<double> before_;
};

// The calls of the whole job one call of this group stands for: its distinct
// images under the folding's relabellings (1 for a group across every replica).
long long images(const std::vector<int>& group, const Folding* folding) {
  if (!folding || !folding->folded()) return 1;
  std::vector<int> sorted = group;
  std::sort(sorted.begin(), sorted.end());
  std::set<std::vector<int>> orbit = {sorted};
  std::vector<std::vector<int>> todo = {sorted};
  while (!todo.empty()) {
    const std::vector<int> at = std::move(todo.back());
    todo.pop_back();
    for (const std::vector<int>& shift : folding->shifts) {
      std::vector<int> image = at;
      for (int& d : image) d = shift[d];
      std::sort(image.begin(), image.end());
      if (orbit.insert(image).second) todo.push_back(std::move(image));
    }
  }
  return static_cast<long long>(orbit.size());
}

}  // namespace

std::vector<CollectiveMetrics> collective_metrics(const TaskGraph& graph, const Timeline& timeline,
                                                  const Folding* folding) {
  std::vector<CollectiveMetrics> out;
  if (graph.collective_instances().empty()) return out;
  std::vector<BusyTime> busy(graph.device_count());
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task task = graph.task(t);
    if (!is_transfer(task.kind) && task.device >= 0 && std::isfinite(timeline.finish[t]))
      busy[task.device].add(timeline.start[t], timeline.finish[t]);
  }
  for (BusyTime& b : busy) b.seal();
  const auto busy_of = [&](int d) -> const BusyTime& {
    return busy[folding && folding->folded() ? folding->device_image[d] : d];
  };
  std::vector<long long> copies(graph.collectives().size(), 0);  // per record, once known
  std::map<std::string, std::size_t> index;
  for (const CollectiveInstance& call : graph.collective_instances()) {
    const CollectiveRecord& record = graph.collectives()[call.record];
    double start = INFINITY, finish = -INFINITY;
    for (TaskId t = call.first; t < call.end; ++t) {
      start = std::min(start, timeline.start[t]);
      finish = std::max(finish, timeline.finish[t]);
    }
    if (!std::isfinite(start) || !std::isfinite(finish)) continue;  // blocked by a deadlock
    const auto [it, added] = index.emplace(record.purpose, out.size());
    if (added) {
      out.push_back({record.purpose, record.operation, record.algorithm, 0, 0, 0, 0, 0});
    }
    CollectiveMetrics& m = out[it->second];
    if (m.operation != record.operation) m.operation = "mixed";
    if (m.algorithm != record.algorithm) m.algorithm = "mixed";
    m.group_size = std::max(m.group_size, static_cast<int>(record.group.size()));
    long long& n = copies[call.record];
    if (n == 0) n = images(record.group, folding);
    m.calls += n;
    m.bytes += static_cast<double>(n) * record.bytes;
    m.time += static_cast<double>(n) * (finish - start);
    double idle = 0;
    for (const int d : record.group) idle += (finish - start) - busy_of(d).within(start, finish);
    m.exposed_time +=
        record.group.empty() ? 0 : static_cast<double>(n) * idle / static_cast<double>(record.group.size());
  }
  return out;
}

}  // namespace pipesim
