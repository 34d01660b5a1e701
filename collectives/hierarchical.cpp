// Hierarchical all-reduce (Horovod's and NCCL's two-level scheme): reduce-
// scatter inside each node, all-reduce of each shard across nodes among the
// ranks of one local index, all-gather inside each node.
#include "collectives/schedule.hpp"

#include <stdexcept>

namespace pipesim::collectives {

std::vector<std::vector<int>> ranks_by_node(const CollectiveSpec& spec, const Platform& platform) {
  std::vector<std::string> names;
  std::vector<std::vector<int>> nodes;
  for (int r = 0; r < static_cast<int>(spec.group.size()); ++r) {
    const Device& device = platform.devices[spec.group[r]];
    if (device.node.empty())
      throw std::invalid_argument("hierarchical " + std::string(to_string(spec.op)) +
                                  " needs the node of every device "
                                  "of the group (host property node), and " +
                                  device.name + " has none");
    std::size_t i = 0;
    while (i < names.size() && names[i] != device.node) ++i;
    if (i == names.size()) {
      names.push_back(device.node);
      nodes.emplace_back();
    }
    nodes[i].push_back(r);
  }
  for (std::size_t i = 1; i < nodes.size(); ++i)
    if (nodes[i].size() != nodes[0].size())
      throw std::invalid_argument("hierarchical " + std::string(to_string(spec.op)) +
                                  " needs as many ranks in every "
                                  "node, and node " +
                                  names[0] + " holds " + std::to_string(nodes[0].size()) + " of the group while " +
                                  names[i] + " holds " + std::to_string(nodes[i].size()));
  return nodes;
}

void add_hierarchical_all_reduce(StepList& list, const std::vector<std::vector<int>>& nodes, double bytes, int chunks) {
  const int node_count = static_cast<int>(nodes.size());
  const int local = static_cast<int>(nodes.front().size());
  std::vector<std::vector<int>> after(list.ranks);  // per rank, where it stands
  const auto in_node = [&](RingKind kind, int channel) {
    for (const auto& ranks : nodes) {
      std::vector<std::vector<int>> start;
      for (const int r : ranks) start.push_back(after[r]);
      const auto ends = add_ring(list, kind, ranks, bytes, chunks, channel, 0, start);
      for (int i = 0; i < local; ++i) after[ranks[i]] = ends[i];
    }
  };
  in_node(RingKind::ReduceScatter, 0);  // each rank ends with bytes / local, reduced over its node
  for (int i = 0; i < local; ++i) {     // those shards all-reduced across nodes, one ring per local index
    std::vector<int> ring;
    std::vector<std::vector<int>> start;
    for (const auto& ranks : nodes) {
      ring.push_back(ranks[i]);
      start.push_back(after[ranks[i]]);
    }
    const auto ends = add_ring(list, RingKind::AllReduce, ring, bytes / local, chunks, 1, 0, start);
    for (int j = 0; j < node_count; ++j) after[ring[j]] = ends[j];
  }
  in_node(RingKind::AllGather, 2);
  for (int r = 0; r < list.ranks; ++r) list.ends[r] = after[r];
}

}  // namespace pipesim::collectives
