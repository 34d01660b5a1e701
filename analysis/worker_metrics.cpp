#include "analysis/worker_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "sim/format.hpp"

namespace pipesim {
namespace {

bool ran(const Timeline& tl, TaskId t) { return !std::isnan(tl.start[t]) && !std::isnan(tl.finish[t]); }

// Largest number of intervals open at once; an interval closing at t is
// closed before one opening at t.
int peak_count(std::vector<std::pair<double, int>>& events) {
  std::sort(events.begin(), events.end());  // at equal times -1 sorts before +1
  int level = 0, peak = 0;
  for (const auto& e : events) peak = std::max(peak, level += e.second);
  return peak;
}

using Key = std::tuple<int, int, int, int>;  // device, stage, micro-batch, iteration

}  // namespace

WorkerReport compute_worker_metrics(const TaskGraph& graph, const Timeline& timeline, const Platform& platform) {
  const int D = graph.device_count();
  std::vector<WorkerMetrics> all(D);
  for (int d = 0; d < D; ++d) {
    all[d].device = d;
    all[d].name = d < platform.size() ? platform.devices[d].name : "device " + std::to_string(d);
  }
  WorkerReport report;
  std::set<int> stages, microbatches;
  std::map<Key, TaskId> backward_of;  // the B matching a stash or a fetched copy
  std::set<TaskId> refetched;         // backwards with a WeightFetch of their own
  std::map<TaskId, TaskId> user_of;   // WeightFetch -> the compute task it feeds
  std::vector<std::set<int>> owned(D);

  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (!is_transfer(task.kind)) {
      stages.insert(task.stage);
      microbatches.insert(task.microbatch);
      bool fetched = false;
      for (const TaskId* d = graph.deps_begin(t); d != graph.deps_end(t); ++d)
        if (graph.task(*d).kind == TaskKind::WeightFetch) {
          fetched = true;
          user_of[*d] = t;
        }
      if (task.kind == TaskKind::Backward) {
        backward_of[{task.device, task.stage, task.microbatch, task.iteration}] = t;
        if (fetched) refetched.insert(t);
      }
      if (task.kind == TaskKind::Forward && !fetched) owned[task.device].insert(task.stage);
    } else if (task.kind == TaskKind::WeightFetch) {
      owned[task.device].insert(task.stage);
    }
  }

  std::vector<std::vector<std::pair<double, int>>> stash(D), copies(D);
  for (TaskId t = 0; t < graph.size(); ++t) {
    if (!ran(timeline, t)) continue;
    const Task& task = graph.task(t);
    const double start = timeline.start[t], finish = timeline.finish[t];
    if (!is_transfer(task.kind)) {
      WorkerMetrics& w = all[task.device];
      ++w.jobs;
      // Share-weighted: tasks on shares of a resource (split) run side by side.
      w.busy_time += task.share * (finish - start);
      w.last_finish = std::max(w.last_finish, finish);
      report.work += task.share * (finish - start);
      if (task.kind == TaskKind::Forward) {
        const auto b = backward_of.find({task.device, task.stage, task.microbatch, task.iteration});
        if (b != backward_of.end() && ran(timeline, b->second)) {
          stash[task.device].push_back({start, +1});
          stash[task.device].push_back({timeline.finish[b->second], -1});
        }
      }
      continue;
    }
    if (task.device == task.peer) continue;
    all[task.device].bytes_sent += task.amount;
    WorkerMetrics& to = all[task.peer];
    if (task.kind == TaskKind::WeightFetch) {
      ++to.weight_receives;
      to.weight_bytes_received += task.amount;
      report.weight_bytes_moved += task.amount;
      // Held until the task it feeds ends; a forward's copy until the
      // matching backward ends, unless that backward fetches its own.
      double release = finish;
      if (const auto u = user_of.find(t); u != user_of.end() && ran(timeline, u->second)) {
        const Task& user = graph.task(u->second);
        release = std::max(release, timeline.finish[u->second]);
        const auto b = backward_of.find({user.device, user.stage, user.microbatch, user.iteration});
        if (user.kind == TaskKind::Forward && b != backward_of.end() && !refetched.count(b->second) &&
            ran(timeline, b->second))
          release = std::max(release, timeline.finish[b->second]);
      }
      copies[task.peer].push_back({start, +1});
      copies[task.peer].push_back({release, -1});
      continue;
    }
    if (task.kind != TaskKind::Transfer) continue;
    bool from_forward = false, from_backward = false;
    for (const TaskId* d = graph.deps_begin(t); d != graph.deps_end(t); ++d) {
      from_forward |= graph.task(*d).kind == TaskKind::Forward;
      from_backward |= graph.task(*d).kind == TaskKind::Backward;
    }
    if (from_forward) {
      ++to.activation_receives;
      to.activation_bytes_received += task.amount;
      report.activation_bytes_moved += task.amount;
    } else if (from_backward) {
      ++to.gradient_receives;
      to.gradient_bytes_received += task.amount;
      report.gradient_bytes_moved += task.amount;
    }
  }
  const std::vector<DevicePeak> peaks = peak_memory(graph, timeline);
  for (int d = 0; d < D; ++d) {
    WorkerMetrics& w = all[d];
    if (w.jobs == 0) continue;
    w.peak_activations = peak_count(stash[d]);
    w.owned_weights = static_cast<int>(owned[d].size());
    w.peak_weights = w.owned_weights + peak_count(copies[d]);
    w.memory = peaks[d];
    report.peak_activations = std::max(report.peak_activations, w.peak_activations);
    report.per_worker.push_back(std::move(w));
  }
  report.stages = static_cast<int>(stages.size());
  report.microbatches = static_cast<int>(microbatches.size());
  report.workers = static_cast<int>(report.per_worker.size());
  report.latency = timeline.makespan;
  if (report.workers > 0 && report.latency > 0) report.rho = report.work / (report.workers * report.latency);
  for (WorkerMetrics& w : report.per_worker)
    if (report.latency > 0) w.rho = w.busy_time / report.latency;
  if (report.stages > 0) report.rho_bound = static_cast<double>(report.peak_activations) / report.stages;
  return report;
}

}  // namespace pipesim

namespace pipesim {

void write_worker_report(std::ostream& out, const WorkerReport& r) {
  using Row = std::vector<std::string>;
  std::vector<Row> rows = {{"worker", "jobs", "busy", "done at", "rho", "act rx", "grad rx", "weight rx", "bytes rx",
                            "stashes", "owned w", "peak w", "peak memory"}};
  for (const WorkerMetrics& w : r.per_worker)
    rows.push_back({w.name, std::to_string(w.jobs), fmt::time(w.busy_time), fmt::time(w.last_finish),
                    fmt::fixed(w.rho, 4), std::to_string(w.activation_receives), std::to_string(w.gradient_receives),
                    std::to_string(w.weight_receives),
                    fmt::bytes(w.activation_bytes_received + w.gradient_bytes_received + w.weight_bytes_received),
                    std::to_string(w.peak_activations), std::to_string(w.owned_weights), std::to_string(w.peak_weights),
                    fmt::bytes(w.memory.total)});
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const Row& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const Row& row : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      line += " " + (c == 0 ? row[c] + pad : pad + row[c]);
    }
    out << line << '\n';
  }
  out << "  S = " << r.stages << " stages, B = " << r.microbatches << " micro-batches, W = " << r.workers
      << " workers, latency L = " << fmt::time(r.latency) << '\n'
      << "  throughput per worker rho = work / (W L) = " << fmt::fixed(r.rho, 4)
      << "; bound M / S = " << r.peak_activations << " / " << r.stages << " = " << fmt::fixed(r.rho_bound, 4) << '\n'
      << "  moved: activations " << fmt::bytes(r.activation_bytes_moved) << ", gradients "
      << fmt::bytes(r.gradient_bytes_moved) << ", weights " << fmt::bytes(r.weight_bytes_moved) << '\n';
}

}  // namespace pipesim
