// Collective specs: names, checks, and the algorithm `auto` picks.
#include "collectives/collective.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "collectives/schedule.hpp"

namespace pipesim {

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::AllReduce:
      return "all-reduce";
    case CollectiveOp::ReduceScatter:
      return "reduce-scatter";
    case CollectiveOp::AllGather:
      return "all-gather";
    case CollectiveOp::Broadcast:
      return "broadcast";
  }
  return "?";
}

std::string_view to_string(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::Auto:
      return "auto";
    case CollectiveAlgorithm::Ring:
      return "ring";
    case CollectiveAlgorithm::Tree:
      return "tree";
    case CollectiveAlgorithm::Hierarchical:
      return "hierarchical";
  }
  return "?";
}

std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view text) {
  for (const auto a : {CollectiveAlgorithm::Auto, CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree,
                       CollectiveAlgorithm::Hierarchical})
    if (text == to_string(a)) return a;
  return std::nullopt;
}

namespace {

std::string op_name(const CollectiveSpec& spec) { return std::string(to_string(spec.op)); }

void check_spec(const CollectiveSpec& spec, const Platform& platform) {
  const int n = static_cast<int>(spec.group.size());
  if (n == 0) throw std::invalid_argument("the " + op_name(spec) + "'s group is empty: it needs at least one device");
  std::vector<int> seen(spec.group);
  std::sort(seen.begin(), seen.end());
  for (const int d : spec.group)
    if (d < 0 || d >= platform.size())
      throw std::invalid_argument("the " + op_name(spec) + "'s group names device " + std::to_string(d) +
                                  ", and the platform has " + std::to_string(platform.size()));
  if (std::adjacent_find(seen.begin(), seen.end()) != seen.end())
    throw std::invalid_argument("the " + op_name(spec) + "'s group holds device " +
                                platform.devices[*std::adjacent_find(seen.begin(), seen.end())].name + " twice");
  if (!std::isfinite(spec.bytes) || spec.bytes < 0)
    throw std::invalid_argument("the " + op_name(spec) + " moves " + std::to_string(spec.bytes) +
                                " bytes: a size must be finite and not negative");
  if (spec.chunks < 1)
    throw std::invalid_argument("the " + op_name(spec) + " is split into " + std::to_string(spec.chunks) +
                                " chunks: at least 1");
  if (spec.op == CollectiveOp::Broadcast && (spec.root < 0 || spec.root >= n))
    throw std::invalid_argument("the broadcast's root is rank " + std::to_string(spec.root) + ", and its group has " +
                                std::to_string(n) + " ranks");
}

// The group's distinct nodes, or 0 when a device names none.
int node_count(const CollectiveSpec& spec, const Platform& platform) {
  std::vector<std::string> names;
  for (const int d : spec.group) {
    const std::string& node = platform.devices[d].node;
    if (node.empty()) return 0;
    if (std::find(names.begin(), names.end(), node) == names.end()) names.push_back(node);
  }
  return static_cast<int>(names.size());
}

}  // namespace

const Path& collectives::route(const CollectiveSpec& spec, const Platform& platform, int from, int to) {
  const Path& path = platform.path(spec.group[from], spec.group[to]);
  if (!path.exists)
    throw std::invalid_argument("the " + op_name(spec) + " needs a route from " +
                                platform.devices[spec.group[from]].name + " to " +
                                platform.devices[spec.group[to]].name + ", and the platform has none");
  return path;
}

double tree_threshold_bytes(const CollectiveSpec& spec, const Platform& platform) {
  check_spec(spec, platform);
  const int n = static_cast<int>(spec.group.size());
  if (spec.op != CollectiveOp::AllReduce || n < 3) return 0;
  double latency = 0, bandwidth = 0;
  for (int r = 0; r < n; ++r) {
    const Path& p = collectives::route(spec, platform, r, (r + 1) % n);
    latency = std::max(latency, p.latency);
    bandwidth = r == 0 ? p.bandwidth : std::min(bandwidth, p.bandwidth);
  }
  const auto trees = collectives::double_binary_tree(n);
  const int height = std::max(collectives::tree_height(trees[0]), collectives::tree_height(trees[1]));
  return std::max(0.0, n * double(n - 1 - height) * latency * bandwidth);
}

CollectiveAlgorithm choose_algorithm(const CollectiveSpec& spec, const Platform& platform) {
  check_spec(spec, platform);
  switch (spec.algorithm) {
    case CollectiveAlgorithm::Ring:
      return CollectiveAlgorithm::Ring;
    case CollectiveAlgorithm::Tree:
      if (spec.op != CollectiveOp::AllReduce)
        throw std::invalid_argument("the tree algorithm runs only all-reduce (NCCL runs " + op_name(spec) +
                                    " as a ring)");
      return CollectiveAlgorithm::Tree;
    case CollectiveAlgorithm::Hierarchical:
      if (spec.op != CollectiveOp::AllReduce)
        throw std::invalid_argument("the hierarchical algorithm runs only all-reduce, not a " + op_name(spec));
      collectives::ranks_by_node(spec, platform);  // throws its refusals
      return CollectiveAlgorithm::Hierarchical;
    case CollectiveAlgorithm::Auto:
      break;
  }
  // NCCL: only all-reduce has a tree; one node (or nodes unknown) runs rings;
  // across nodes the tree while its latency saves more than its extra bytes cost.
  if (spec.op != CollectiveOp::AllReduce || node_count(spec, platform) < 2) return CollectiveAlgorithm::Ring;
  return spec.bytes < tree_threshold_bytes(spec, platform) ? CollectiveAlgorithm::Tree : CollectiveAlgorithm::Ring;
}

}  // namespace pipesim
