// The configurations `pipesim plan` weighs (docs/plan.md): every layout of
// the platform's GPUs into TP x PP x DP, micro-batch size and count for the
// global batch, pipeline schedule, recompute and ZeRO stage, each one a set
// of workload overrides on the user's workload, exactly as `pipesim run
// --set` would apply them.
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "workloads/workload_yaml.hpp"

namespace pipesim {

struct PlanCandidate {
  int tp = 1, pp = 1, dp = 1, zero = 0;
  int microbatch_size = 1, microbatches = 1;
  std::string schedule;    // a canonical schedule name
  int virtual_stages = 0;  // interleaved schedules; 0 for the others
  int k = 0;               // kfkb: forwards (and backwards) in a row; 0 for the others
  // ilp: the solver's time limit, as schedule.time_limit reads it ("0": seed
  // 000's heuristic patterns alone, no CBC); "" for the others.
  std::string time_limit;
  std::string recompute;  // none, selective, full
  // placement.partition: even or balanced (the same on one stage, where
  // only even is tried); fit: layer_counts chosen so that every stage fits
  // (studies/plan/plan_partition.hpp); layers: layer_counts as the workload gave them.
  std::string partition = "even";
  // placement.layers: each stage's layer count; empty (a fit candidate not
  // screened yet: its balanced twin's pipeline) for the other partitions.
  std::vector<int> layer_counts;
  // memory_saving, one per pipeline stage (seed 002's programs,
  // docs/memory-saving.md); empty: no stage saves memory.
  std::vector<MemorySaving> saving;
  // > 0: the job runs on the platform's first GPUS compute devices
  // (parallel.gpus; --objective cost); 0: on all of them.
  int gpus = 0;

  int ranks() const { return tp * pp * dp; }  // the GPUs it occupies

  std::vector<WorkloadOverride> overrides() const;
  // "tp 8 pp 4 dp 2, mb 1 x 64, interleaved-1f1b v2 balanced, selective, zero 1"
  std::string label() const;
  std::string schedule_label() const;  // "interleaved-1f1b v2", "kfkb k2", "1f1b"
  // The schedule's label and, on two stages or more, the partition (with
  // its layer counts: "1f1b fit 3/8/8/5").
  std::string stages_label() const;
  std::string saving_label() const;  // "remat on stage 0", "remat on stages 0 1"; "" where nothing is saved
  // The recompute, and what saves memory: "none + remat on stage 0".
  std::string memory_label() const;
  std::string saving_flow() const;   // the memory_saving override: a YAML flow list, "" where nothing is saved
  std::string counts_flow() const;   // the placement.layers override: "[3, 8, 8, 5]"
  std::string counts_label() const;  // "3/8/8/5"; "" without layer counts

  bool operator==(const PlanCandidate& o) const {
    return std::tie(tp, pp, dp, zero, microbatch_size, microbatches, schedule, virtual_stages, k, time_limit, recompute,
                    partition, layer_counts, saving, gpus) ==
           std::tie(o.tp, o.pp, o.dp, o.zero, o.microbatch_size, o.microbatches, o.schedule, o.virtual_stages, o.k,
                    o.time_limit, o.recompute, o.partition, o.layer_counts, o.saving, o.gpus);
  }
};

// The schedules a plan can try on a pipeline of two stages or more (one
// stage runs 1f1b: every flush schedule is the same there), and those it
// tries unless told: all but seed 000's, kfkb, pipedream and ilp, whose
// patterns take ~50 ms to ~1 s a candidate to bound where the others take
// ~1 ms, and pipedream's weight stashing trains asynchronously (--schedules
// adds them).
const std::vector<std::string>& plan_schedule_choices();
std::vector<std::string> default_plan_schedules();

struct PlanSpaceLimits {
  int gpus = 0;          // the platform's compute devices
  int node_gpus = 0;     // GPUs per box (the smallest); TP stays inside one; 0: unknown
  int global_batch = 0;  // samples per iteration, over every replica
  int layers = 0;        // the workload's layer chain: no more pipeline stages than layers
  std::vector<std::string> schedules = default_plan_schedules();  // tried on pipelines of two stages or more
  std::vector<int> zero_stages = {0, 1, 2};                       // tried where dp > 1 (0 alone where dp = 1)
  // Tried where pp > 1 (even alone where pp = 1); fit: no candidate of its
  // own, a twin of each pipeline over memory (screen_plan).
  std::vector<std::string> partitions = {"even", "balanced", "fit"};
  // Also the layouts of the first n GPUs, for every n dividing `gpus`
  // (--objective cost: fewer GPUs may cost less for being slower).
  bool part_platforms = false;
};

// The stages of a pipeline of PP that run seed 002's program POLICY (remat,
// or both: rematerialization and offloading; limit fit: the most each
// in-flight micro-batch may keep beside the waiting ones), the others nothing.
std::vector<MemorySaving> saving_on(const std::vector<int>& stages, int pp, const std::string& policy = "remat");

// Every candidate, in a fixed order (GPUs, layout, micro-batch size,
// schedule, partition, recompute, ZeRO): the whole platform first, then
// (part_platforms) its first n GPUs, n dividing it, largest first; TP a
// power of two up to 8 inside a box, PP dividing the GPUs left, micro-batch sizes 1, 2, 4, 8 that divide the
// global batch per replica, the even and the balanced partition where there
// are two stages or more. Whether the workload's model takes a candidate (heads divisible
// by TP, enough layers for the stages) is for the workload loader and the
// generators to say.
std::vector<PlanCandidate> plan_space(const PlanSpaceLimits& limits);

}  // namespace pipesim
