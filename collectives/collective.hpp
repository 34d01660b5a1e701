// Collective operations (all-reduce, reduce-scatter, all-gather, broadcast)
// turned into point-to-point Transfer tasks of a TaskGraph, step by step as
// NCCL runs them, so that the engine shows contention, oversubscription and
// topology. Algorithms, closed forms and sources: docs/collectives.md.
// Knows only the contracts of sim/ (TaskGraph, Platform).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"

namespace pipesim {

enum class CollectiveOp { AllReduce, ReduceScatter, AllGather, Broadcast };
enum class CollectiveAlgorithm { Auto, Ring, Tree, Hierarchical };

// "all-reduce", "reduce-scatter", "all-gather", "broadcast" (CollectiveRecord::operation).
std::string_view to_string(CollectiveOp op);
// "auto", "ring", "tree", "hierarchical" (CollectiveRecord::algorithm).
std::string_view to_string(CollectiveAlgorithm algorithm);
// The inverse of to_string(CollectiveAlgorithm); nullopt for anything else.
std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view text);

// The purpose of the tied embeddings' gradient sum between the first and
// the last pipeline stage (schedules/training_state.cpp, parallelism/).
inline constexpr const char* kTiedEmbeddingPurpose = "tied embedding";
// The purpose of the gradient norm's all-reduce before a clipped optimizer step.
inline constexpr const char* kGradientNormPurpose = "gradient norm";
// Its sum inside each pipeline stage's tensor-parallel group, before the one across stages (parallelism/).
inline constexpr const char* kTpGradientNormPurpose = "tp gradient norm";
// Its sum across the data-parallel replicas, with the distributed optimizer (parallelism/).
inline constexpr const char* kGradientNormAcrossReplicasPurpose = "dp gradient norm";

struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto;
  std::vector<int> group;  // platform device indices, in rank order (size n >= 1, distinct)
  // S: all-reduce/broadcast: the buffer each rank holds; all-gather: the
  // gathered result; reduce-scatter: each rank's full input.
  double bytes = 0;
  int root = 0;         // broadcast: rank index in group
  int chunks = 1;       // pipelining: the buffer split into this many chunks that flow one behind the other; 1 = none
  std::string purpose;  // for the record ("tp forward", "dp gradients")
};

// The algorithm `auto` picks (by operation, size, group shape and nodes:
// docs/collectives.md, "What auto picks"), or the one asked for once checked.
// Throws std::invalid_argument with a one-sentence reason for a spec that is
// malformed (empty group, device out of range or repeated, chunks < 1, root
// out of range, negative or non-finite bytes) or an algorithm impossible for
// it: tree or hierarchical for anything but all-reduce, hierarchical when a
// device of the group carries no node or the nodes hold unequal ranks.
CollectiveAlgorithm choose_algorithm(const CollectiveSpec& spec, const Platform& platform);

// Below this size `auto` runs an all-reduce across nodes as a tree, from this
// size on as a ring: n (n - 1 - H) alpha B, with alpha the largest latency
// and B the smallest bandwidth on the ring's paths and H the height of the
// double binary tree (docs/collectives.md, "What auto picks"). 0 for other
// operations and for fewer than 3 ranks.
double tree_threshold_bytes(const CollectiveSpec& spec, const Platform& platform);

struct CollectiveTasks {
  int record = -1;           // index into TaskGraph::collectives()
  std::vector<TaskId> done;  // per rank: finishes when the collective is done on that rank
};

// Adds the collective's transfers to the graph. `ready[i]`: tasks after which
// rank i's input is ready (`ready` may be empty: no dependency; else one list
// per rank, each possibly empty). `tag`: stage, layer range, micro-batch,
// iteration and priority copied onto each transfer (kind Transfer, collective
// = the record's id). Registers one CollectiveRecord, or reuses `record` if
// >= 0 (the same collective for another micro-batch). Returns, per rank, a
// zero-byte Transfer from the rank to itself that depends on the rank's
// ready tasks and (transitively) on every step the rank sends or receives.
// With one rank, or zero bytes, every step is instant. Throws
// std::invalid_argument as choose_algorithm does, and for a route missing
// between two ranks that must talk or a `record` out of range.
CollectiveTasks add_collective(TaskGraph& graph, const CollectiveSpec& spec, const Platform& platform,
                               const std::vector<std::vector<TaskId>>& ready, const Task& tag, int record = -1);

// The collective as the simulated replicas of a folded job run it
// (sim/folding.hpp): `spec.group` holds one rank per replica, in replica
// order, and ranks 0..k-1 are simulated (k = ready.size(), dividing the
// group's size): the relabelling replica d -> d + k maps the ring onto
// itself and every other rank's steps are images of theirs. Only their
// steps are added (rank i to rank i + 1, the ring's chunks and steps in
// order: what rank i receives at a step is what rank i - 1 sent at the step
// before, rank -1 being the image of rank k - 1). `ready`: one list per
// simulated rank. Returns their done markers. Throws std::invalid_argument
// as add_collective does, and when the algorithm chosen is not a ring, the
// operation is a broadcast or k does not divide the group.
CollectiveTasks add_folded_collective(TaskGraph& graph, const CollectiveSpec& spec, const Platform& platform,
                                      const std::vector<std::vector<TaskId>>& ready, const Task& tag, int record = -1);

// The contention-free closed form of the chosen algorithm (seconds), from the
// group's paths (latency + bytes / bandwidth per step): what the engine gives
// when no two steps share a link, exactly for the ring and broadcast, and
// for tree and hierarchical when the links of each tree or phase are alike
// (otherwise an upper bound). docs/collectives.md gives each formula.
double collective_closed_form(const CollectiveSpec& spec, const Platform& platform);

}  // namespace pipesim
