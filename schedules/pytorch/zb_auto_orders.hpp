// The zero-bubble paper's automatic schedule (Qi et al. 2024, §3.1, the
// heuristic that its ZB-1p and ZB-2p run): per-rank orders of F, I and W
// for one stage per rank, built from each stage's pass times and memory
// under a memory limit (the paper's runtime measures them; pipesim's
// generator models them). A pure function of those figures; the
// generator (pytorch_schedules.cpp, `zb-auto`) takes them from the workload.
#pragma once

#include <vector>

#include "schedules/pytorch/explicit_orders.hpp"

namespace pipesim {

// Per stage s (one per rank): seconds of its forward F, input gradient I
// (B in the paper) and weight gradient W; the bytes each adds to what the
// stage holds (F: its stash, > 0; I: minus what W does not read, <= 0; W:
// minus the rest, <= 0); the stage's limit on what it holds. comm: seconds
// of one transfer between neighbouring stages.
struct ZbStageFigures {
  std::vector<double> forward, input_grad, weight_grad;
  std::vector<double> forward_bytes, input_grad_bytes, weight_grad_bytes;
  std::vector<double> limit;
  double comm = 0;
};

// The orders of the best of the heuristic's eight variants (its three
// switches: a bubble allowed before the first I, I preferred, Ws filling
// bubbles greedily), best = the least span of the slowest stage; the first
// found among equals. The reference: sail-sg/zero-bubble-pipeline-parallelism,
// megatron/core/pipeline_parallel/zerobubble/scheduler/zb.py (manual_order,
// initial_solution). Throws std::invalid_argument when no variant gives an
// order (a limit that cannot hold one stash).
ExplicitOrders zb_auto_orders(const ZbStageFigures& figures, int microbatches);

}  // namespace pipesim
