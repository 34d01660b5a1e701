// One pipeline's task graph made into the whole TP x PP x DP job: the
// pipeline copied onto every (tp rank, dp replica) of the rank map, each
// compute pass followed by its tensor-parallel collectives, and the
// gradients reduced over each data-parallel group before the optimizer
// step (docs/parallelism.md). Knows nothing of SimGrid or of schedules.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "sim/folding.hpp"

#include "layout/rank_map.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// `pipeline` runs on devices 0..pp-1 (the pipeline platform of rank map
// replica 0); the result on `platform`'s devices. Throws InputError on a
// collective algorithm impossible for its group.
TaskGraph expand_job(const TaskGraph& pipeline, const Workload& w, const Platform& platform, const RankMap& map);

// The most replicas a folded job simulates together.
inline constexpr int kMostFoldedReplicas = 8;

// The job of replica 0 alone, or of the first k replicas where the shift of
// one does not map the platform onto itself but that of k (at most
// kMostFoldedReplicas) does, and of TP rank 0 alone where the TP ranks are
// alike too (or alone alike), folded (folding/, docs/folding.md), with the
// Folding that lets analysis give every replica and rank its figures;
// nullopt, and `why` filled (the reason replica 0 alone does not fold, or
// with one replica TP rank 0), when nothing is provably alike.
// `before_building(replicas, tp ranks)` is called before more than one
// replica is built (to refuse a graph too large to simulate).
std::optional<std::pair<TaskGraph, Folding>> expand_folded_job(
    const TaskGraph& pipeline, const Workload& w, const Platform& platform, const RankMap& map, std::string& why,
    const std::function<void(int, int)>& before_building = {});

}  // namespace pipesim
