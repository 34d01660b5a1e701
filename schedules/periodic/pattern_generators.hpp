// Periodic patterns (seed 000 Definition 1, k copies) built by heuristics on
// a given allocation: 1F1B and kFkB (seed 000 §4.2, §4.3).
#pragma once

#include <vector>

#include "patterns/allocation.hpp"
#include "patterns/pattern.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// The smallest period any pattern with `copies` copies can have on this
// allocation: the largest total duration of one device's ops, or of one
// link resource's transfers (`links`: see LinkResources; under Pair both
// directions of a device pair are one, as in seed 000), over `copies`
// micro-batches. Throws std::invalid_argument like pattern_timing (unknown
// device, no route, ...).
double pattern_period_bound(const Allocation& allocation, const Workload& workload, const Platform& platform,
                            int copies = 1, LinkModel links = LinkModel::Platform);

// kFkB pattern (k copies of every task per period; k = 2 is seed 000 §4.3's
// 2F2B) with period T = pattern_period_bound(allocation, ..., k), the optimum
// with unlimited memory, always reached; then assign_minimal_shifts.
// Heuristic, modulo scheduling along the chain: copy 0's tasks are placed in
// chain order F_1 .. F_L, B_L .. B_1, each at the earliest offset at or after
// its input arrives (F_1: offset 0) where its device is free; a transfer
// likewise on its link resources (pattern.links) right after its producer.
// Following one micro-batch as early as possible keeps F_l .. B_l short,
// hence the stashed activations. Copy c >= 1 follows the same way from a
// release time chosen among those that let one of its tasks start, without
// waiting, where something already placed on its device ends (at most 64
// tried), keeping the one that stashes least (bytes stashed, sum over layers
// of stash count x a_{l-1}; then copies); on seed 000 §4.3's examples this
// gives the stash counts the paper reports for its 2F2B
// (tests/patterns/test_pattern_paper.cpp). Two more candidates, kept if they stash
// less: all copies placed task by task (copies of a task back to back), and k
// periods of the 1F1B pattern (so kFkB never stashes more than 1F1B). When a
// device's (or link's) free time is too fragmented for an op, the ops after
// it on that resource are pushed later (back to back if need be). A transfer
// whose route holds several link resources (multi-hop) takes the earliest
// offset where all are free and is never pushed; if none is, the whole
// placement is retried at a period longer by 1/64 of T (at most 64 times).
// The result passes find_overlap, and its exact period is T (or that longer
// period): every device and link fits in T, the busiest one is full.
Pattern kfkb_pattern(int k, const Allocation& allocation, const Workload& workload, const Platform& platform,
                     WeightPolicy weights = WeightPolicy::TwoBW, LinkModel links = LinkModel::Platform);
// k = 1: seed 000's 1F1B pattern.
Pattern one_f_one_b_pattern(const Allocation& allocation, const Workload& workload, const Platform& platform,
                            WeightPolicy weights = WeightPolicy::TwoBW, LinkModel links = LinkModel::Platform);

}  // namespace pipesim
