// NCCL's double binary tree all-reduce (Sanders, Speck & Traeff 2009; NCCL
// 2.4): two complementary binary trees each reduce half the buffer up to
// their root and broadcast it back down, pipelined in chunks.
#include "collectives/schedule.hpp"

#include <algorithm>

namespace pipesim::collectives {

namespace {

// In the infinite in-order binary tree over the positive integers, the node
// whose lowest set bit is b sits b/2 above its children r +- b/2.
long up(long r) {
  const long b = r & -r;
  return (r & (2 * b)) ? r - b : r + b;
}

std::vector<int> in_order_tree(int n) {
  std::vector<int> parent(n, -1);
  if (n < 2) return parent;
  int top = 1;
  while (2 * top <= n - 1) top *= 2;
  for (int r = 1; r < n; ++r) {
    if (r == top) {
      parent[r] = 0;
      continue;
    }
    long p = up(r);
    while (p >= n) p = up(p);  // skip the ranks past n-1: the nearest real ancestor
    parent[r] = static_cast<int>(p);
  }
  return parent;
}

std::vector<std::vector<int>> children_of(const std::vector<int>& parent) {
  std::vector<std::vector<int>> children(parent.size());
  for (std::size_t r = 0; r < parent.size(); ++r)
    if (parent[r] >= 0) children[parent[r]].push_back(static_cast<int>(r));
  return children;
}

int depth(const std::vector<int>& parent, int r) {
  int d = 0;
  for (; parent[r] >= 0; r = parent[r]) ++d;
  return d;
}

}  // namespace

std::vector<std::vector<int>> double_binary_tree(int n) {
  const std::vector<int> first = in_order_tree(n);
  std::vector<int> second(n, -1);
  const auto image = [n](int r) { return n % 2 == 0 ? n - 1 - r : (r + 1) % n; };
  for (int r = 0; r < n; ++r)
    if (first[r] >= 0) second[image(r)] = image(first[r]);
  return {first, second};
}

int tree_height(const std::vector<int>& parent) {
  int height = 0;
  for (int r = 0; r < static_cast<int>(parent.size()); ++r) height = std::max(height, depth(parent, r));
  return height;
}

void add_tree_all_reduce(StepList& list, double bytes, int chunks) {
  const int n = list.ranks;
  if (n < 2) return;
  const double piece = bytes / 2 / chunks;  // each tree carries half the buffer
  const auto trees = double_binary_tree(n);
  for (int t = 0; t < 2; ++t) {
    const std::vector<int>& parent = trees[t];
    const auto children = children_of(parent);
    // Ranks by depth: reduce deepest first, broadcast shallowest first.
    std::vector<int> by_depth(n);
    for (int r = 0; r < n; ++r) by_depth[r] = r;
    std::vector<int> d(n);
    for (int r = 0; r < n; ++r) d[r] = depth(parent, r);
    std::stable_sort(by_depth.begin(), by_depth.end(), [&](int a, int b) { return d[a] < d[b]; });
    std::vector<int> up_step(n, -1), down_step(n, -1);  // per rank, its link to its parent, last chunk
    for (int k = 0; k < chunks; ++k) {
      for (auto it = by_depth.rbegin(); it != by_depth.rend(); ++it) {
        const int r = *it;
        if (parent[r] < 0) continue;
        Step step{r, parent[r], piece, t, {}};
        for (const int c : children[r]) step.after.push_back(up_step[c]);
        up_step[r] = list.add(std::move(step));
      }
      for (const int r : by_depth) {
        if (parent[r] < 0) continue;
        Step step{parent[r], r, piece, t, {}};
        if (parent[parent[r]] >= 0) {
          step.after.push_back(down_step[parent[r]]);
        } else {  // the root has the sum of this chunk once its children's halves arrived
          for (const int c : children[parent[r]]) step.after.push_back(up_step[c]);
        }
        down_step[r] = list.add(std::move(step));
      }
    }
    for (int r = 0; r < n; ++r) {
      if (parent[r] >= 0) {
        list.ends[r].push_back(up_step[r]);
        list.ends[r].push_back(down_step[r]);
      }
      for (const int c : children[r]) {
        list.ends[r].push_back(up_step[c]);
        list.ends[r].push_back(down_step[c]);
      }
    }
  }
}

}  // namespace pipesim::collectives
