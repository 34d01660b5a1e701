// Internal to collectives/: a collective as a list of point-to-point steps
// between ranks (indices into the group), before it becomes tasks.
#pragma once

#include <vector>

#include "collectives/collective.hpp"

namespace pipesim::collectives {

struct Step {
  int from = 0, to = 0;  // ranks
  double bytes = 0;
  int channel = 0;         // steps of one channel between one ordered pair run one after the other
  std::vector<int> after;  // earlier steps whose data this one forwards or reduces
};

// Steps in an order where every step comes after the steps it needs. Besides
// `after`, add_collective makes each step wait for the previous step of its
// channel between the same pair (a connection sends one chunk at a time) and
// the first step of each connection for its sender's ready tasks.
struct StepList {
  int ranks = 0;
  std::vector<Step> steps;
  // Per rank, steps that (with what precedes them) cover everything the rank
  // sends or receives: its done marker waits for them.
  std::vector<std::vector<int>> ends;
  int add(Step step) {
    steps.push_back(std::move(step));
    return static_cast<int>(steps.size()) - 1;
  }
};

enum class RingKind { AllReduce, ReduceScatter, AllGather, Broadcast };

// A ring (or, for broadcast, the chain from `root` along it) over `ring`
// (ranks in ring order), moving S = `bytes` with the meaning of
// CollectiveSpec::bytes, in `chunks` chunks, on `channel`. The first step
// each ring member sends waits for start[k] (k = position in `ring`; empty:
// nothing). Returns, per position, the steps the member ends with.
std::vector<std::vector<int>> add_ring(StepList& list, RingKind kind, const std::vector<int>& ring, double bytes,
                                       int chunks, int channel, int root, const std::vector<std::vector<int>>& start);

// The double binary tree over n ranks (Sanders, Speck, Traeff 2009): tree 0
// is the in-order binary tree over ranks 1..n-1 (a rank's parent found from
// its lowest set bit) hung under rank 0; tree 1 is its mirror (rank r ->
// n-1-r) for even n and its shift (r -> r+1 mod n) for odd n, so a rank
// inner in one tree is a leaf of the other. parent[t][r], -1 for the root.
std::vector<std::vector<int>> double_binary_tree(int n);
// Edges from the root to the deepest rank of a tree given by its parents.
int tree_height(const std::vector<int>& parent);

void add_tree_all_reduce(StepList& list, double bytes, int chunks);

// The path between two ranks; throws std::invalid_argument when there is none.
const Path& route(const CollectiveSpec& spec, const Platform& platform, int from, int to);

// Ranks grouped by Device::node, nodes in order of first appearance, ranks
// in rank order. Throws std::invalid_argument (hierarchical's refusals).
std::vector<std::vector<int>> ranks_by_node(const CollectiveSpec& spec, const Platform& platform);
void add_hierarchical_all_reduce(StepList& list, const std::vector<std::vector<int>>& nodes, double bytes, int chunks);

}  // namespace pipesim::collectives
