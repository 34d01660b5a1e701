// Where each rank of a TP x PP x DP job runs: the workload's `parallel:`
// section laid onto the platform's devices (docs/parallelism.md).
#pragma once

#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

struct RankMap {
  int tp = 1, pp = 1, dp = 1;
  // devices[(d * tp + t) * pp + p]: the platform device of TP rank t, DP
  // replica d, pipeline rank p (whatever the rank order).
  std::vector<int> devices;
  // Host memory in a pipeline view (pipeline_platform with hosts): view
  // device pp + j of replica r = d.tp + t is hosts[r * host_count + j].
  int host_count = 0;
  std::vector<int> hosts;
  int device(int t, int d, int p) const {
    const std::size_t r = static_cast<std::size_t>(d) * tp + t;
    return p < pp ? devices[r * pp + p] : hosts[r * host_count + (p - pp)];
  }
  // The pipeline of TP rank t in replica d, pipeline rank order.
  std::vector<int> pipeline(int t, int d) const;
  // A TP group (t = 0..tp-1) and a DP group (d = 0..dp-1), in rank order.
  std::vector<int> tp_group(int d, int p) const;
  std::vector<int> dp_group(int t, int p) const;
  bool trivial() const { return tp == 1 && dp == 1; }
};

// The workload's layout on the platform. Without a parallel section: one
// pipeline on the compute devices (pp = their count, tp = dp = 1); with
// `gpus`, on the first GPUS of them. Throws InputError (parallel.*) when
// tp x pp x dp is not the device count, a device is unknown, host memory or
// given twice, or GPUS exceeds the compute devices.
RankMap make_rank_map(const Workload& w, const Platform& platform);

// The platform as one pipeline sees it: `devices` renumbered 0..n-1, then
// the platform's host memory when asked (n..), paths answered by the whole
// platform. Generators build one replica on it.
Platform pipeline_platform(const Platform& platform, const std::vector<int>& devices, bool with_hosts = false);

// Fills MAP's hosts for a view with hosts: each replica's pipeline rank p
// offloads to the host its own GPU offloads to, where replica 0's rank p
// offloads to the view's. Throws InputError (memory_saving) where two of a
// replica's ranks that share a host in replica 0 offload to different ones.
void map_pipeline_hosts(RankMap& map, const Platform& platform, const std::string& file);

}  // namespace pipesim
