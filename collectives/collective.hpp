// TEMPORARY interface copy (the collectives branch brings the real one).
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
std::string_view to_string(CollectiveOp op);
std::string_view to_string(CollectiveAlgorithm algorithm);
std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view name);

struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto;
  std::vector<int> group;
  double bytes = 0;
  int root = 0;
  int chunks = 1;
  std::string purpose;
};

CollectiveAlgorithm choose_algorithm(const CollectiveSpec& spec, const Platform& platform);

struct CollectiveTasks {
  int record = -1;
  std::vector<TaskId> done;
};
CollectiveTasks add_collective(TaskGraph& graph, const CollectiveSpec& spec, const Platform& platform,
                               const std::vector<std::vector<TaskId>>& ready, const Task& tag, int record = -1);
double collective_closed_form(const CollectiveSpec& spec, const Platform& platform);

}  // namespace pipesim
