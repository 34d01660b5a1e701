// What a candidate of `pipesim plan` can be told without simulating it: two
// bounds, both from one pipeline's task graph, never from an engine.
// - memory: each device's static memory plus what its own passes hold
//   (stashes, workspaces), replayed in the device's order. Communication
//   buffers, which depend on when transfers run, are left out, so the bound
//   never exceeds the simulated peak: a candidate over capacity by it cannot
//   fit, and is pruned without a run.
// - time: the pipeline alone, each transfer unshared (the analytic engine's
//   contention_free_timeline), or the busiest device's compute where that
//   pass does not apply. The job copies the pipeline onto every TP rank and
//   replica and only adds collectives, waits and sharing to it, so no
//   simulation of the candidate can be faster.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

struct PlanBounds {
  double memory = 0;    // bytes, on the device below
  int memory_rank = 0;  // the pipeline rank whose bound is largest
  double capacity = 0;  // bytes, that device's memory
  double time = 0;      // seconds
  std::string stages;   // each pipeline stage's layers, "0-2 3-4 5-7" (a partition's fingerprint)
  // The stages placement.partition: balanced would give this pipeline (its
  // stages on the same devices): computed for an even candidate, whose
  // balanced twin is the same pipeline where the two are equal; else stages.
  std::string balanced_stages;
  // The pipeline ranks whose bound exceeds their device's memory, "0 2":
  // where seed 002's programs would have to save memory; empty where a
  // rank's static memory alone exceeds it (no program can save that).
  std::string over_capacity;
  // Each pipeline rank's (one per GPU of a replica, in rank order) static
  // memory, memory bound, capacity and speed: what the fit partition
  // (studies/plan/plan_partition.hpp) calibrates on.
  struct Rank {
    double static_bytes = 0, memory = 0, capacity = 0, speed = 0;
  };
  std::vector<Rank> ranks;
  std::vector<int> stage_rank;  // the pipeline rank of each stage of `stages`
};

// The rank maps and pipeline views of the layouts bounded so far, by
// layout: a plan's candidates share a few hundred layouts, and a view of a
// 1,024-GPU platform takes as long to build as a small pipeline.
struct PlanLayouts {
  struct Layout;
  std::map<std::string, std::shared_ptr<const Layout>> known;
};

// WORKLOAD is timed (workloads/model_costs) and has its `parallel:` section;
// throws InputError as `pipesim run` would for a layout or schedule that
// cannot be built. LAYOUTS, where given, keeps the layouts for the next call
// (the same platform's). Given a ZeRO 1 workload, its pipeline also bounds:
// - SHARDED_GRADIENTS: the same job with ZeRO 2, which differs only in the
//   gradients' static memory: the memory replayed again, the time the same;
// - WHOLE_OPTIMIZER (dp a power of two): the same job with ZeRO 0, which
//   differs in the optimizer's state and its step and norm passes, each dp
//   times larger: scaling by a power of two is exact in binary floating
//   point, so the bounds are those of the ZeRO 0 workload, bit for bit.
PlanBounds plan_bounds(const Workload& workload, const Platform& platform, PlanLayouts* layouts = nullptr,
                       PlanBounds* sharded_gradients = nullptr, PlanBounds* whole_optimizer = nullptr);

// Whether a ZeRO 1 job's pipeline bounds its ZeRO 0 twin exactly (above).
bool bounds_whole_optimizer(int dp);

}  // namespace pipesim
