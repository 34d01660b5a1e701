#include "studies/plan/plan_bounds.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/collective.hpp"
#include "layout/rank_map.hpp"
#include "parallelism/job.hpp"
#include "parallelism/pass_collectives.hpp"
#include "schedules/registry.hpp"
#include "schedules/stages/stage_split.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/input_error.hpp"

namespace pipesim {

namespace {

// The largest pipeline a screening builds (about 0.1 s and 90 MB).
constexpr double kMaxBoundTasks = 1e6;

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
// Seconds the TP collectives after one pass of layer L (of KIND) take at
// the least: the job runs them after the pass on every rank, and without
// overlap_tp the rank's next pass waits for them. A ring's rank waits for
// 2(n-1) (all-reduce) or n-1 steps of S/n in a chain; other algorithms are
// counted as nothing.
double layer_tp_seconds(TaskKind kind, const Layer& layer, const Workload& w, const Platform& platform,
                        const RankMap& map, const RingStep& step) {
  const int n = map.tp;
  const TpPassCollectives pass = collectives_of(kind, layer.tp);
  CollectiveSpec spec;
  spec.group = map.tp_group(0, 0);
  spec.bytes = layer.tp.bytes;
  spec.algorithm = *parse_collective_algorithm(w.parallel.tp_algorithm);
  double seconds = 0;
  for (const auto& [op, count, steps] : {std::tuple{CollectiveOp::AllReduce, pass.all_reduce, 2 * (n - 1)},
                                         std::tuple{CollectiveOp::AllGather, pass.all_gather, n - 1},
                                         std::tuple{CollectiveOp::ReduceScatter, pass.reduce_scatter, n - 1}}) {
    if (count == 0) continue;
    spec.op = op;
    if (choose_algorithm(spec, platform) == CollectiveAlgorithm::Ring)
      seconds += count * steps * step.seconds(spec.bytes / n);
  }
  return seconds;
}

// Lengthens each pass of the pipeline's graph by its TP collectives' least
// time, in place: the same tasks, dependencies and orders, so the same
// partition and order as the job's. Unchanged without TP, with overlap_tp,
// or where passes run beside each other (DualPipeV's pairs share the device
// while their collectives would not).
void add_tp_collectives(TaskGraph& graph, const Workload& w, const Platform& platform, const Platform& view,
                        const RankMap& map) {
  if (map.tp == 1 || w.parallel.overlap_tp) return;
  for (TaskId t = 0; t < graph.size(); ++t)
    if (graph.beside_previous(t)) return;
  const RingStep step = fastest_tp_step(platform, map);
  // Per layer, the forward's and the input gradient's (collectives_of folds recompute into the latter).
  std::vector<double> forward(w.layers.size()), backward(w.layers.size());
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    forward[l] = layer_tp_seconds(TaskKind::Forward, w.layers[l], w, platform, map, step);
    backward[l] = layer_tp_seconds(TaskKind::BackwardInput, w.layers[l], w, platform, map, step);
  }
  graph.set_amounts([&](const Task& task) {
    const bool forwards = task.kind == TaskKind::Forward || task.kind == TaskKind::Recompute;
    const bool backwards = task.kind == TaskKind::Backward || task.kind == TaskKind::BackwardInput;
    if ((!forwards && !backwards) || task.layer_first < 0) return task.amount;
    double seconds = 0;
    for (int l = task.layer_first; l <= task.layer_last; ++l) seconds += forwards ? forward[l] : backward[l];
    return task.amount + seconds * view.devices[task.device].speed;
  });
}

// With the distributed optimizer (ZeRO >= 1) each device's weights are
// gathered over its DP group after its step, with nothing left to overlap
// them (parallelism/job_builder.cpp, gather_weights): the job ends no
// sooner than each device's step plus its ring all-gather. The step ends
// no sooner than in `alone` (the pipeline's contention-free timeline) nor
// than the device's compute `busy` (the step is its last task). A rank's
// all-gather ends after a chain of m - 1 steps of S / m bytes over every
// edge of the ring but one, each at least its time alone on its route:
// at least the sum over the ring's edges less the longest.
double gathered_after_step(const TaskGraph& graph, const Timeline& alone, const Workload& w, const Platform& platform,
                           const RankMap& map, const StageLayers& layers, const std::vector<int>& device,
                           const std::vector<double>& busy) {
  // Overlapped with the next iteration's passes, the gather follows no step here.
  if (w.parallel.zero < 1 || map.dp < 2 || w.parallel.overlap_param_gather) return 0;
  std::vector<double> weights(map.pp, 0);
  for (std::size_t s = 0; s < layers.size(); ++s)
    for (int l = layers[s].first; l <= layers[s].second; ++l) weights[device[s]] += w.layers[l].weights;
  double end = 0;
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (task.kind != TaskKind::Update || task.device < 0 || task.device >= map.pp) continue;
    const std::vector<int> ring = map.dp_group(0, task.device);
    const int m = static_cast<int>(ring.size());
    const double piece = weights[task.device] / m;
    if (piece <= 0) continue;
    double sum = 0, longest = 0;
    for (int i = 0; i < m; ++i) {
      const double step = platform.transfer_time(ring[i], ring[(i + 1) % m], piece);
      sum += step;
      longest = std::max(longest, step);
    }
    end = std::max(end, std::max(alone.finish[t], busy[task.device]) + sum - longest);
  }
  return end;
}

std::string stages_text(const StageLayers& layers) {
  std::string text;
  for (const auto& [first, last] : layers)
    text += (text.empty() ? "" : " ") + std::to_string(first) + "-" + std::to_string(last);
  return text;
}

// Each GPU's memory bound (its static memory plus its own passes' effects,
// replayed in its order; buffers of transfers left out) and compute time
// (BUSY), into B's memory fields.
// OPTIMIZER_SCALE multiplies the optimizer's state (a ZeRO 0 twin's).
void bound_memory(const TaskGraph& graph, const Parallel& parallel, const Platform& view, int pp, PlanBounds& b,
                  std::vector<double>& busy_by_rank, double optimizer_scale = 1) {
  std::vector<double> level(graph.device_count(), 0);
  for (const StaticMemory& m : graph.static_memory())
    level[m.device] += job_static_bytes(m, parallel) * (m.category == MemoryCategory::Optimizer ? optimizer_scale : 1);
  const std::vector<double> level_static = level;
  bool static_over = false;
  b.ranks.clear();
  b.over_capacity.clear();
  b.memory = 0;
  for (int d = 0; d < pp; ++d) {  // the GPUs: host memory (d >= pp), where offloading, is bounded by the run
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
      if (!is_transfer(graph.task(t).kind)) busy += graph.task(t).amount / view.devices[d].speed;
    }
    b.ranks.push_back({level_static[d], peak, view.devices[d].memory, view.devices[d].speed});
    if (d == 0 || peak > b.memory) b.memory = peak, b.memory_rank = d, b.capacity = view.devices[d].memory;
    if (peak > view.devices[d].memory) b.over_capacity += (b.over_capacity.empty() ? "" : " ") + std::to_string(d);
    if (level_static[d] > view.devices[d].memory) static_over = true;
    b.time = std::max(b.time, busy);
    busy_by_rank[d] = busy;
  }
  if (static_over) b.over_capacity.clear();
}

std::string layout_key(const Workload& w) {
  const Parallel& p = w.parallel;
  std::string key = std::to_string(p.tp) + " " + std::to_string(p.pp) + " " + std::to_string(p.dp) + " " +
                    std::to_string(p.gpus) + " " + p.order + (offloads(w) ? " offloads" : "");
  for (const std::string& d : p.devices) key += " " + d;
  return key;
}

// The end-of-iteration passes whose work the distributed optimizer divides
// over the replicas: times SCALE, in place.
void scale_optimizer_passes(TaskGraph& graph, double scale) {
  graph.set_amounts([&](const Task& task) {
    const bool sharded = task.kind == TaskKind::Update || task.kind == TaskKind::GradientNorm;
    return sharded ? task.amount * scale : task.amount;
  });
}

// WHOLE_OPTIMIZER's bounds from ZeRO 1 job W's pipeline GRAPH (before its TP
// collectives): the optimizer's state and passes dp times larger, no gather
// after the step (ZeRO 0 all-reduces the gradients before it instead).
void bound_whole_optimizer(TaskGraph& graph, const Workload& w, const Platform& platform, const Platform& view,
                           const RankMap& map, const PlanBounds& b, PlanBounds& whole) {
  Parallel zero0 = w.parallel;
  zero0.zero = 0;
  whole = b;
  whole.time = 0;
  std::vector<double> busy(map.pp, 0);
  scale_optimizer_passes(graph, map.dp);
  bound_memory(graph, zero0, view, map.pp, whole, busy, map.dp);
  add_tp_collectives(graph, w, platform, view, map);
  if (const std::optional<Timeline> alone = contention_free_timeline(graph, view); alone && alone->completed())
    whole.time = std::max(whole.time, alone->makespan);
}

}  // namespace

struct PlanLayouts::Layout {
  RankMap map;
  Platform view;
};

bool bounds_whole_optimizer(int dp) { return dp >= 2 && (dp & (dp - 1)) == 0; }

PlanBounds plan_bounds(const Workload& w, const Platform& platform, PlanLayouts* layouts, PlanBounds* sharded_gradients,
                       PlanBounds* whole_optimizer) {
  std::shared_ptr<const PlanLayouts::Layout> layout;
  const std::string key = layouts ? layout_key(w) : "";
  if (layouts)
    if (const auto found = layouts->known.find(key); found != layouts->known.end()) layout = found->second;
  if (!layout) {
    auto made = std::make_shared<PlanLayouts::Layout>();
    made->map = make_rank_map(w, platform);
    made->view = job_pipeline_view(w, platform, made->map);
    layout = made;
    if (layouts) layouts->known.emplace(key, layout);
  }
  const RankMap& map = layout->map;
  const Platform& view = layout->view;
  // A pipeline too large to build in a screening is left out, named: a plan
  // weighs thousands of candidates, and a million micro-batches would hang it.
  const ScheduleSize size = schedule_size(w, view);
  if (size.tasks > kMaxBoundTasks)
    throw InputError(w.file, "microbatches",
                     "its pipeline would have about " + std::to_string(static_cast<long long>(size.tasks)) +
                         " tasks; a plan bounds pipelines of at most " +
                         std::to_string(static_cast<long long>(kMaxBoundTasks)) + " (a smaller global batch)");
  if (size.ranks > 0) check_pipeline_ranks(size.ranks, w, map.pp);  // refused unbuilt, as built
  TaskGraph graph = generate(w, view).graph;
  check_pipeline_ranks(graph, w, map.pp);
  // A scattered transfer sends 1/tp of its bytes from each rank (the gather after it is left out).
  graph.set_amounts([&](const Task& t) { return scattered_transfer(t, w, map.tp) ? t.amount / map.tp : t.amount; });
  PlanBounds b;
  // The stages, by their forwards: layers and device.
  std::map<std::pair<int, int>, int> stages;
  for (const Task& task : graph.tasks())
    if (task.kind == TaskKind::Forward && task.layer_first >= 0)
      stages.emplace(std::pair{task.layer_first, task.layer_last}, task.device);
  StageLayers layers;
  std::vector<int> device;
  for (const auto& [range, d] : stages) layers.push_back(range), device.push_back(d);
  b.stages = stages_text(layers);
  b.stage_rank = device;
  b.balanced_stages = w.placement.partition == PartitionRule::Even && !layers.empty()
                          ? stages_text(balanced_stage_layers(w, view, device))
                          : b.stages;
  std::vector<double> busy_by_rank(map.pp, 0);
  bound_memory(graph, w.parallel, view, map.pp, b, busy_by_rank);
  if (sharded_gradients) {  // the same pipeline with ZeRO 2: only the gradients' static memory differs
    Parallel zero2 = w.parallel;
    zero2.zero = 2;
    *sharded_gradients = b;
    bound_memory(graph, zero2, view, map.pp, *sharded_gradients, busy_by_rank);
  }
  if (whole_optimizer) {
    if (w.parallel.zero != 1 || !bounds_whole_optimizer(map.dp))
      throw std::logic_error("plan bounds: a ZeRO 0 twin of a job that is not ZeRO 1 over a power of two replicas");
    // Its own copy of the pipeline: the TP collectives lengthen passes in place.
    TaskGraph copy = graph;
    bound_whole_optimizer(copy, w, platform, view, map, b, *whole_optimizer);
  }
  // The pipeline alone with its transfers unshared: the job only adds tasks,
  // waits and sharing to it.
  add_tp_collectives(graph, w, platform, view, map);
  if (const std::optional<Timeline> alone = contention_free_timeline(graph, view); alone && alone->completed())
    b.time = std::max(
        {b.time, alone->makespan, gathered_after_step(graph, *alone, w, platform, map, layers, device, busy_by_rank)});
  if (sharded_gradients) sharded_gradients->time = b.time;
  return b;
}

}  // namespace pipesim
