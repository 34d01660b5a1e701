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
  int device(int t, int d, int p) const { return devices[(static_cast<std::size_t>(d) * tp + t) * pp + p]; }
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

// The platform as one pipeline sees it: `devices` renumbered 0..n-1, paths
// answered by the whole platform. Generators build one replica on it.
Platform pipeline_platform(const Platform& platform, const std::vector<int>& devices);

}  // namespace pipesim
