#include "parallelism/job.hpp"

#include "layout/rank_map.hpp"
#include "parallelism/job_graph.hpp"
#include "parallelism/pass_collectives.hpp"
#include "sim/input_error.hpp"
#include "sim/memory_limit.hpp"
#include "sim/units.hpp"

namespace pipesim {
namespace {

// The job's tasks, counted before it is built: every pipeline task once per
// (tp, dp) copy built, and per TP collective at most a ring all-reduce's
// 2(n-1) steps of a transfer per rank built plus their done markers (the gradient buckets are
// few beside them). Refused like a schedule too large to simulate.
void check_job_size(const TaskGraph& pipeline, const Workload& w, const RankMap& map, const RunLimits& limits,
                    int replicas_built, int tp_built, const std::string& not_folded = "") {
  const double n = map.tp, per_collective = (2 * (n - 1) + 1) * tp_built;
  double tasks = static_cast<double>(pipeline.size()) * tp_built * replicas_built;
  if (map.tp > 1)
    for (const Task& task : pipeline.tasks()) {
      if (is_transfer(task.kind) || task.layer_first < 0) continue;
      for (int l = task.layer_first; l <= task.layer_last; ++l) {
        tasks += collectives_of(task.kind, w.layers[l].tp).count() * per_collective * replicas_built;
      }
    }
  const double need = estimated_memory_bytes(tasks);
  const double limit = limits.max_memory_bytes > 0 ? limits.max_memory_bytes : default_memory_limit();
  if (need > limit)
    throw InputError(w.file, "parallel",
                     "this job needs about " + format_bytes(need) + " of memory to simulate (about " +
                         std::to_string(static_cast<long long>(tasks)) +
                         " tasks: " + std::to_string(tp_built * replicas_built) +
                         " copies of the pipeline and their collectives); the limit is " + format_bytes(limit) +
                         " (raise it with --max-memory)" +
                         (not_folded.empty() ? "" : "; its replicas were not folded: " + not_folded));
}

}  // namespace

double job_static_bytes(const StaticMemory& m, const Parallel& parallel) {
  const bool divided = (m.category == MemoryCategory::Gradients && parallel.zero >= 2) ||
                       (m.category == MemoryCategory::Weights && parallel.zero >= 3);
  return divided ? m.bytes / parallel.dp : m.bytes;
}

Platform job_pipeline_view(const Workload& w, const Platform& platform, RankMap& map) {
  // A pipeline that offloads sees the platform's host memory too, and each
  // replica's copy offloads to its own GPUs' host.
  if (offloads(w)) map_pipeline_hosts(map, platform, w.file);
  return pipeline_platform(platform, map.pipeline(0, 0), offloads(w));
}

void check_pipeline_ranks(const TaskGraph& pipeline, const Workload& w, int pp) {
  int used = 0;
  for (int p = 0; p < pp && p < pipeline.device_count(); ++p) used += !pipeline.device_order(p).empty();
  check_pipeline_ranks(used, w, pp);
}

void check_pipeline_ranks(int used, const Workload& w, int pp) {
  if (used >= pp) return;
  const std::string runs =
      " run on " + std::to_string(used) + " of the " + std::to_string(pp) + " pipeline ranks (parallel.pp)";
  const Placement& pl = w.placement;
  if (pl.automatic && pl.stages == 0)
    throw InputError(w.file, "placement",
                     "the schedule's stages" + runs + ": too few layers for its stages per rank on every rank");
  throw InputError(w.file, pl.layer_counts.empty() ? "placement" : "placement.layers",
                   std::to_string(pl.automatic ? pl.stages : static_cast<int>(pl.stage_layers.size())) + " stages" +
                       runs + "; give as many stages as the " + std::to_string(pp) + " ranks run");
}

GeneratedSchedule generate_job(const Workload& w, const Platform& platform, const RunLimits& limits, bool fold) {
  if (!w.parallel.given) return generate(w, platform, limits);
  if (w.parallel.zero >= 3)
    throw InputError(w.file, "parallel.zero",
                     "ZeRO-3 (weights sharded and gathered before each pass) is not simulated yet: use 0, 1 or 2");
  RankMap map = make_rank_map(w, platform);
  const Platform view = job_pipeline_view(w, platform, map);
  // Where the family counts its ranks up front, too few is refused unbuilt.
  if (const int ranks = schedule_size(w, view).ranks; ranks > 0) check_pipeline_ranks(ranks, w, map.pp);
  GeneratedSchedule pipeline = generate(w, view, limits);
  check_pipeline_ranks(pipeline.graph, w, map.pp);
  std::string not_folded;
  std::optional<std::pair<TaskGraph, Folding>> folded;
  if (fold && (map.dp > 1 || map.tp > 1)) {
    check_job_size(pipeline.graph, w, map, limits, 1, map.tp);
    folded = expand_folded_job(pipeline.graph, w, platform, map, not_folded, [&](int replicas, int tp_ranks) {
      check_job_size(pipeline.graph, w, map, limits, replicas, tp_ranks);
    });
  }
  if (!folded) check_job_size(pipeline.graph, w, map, limits, map.dp, map.tp, not_folded);
  GeneratedSchedule job(folded ? std::move(folded->first) : expand_job(pipeline.graph, w, platform, map));
  if (folded) job.folding = std::move(folded->second);
  if (!folded && fold) job.folding.what = map.dp > 1 || map.tp > 1 ? not_folded : "one data-parallel replica";
  // The pattern's figures (exact period, analytic memory) describe one
  // pipeline alone, without the collectives: they would not be the run's.
  job.memory_saving = std::move(pipeline.memory_saving);
  for (StageMemorySaving& m : job.memory_saving) m.device = map.device(0, 0, m.device);  // the first replica's
  job.split = std::move(pipeline.split);
  return job;
}

}  // namespace pipesim
