#include "parallelism/job_graph.hpp"

#include <stdexcept>

#include "folding/replica_folding.hpp"
#include "parallelism/job_builder.hpp"
#include "sim/input_error.hpp"

namespace pipesim {

namespace {

TaskGraph build(JobBuilder& job, const Workload& w) {
  try {
    job.copy_passes();
    job.reduce_gradients();
    job.sum_tied_gradients();
    job.copy_deferred();
  } catch (const std::invalid_argument& e) {  // a collective algorithm the group cannot run
    throw InputError(w.file, job.failing_field(), e.what());
  }
  return job.finish();
}

}  // namespace

TaskGraph expand_job(const TaskGraph& pipeline, const Workload& w, const Platform& platform, const RankMap& map) {
  JobBuilder job(pipeline, w, platform, map);
  return build(job, w);
}

std::optional<std::pair<TaskGraph, Folding>> expand_folded_job(const TaskGraph& pipeline, const Workload& w,
                                                               const Platform& platform, const RankMap& map,
                                                               std::string& why,
                                                               const std::function<void(int)>& before_building) {
  JobBuilder job(pipeline, w, platform, map, 1);
  why = job.fold_refusal();
  if (why.empty()) why = replica_devices_differ(platform, map);
  if (!why.empty()) return std::nullopt;
  TaskGraph graph = build(job, w);
  // The smallest shift that maps the platform onto itself: 1, else a few
  // replicas at a time (two replicas in a box: their ring crosses NVLink and
  // a NIC by turns), simulated together.
  for (int k = 1; k <= kMostFoldedReplicas && k < map.dp; ++k) {
    if (map.dp % k != 0) continue;
    Folding folding = fold_replicas(platform, map, graph, k);
    if (!folding.folded()) {
      if (k == 1) why = folding.what;
      continue;
    }
    if (k > 1) {
      if (before_building) before_building(k);
      JobBuilder replicas(pipeline, w, platform, map, k);
      graph = build(replicas, w);
    }
    return std::make_pair(std::move(graph), std::move(folding));
  }
  return std::nullopt;
}

}  // namespace pipesim
