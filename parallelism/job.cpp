#include "parallelism/job.hpp"

#include "layout/rank_map.hpp"
#include "parallelism/job_graph.hpp"
#include "sim/input_error.hpp"

namespace pipesim {

GeneratedSchedule generate_job(const Workload& w, const Platform& platform, const RunLimits& limits) {
  if (!w.parallel.given) return generate(w, platform, limits);
  if (w.parallel.zero >= 3)
    throw InputError(w.file, "parallel.zero",
                     "ZeRO-3 (weights sharded and gathered before each pass) is not simulated yet: use 0, 1 or 2");
  const RankMap map = make_rank_map(w, platform);
  const Platform view = pipeline_platform(platform, map.pipeline(0, 0));
  GeneratedSchedule pipeline = generate(w, view, limits);
  GeneratedSchedule job(expand_job(pipeline.graph, w, platform, map));
  // The pattern's figures (exact period, analytic memory) describe one
  // pipeline alone, without the collectives: they would not be the run's.
  job.memory_saving = std::move(pipeline.memory_saving);
  job.split = std::move(pipeline.split);
  return job;
}

}  // namespace pipesim
