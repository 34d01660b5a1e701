// The schedule of a whole job: without a `parallel:` section, the named
// schedule on the platform (schedules/registry.hpp); with one, that
// schedule built for one pipeline on the layout's pipeline devices, then
// copied onto every TP rank and DP replica with its collectives
// (parallelism/job_graph.hpp). docs/parallelism.md.
#pragma once

#include "layout/rank_map.hpp"
#include "schedules/registry.hpp"

namespace pipesim {

// The platform one pipeline of the job is generated on: MAP's first
// replica's devices, and the platform's host memory where a stage offloads
// (MAP then learns each replica's hosts: map_pipeline_hosts).
Platform job_pipeline_view(const Workload& workload, const Platform& platform, RankMap& map);

// Throws InputError unless PIPELINE (generated on the job's pipeline view)
// runs on each of the PP pipeline ranks: placement.stages or placement.layers
// giving fewer stages than the layout's ranks take would leave GPUs idle.
void check_pipeline_ranks(const TaskGraph& pipeline, const Workload& workload, int pp);
// The same where the pipeline's stages run on USED ranks (known before building it).
void check_pipeline_ranks(int used, const Workload& workload, int pp);

// fold: when the DP replicas are provably alike, replica 0 alone with
// GeneratedSchedule::folding set (docs/folding.md); otherwise the whole job,
// with folding.what saying why it was not folded.
GeneratedSchedule generate_job(const Workload& workload, const Platform& platform, const RunLimits& limits = {},
                               bool fold = false);

// What one of the job's devices holds of its pipeline device's static memory
// M: the gradients divided by dp under ZeRO 2, the weights under ZeRO 3 (the
// optimizer's state is already divided by training_state).
double job_static_bytes(const StaticMemory& m, const Parallel& parallel);

}  // namespace pipesim
