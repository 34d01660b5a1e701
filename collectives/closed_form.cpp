// Contention-free closed forms of the algorithms (docs/collectives.md): what
// the engine gives when no two steps share a link.
#include <algorithm>

#include "collectives/schedule.hpp"

namespace pipesim {

double collective_closed_form(const CollectiveSpec& spec, const Platform& platform) {
  const CollectiveAlgorithm algorithm = choose_algorithm(spec, platform);
  const int n = static_cast<int>(spec.group.size());
  if (n < 2 || spec.bytes == 0) return 0;
  const double c = spec.chunks, s = spec.bytes;
  // One step of `bytes` from rank a to rank b, alone on its route.
  const auto step = [&](int a, int b, double bytes) {
    collectives::route(spec, platform, a, b);
    return platform.transfer_time(spec.group[a], spec.group[b], bytes);
  };
  // The slowest step of a ring over `ring` moving pieces of `bytes`.
  const auto slowest_ring_step = [&](const std::vector<int>& ring, double bytes) {
    double slowest = 0;
    for (std::size_t i = 0; i < ring.size(); ++i)
      slowest = std::max(slowest, step(ring[i], ring[(i + 1) % ring.size()], bytes));
    return slowest;
  };

  if (algorithm == CollectiveAlgorithm::Tree) {
    // Per tree, chunk k of S/(2c) reaches the root at (H + k) t and the
    // deepest rank at (2H + k) t: (2H + c - 1) t.
    double time = 0;
    for (const auto& parent : collectives::double_binary_tree(n)) {
      double slowest = 0;
      for (int r = 0; r < n; ++r)
        if (parent[r] >= 0)
          slowest = std::max({slowest, step(r, parent[r], s / (2 * c)), step(parent[r], r, s / (2 * c))});
      time = std::max(time, (2 * collectives::tree_height(parent) + c - 1) * slowest);
    }
    return time;
  }
  if (algorithm == CollectiveAlgorithm::Hierarchical) {
    // Reduce-scatter in the nodes, all-reduce of S/m across them, all-gather in the nodes.
    const auto nodes = collectives::ranks_by_node(spec, platform);
    const double m = static_cast<double>(nodes.front().size()), count = static_cast<double>(nodes.size());
    double intra = 0, inter = 0;
    for (const auto& ranks : nodes) intra = std::max(intra, slowest_ring_step(ranks, s / (c * m)));
    for (std::size_t i = 0; i < nodes.front().size(); ++i) {
      std::vector<int> ring;
      for (const auto& ranks : nodes) ring.push_back(ranks[i]);
      inter = std::max(inter, slowest_ring_step(ring, s / (c * m * count)));
    }
    return 2 * c * (m - 1) * intra + 2 * c * (count - 1) * inter;
  }
  std::vector<int> ring(n);
  for (int r = 0; r < n; ++r) ring[r] = r;
  if (spec.op == CollectiveOp::Broadcast) {
    // Chunk k leaves hop h once it crossed hop h - 1 and chunk k - 1 left
    // hop h: the sum of the hops plus c - 1 times the slowest.
    double sum = 0, slowest = 0;
    for (int h = 0; h + 1 < n; ++h) {
      const double t = step((spec.root + h) % n, (spec.root + h + 1) % n, s / c);
      sum += t;
      slowest = std::max(slowest, t);
    }
    return sum + (c - 1) * slowest;
  }
  // Every path through the steps holds one step per round of the ring, and
  // the slowest connection is busy in every round: rounds x slowest step.
  const double rounds = c * (spec.op == CollectiveOp::AllReduce ? 2 * (n - 1) : n - 1);
  return rounds * slowest_ring_step(ring, s / (c * n));
}

}  // namespace pipesim
