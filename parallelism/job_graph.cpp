#include "parallelism/job_graph.hpp"

#include <stdexcept>

#include "parallelism/job_builder.hpp"
#include "sim/input_error.hpp"

namespace pipesim {

TaskGraph expand_job(const TaskGraph& pipeline, const Workload& w, const Platform& platform, const RankMap& map) {
  JobBuilder job(pipeline, w, platform, map);
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

}  // namespace pipesim
