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
                                                               const std::function<void(int, int)>& before_building) {
  const JobBuilder probe(pipeline, w, platform, map, 1, true);  // its refusals only, built smallest
  std::string dp_why = probe.fold_refusal(), tp_why = probe.tp_fold_refusal();
  if (dp_why.empty()) dp_why = replica_devices_differ(platform, map);
  if (tp_why.empty()) tp_why = tp_devices_differ(platform, map);
  why = map.dp > 1 ? dp_why : tp_why;
  // TP ranks folded with the replicas first, then the replicas alone. For
  // each, the smallest shift of replicas that maps the platform onto itself:
  // 1, else a few replicas at a time (two replicas in a box: their ring
  // crosses NVLink and a NIC by turns), simulated together, else (TP ranks
  // folded) every replica.
  for (const bool fold_tp : {true, false}) {
    if (!(fold_tp ? tp_why : dp_why).empty()) continue;
    std::vector<int> shifts;
    if (dp_why.empty())
      for (int k = 1; k <= kMostFoldedReplicas && k < map.dp; ++k)
        if (map.dp % k == 0) shifts.push_back(k);
    if (fold_tp) shifts.push_back(map.dp);
    std::optional<TaskGraph> one;  // built with the replicas folded by 1, to find the pairs
    for (const int k : shifts) {
      const int built = k == map.dp ? 0 : 1;  // k = dp: every replica built, pairs as they are
      if (built == 1 && !one) {
        JobBuilder job(pipeline, w, platform, map, 1, fold_tp);
        one = build(job, w);
      }
      std::optional<TaskGraph> all;
      if (built == 0) {
        if (before_building) before_building(map.dp, 1);
        JobBuilder job(pipeline, w, platform, map, 0, true);
        all = build(job, w);
      }
      Folding folding = fold_replicas(platform, map, all ? *all : *one, k, fold_tp);
      if (!folding.folded()) {
        if (why.empty() || (k == 1 && why == dp_why)) why = folding.what;  // the first shift refused says why
        continue;
      }
      if (all) return std::make_pair(std::move(*all), std::move(folding));
      if (k == 1) return std::make_pair(std::move(*one), std::move(folding));
      if (before_building) before_building(k, fold_tp ? 1 : map.tp);
      JobBuilder replicas(pipeline, w, platform, map, k, fold_tp);
      return std::make_pair(build(replicas, w), std::move(folding));
    }
  }
  return std::nullopt;
}

}  // namespace pipesim
