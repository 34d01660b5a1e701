#include "studies/plan/plan_bounds.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include "collectives/collective.hpp"
#include "layout/rank_map.hpp"
#include "parallelism/job.hpp"
#include "parallelism/pass_collectives.hpp"
#include "schedules/registry.hpp"
#include "sim/engine/analytic_engine.hpp"

namespace pipesim {

namespace {

// The least a ring step of B bytes can take between two ranks of any TP
// group of the job: the smallest latency plus B at the largest bandwidth.
struct RingStep {
  double latency = 0, bandwidth = 0;
  double seconds(double bytes) const { return bandwidth > 0 ? latency + bytes / bandwidth : 0; }
};

RingStep fastest_tp_step(const Platform& platform, const RankMap& map) {
  RingStep step{std::numeric_limits<double>::infinity(), 0};
  for (int p = 0; p < map.pp; ++p) {
    const std::vector<int> group = map.tp_group(0, p);
    for (const int a : group)
      for (const int b : group)
        if (a != b) {
          const Path& path = platform.path(a, b);
          step.latency = std::min(step.latency, path.latency);
          step.bandwidth = std::max(step.bandwidth, path.bandwidth);
        }
  }
  return step;
}

// Seconds each pass's TP collectives take at the least: the job runs them
// after the pass on every rank, and without overlap_tp the rank's next pass
// waits for them. A ring's rank waits for 2(n-1) (all-reduce) or n-1 steps
// of S/n in a chain; other algorithms are counted as nothing.
double tp_seconds(const Task& task, const Workload& w, const Platform& platform, const RankMap& map,
                  const RingStep& step) {
  if (is_transfer(task.kind) || task.layer_first < 0) return 0;
  const int n = map.tp;
  double seconds = 0;
  for (int l = task.layer_first; l <= task.layer_last; ++l) {
    const TpPassCollectives pass = collectives_of(task.kind, w.layers[l].tp);
    CollectiveSpec spec;
    spec.group = map.tp_group(0, 0);
    spec.bytes = w.layers[l].tp.bytes;
    spec.algorithm = *parse_collective_algorithm(w.parallel.tp_algorithm);
    for (const auto& [op, count, steps] : {std::tuple{CollectiveOp::AllReduce, pass.all_reduce, 2 * (n - 1)},
                                           std::tuple{CollectiveOp::AllGather, pass.all_gather, n - 1},
                                           std::tuple{CollectiveOp::ReduceScatter, pass.reduce_scatter, n - 1}}) {
      if (count == 0) continue;
      spec.op = op;
      if (choose_algorithm(spec, platform) == CollectiveAlgorithm::Ring)
        seconds += count * steps * step.seconds(spec.bytes / n);
    }
  }
  return seconds;
}

// The pipeline's graph with each pass lengthened by its TP collectives'
// least time; the same tasks, dependencies and orders, so the same
// partition and order as the job's. Unchanged without TP, with overlap_tp,
// or where passes run beside each other (DualPipeV's pairs share the device
// while their collectives would not).
TaskGraph with_tp_collectives(const TaskGraph& graph, const Workload& w, const Platform& platform, const Platform& view,
                              const RankMap& map) {
  if (map.tp == 1 || w.parallel.overlap_tp) return graph;
  for (TaskId t = 0; t < graph.size(); ++t)
    if (graph.beside_previous(t)) return graph;
  const RingStep step = fastest_tp_step(platform, map);
  TaskGraph out(graph.device_count());
  for (TaskId t = 0; t < graph.size(); ++t) {
    Task task = graph.task(t);
    if (!is_transfer(task.kind))
      task.amount += tp_seconds(task, w, platform, map, step) * view.devices[task.device].speed;
    out.add(task, std::vector<TaskId>(graph.deps_begin(t), graph.deps_end(t)));
  }
  for (int d = 0; d < graph.device_count(); ++d)
    for (const TaskId t : graph.device_order(d)) out.append_to_order(t);
  return out;
}

}  // namespace

PlanBounds plan_bounds(const Workload& w, const Platform& platform) {
  const RankMap map = make_rank_map(w, platform);
  const std::vector<int> devices = map.pipeline(0, 0);
  const Platform view = pipeline_platform(platform, devices);
  const TaskGraph graph = generate(w, view).graph;
  const int n = graph.device_count();
  std::vector<double> level(n, 0);
  for (const StaticMemory& m : graph.static_memory()) level[m.device] += job_static_bytes(m, w.parallel);
  PlanBounds b;
  for (int d = 0; d < n; ++d) {
    double peak = level[d], busy = 0;
    // The device's own effects in its order: each pass allocates at its
    // start and frees at its finish; buffers of transfers are left out.
    const auto apply = [&](TaskId t, MemoryWhen when) {
      for (const MemoryEffect& e : graph.memory_effects(t))
        if (e.device == d && e.when == when && e.category != MemoryCategory::CommBuffers) level[d] += e.bytes;
      peak = std::max(peak, level[d]);
    };
    for (const TaskId t : graph.device_order(d)) {
      apply(t, MemoryWhen::AtStart);
      apply(t, MemoryWhen::AtFinish);
      busy += graph.task(t).amount / view.devices[d].speed;
    }
    if (d == 0 || peak > b.memory) b.memory = peak, b.memory_rank = d, b.capacity = view.devices[d].memory;
    b.time = std::max(b.time, busy);
  }
  // The pipeline alone with its transfers unshared: the job only adds tasks,
  // waits and sharing to it.
  const TaskGraph timed = with_tp_collectives(graph, w, platform, view, map);
  if (const std::optional<Timeline> alone = contention_free_timeline(timed, view); alone && alone->completed())
    b.time = std::max(b.time, alone->makespan);
  return b;
}

}  // namespace pipesim
