// Per-rank orders of the schedules PyTorch pipelining users run (and the
// zero-bubble paper's ZB-H2), as ExplicitOrders: rank r = device r, idle
// steps left out. Pure functions of (ranks, stages per rank, micro-batches);
// docs/pytorch.md says which PyTorch class each one follows.
#pragma once

#include <stdexcept>
#include <string>

#include "schedules/pytorch/explicit_orders.hpp"

namespace pipesim {

// Stage s on rank s % ranks ("loop" placement, PyTorch's default).
// Interleaved 1F1B (Megatron-LM; ScheduleInterleaved1F1B): per round of
// microbatches_per_round micro-batches, depth first over the local stages;
// warm-up (v-1)·rounds + 2(p-1-r) forwards, then one F and one B, then the
// remaining Bs. Throws std::invalid_argument when PyTorch would refuse the
// micro-batch count (not a multiple of max(1, M / p)).
ExplicitOrders interleaved_1f1b_orders(int ranks, int stages_per_rank, int microbatches);
// The zero-bubble variant (ScheduleInterleavedZeroBubble, the paper's ZB1P;
// ZB-H1 with one stage per rank): warm-up (v-1)·rounds + (p-1-r) forwards,
// B split into I and W, rank r's Ws trailing its Is by r.
ExplicitOrders interleaved_zero_bubble_orders(int ranks, int stages_per_rank, int microbatches);
// Looped BFS (ScheduleLoopedBFS): each local stage runs all its forwards in
// turn, then the local stages in reverse run their backwards, micro-batches
// in reverse.
ExplicitOrders looped_bfs_orders(int ranks, int stages_per_rank, int microbatches);
// ZB-V (ScheduleZBVZeroBubble): two stages per rank in a V, rank r holds
// stages r and 2p-1-r.
ExplicitOrders zbv_orders(int ranks, int microbatches);
// ZB-H2 (Qi et al. 2024, §3): one stage per rank; the order of the
// unit-time list schedule (T_F = T_I = T_W) that prefers I, then F while
// fewer than 2p-1 micro-batches are between F and W on the rank, then W.
ExplicitOrders zb_h2_orders(int ranks, int microbatches);

// DualPipeV (ScheduleDualPipeV; DeepSeek-V3's DualPipe folded into a V):
// two stages per rank in a V, forward and backward of two micro-batches
// paired in OVERLAP_F_B cells (OrderedOp::overlaps_next), the other
// backwards whole or split; build_orders_graph runs each pair's two ops side
// by side on two lanes of the device.
// Throws std::invalid_argument when microbatches < 2·ranks (PyTorch's rule).
ExplicitOrders dualpipev_orders(int ranks, int microbatches);

}  // namespace pipesim
