// A collective's steps (ring.cpp, tree.cpp, hierarchical.cpp) turned into
// transfer tasks: one connection sends one chunk at a time, the first step
// of each waits for its sender's input, a done marker per rank.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "collectives/schedule.hpp"

namespace pipesim {

namespace {

collectives::StepList build_steps(const CollectiveSpec& spec, CollectiveAlgorithm algorithm, const Platform& platform) {
  using collectives::RingKind;
  collectives::StepList list;
  list.ranks = static_cast<int>(spec.group.size());
  list.ends.resize(list.ranks);
  if (list.ranks < 2) return list;
  switch (algorithm) {
    case CollectiveAlgorithm::Tree:
      collectives::add_tree_all_reduce(list, spec.bytes, spec.chunks);
      break;
    case CollectiveAlgorithm::Hierarchical:
      collectives::add_hierarchical_all_reduce(list, collectives::ranks_by_node(spec, platform), spec.bytes,
                                               spec.chunks);
      break;
    default: {
      const RingKind kind = spec.op == CollectiveOp::AllReduce       ? RingKind::AllReduce
                            : spec.op == CollectiveOp::ReduceScatter ? RingKind::ReduceScatter
                            : spec.op == CollectiveOp::AllGather     ? RingKind::AllGather
                                                                     : RingKind::Broadcast;
      std::vector<int> ring(list.ranks);
      for (int r = 0; r < list.ranks; ++r) ring[r] = r;
      list.ends = collectives::add_ring(list, kind, ring, spec.bytes, spec.chunks, 0, spec.root, {});
    }
  }
  return list;
}

int record_of(TaskGraph& graph, const CollectiveSpec& spec, CollectiveAlgorithm algorithm, int record) {
  if (record >= static_cast<int>(graph.collectives().size()))
    throw std::invalid_argument("collective record " + std::to_string(record) + " does not exist");
  return record >= 0 ? record
                     : graph.add_collective({std::string(to_string(spec.op)), std::string(to_string(algorithm)),
                                             spec.purpose, spec.group, spec.bytes});
}

// What every step of a collective copies from its tag.
Task step_template(const Task& tag, int record) {
  Task task;
  task.kind = TaskKind::Transfer;
  task.stage = tag.stage;
  task.layer_first = tag.layer_first;
  task.layer_last = tag.layer_last;
  task.microbatch = tag.microbatch;
  task.iteration = tag.iteration;
  task.priority = tag.priority;
  task.collective = record;
  return task;
}

}  // namespace

CollectiveTasks add_collective(TaskGraph& graph, const CollectiveSpec& spec, const Platform& platform,
                               const std::vector<std::vector<TaskId>>& ready, const Task& tag, int record) {
  const CollectiveAlgorithm algorithm = choose_algorithm(spec, platform);
  const int n = static_cast<int>(spec.group.size());
  if (!ready.empty() && static_cast<int>(ready.size()) != n)
    throw std::invalid_argument("the " + std::string(to_string(spec.op)) + " has " + std::to_string(n) + " ranks and " +
                                std::to_string(ready.size()) + " lists of ready tasks");
  const collectives::StepList list = build_steps(spec, algorithm, platform);

  CollectiveTasks result;
  result.record = record_of(graph, spec, algorithm, record);
  Task task = step_template(tag, result.record);

  const auto ready_of = [&](int rank) -> const std::vector<TaskId>& {
    static const std::vector<TaskId> kNone;
    return ready.empty() ? kNone : ready[rank];
  };
  std::vector<TaskId> ids(list.steps.size());
  std::unordered_map<std::uint64_t, TaskId> last_on;  // (channel, from, to) -> its last step so far
  std::vector<TaskId> deps;
  for (std::size_t i = 0; i < list.steps.size(); ++i) {
    const collectives::Step& step = list.steps[i];
    deps.clear();
    for (const int a : step.after) deps.push_back(ids[a]);
    const std::uint64_t key = (std::uint64_t(step.channel) << 42) | (std::uint64_t(step.from) << 21) | step.to;
    const auto [it, first] = last_on.try_emplace(key, 0);
    if (first) {
      collectives::route(spec, platform, step.from, step.to);
      deps.insert(deps.end(), ready_of(step.from).begin(), ready_of(step.from).end());
    } else {
      deps.push_back(it->second);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    task.device = spec.group[step.from];
    task.peer = spec.group[step.to];
    task.amount = step.bytes;
    ids[i] = it->second = graph.add(task, deps);
  }
  for (int r = 0; r < n; ++r) {
    deps.assign(ready_of(r).begin(), ready_of(r).end());
    for (const int e : list.ends[r]) deps.push_back(ids[e]);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    task.device = task.peer = spec.group[r];
    task.amount = 0;
    result.done.push_back(graph.add(task, deps));
  }
  return result;
}

CollectiveTasks add_folded_collective(TaskGraph& graph, const CollectiveSpec& spec, const Platform& platform,
                                      const std::vector<std::vector<TaskId>>& ready, const Task& tag, int record) {
  const CollectiveAlgorithm algorithm = choose_algorithm(spec, platform);
  const int m = static_cast<int>(spec.group.size()), k = static_cast<int>(ready.size());
  if (algorithm != CollectiveAlgorithm::Ring || spec.op == CollectiveOp::Broadcast || m < 2)
    throw std::invalid_argument("only a ring all-reduce, reduce-scatter or all-gather folds");
  if (k < 1 || k >= m || m % k != 0)
    throw std::invalid_argument("a folded ring of " + std::to_string(m) + " ranks cannot be simulated on " +
                                std::to_string(k));
  for (int i = 0; i < k; ++i) collectives::route(spec, platform, i, i + 1);
  CollectiveTasks result;
  result.record = record_of(graph, spec, algorithm, record);
  Task task = step_template(tag, result.record);
  task.amount = spec.bytes / spec.chunks / m;  // as add_ring: one m-th of a chunk per step
  const int steps = spec.op == CollectiveOp::AllReduce ? 2 * (m - 1) : m - 1;
  // Rank i's step after its own step before (one connection, one chunk at a
  // time) and, within a chunk, after what it receives: rank i - 1's step
  // before, where rank -1 is the image of rank k - 1.
  constexpr TaskId kNone = std::numeric_limits<TaskId>::max();
  std::vector<TaskId> sent(k, kNone), sent_before(k, kNone);
  std::vector<TaskId> deps;
  const auto add_unique = [&](std::vector<TaskId>& list) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  };
  for (int c = 0; c < spec.chunks; ++c)
    for (int s = 0; s < steps; ++s) {
      sent_before = sent;
      for (int i = 0; i < k; ++i) {
        deps = sent_before[i] == kNone ? ready[i] : std::vector<TaskId>{sent_before[i]};
        if (s > 0) deps.push_back(sent_before[(i + k - 1) % k]);
        add_unique(deps);
        task.device = spec.group[i];
        task.peer = spec.group[i + 1];
        sent[i] = graph.add(task, deps);
      }
    }
  for (int i = 0; i < k; ++i) {
    deps = ready[i];
    deps.push_back(sent[i]);
    deps.push_back(sent[(i + k - 1) % k]);
    add_unique(deps);
    task.device = task.peer = spec.group[i];
    task.amount = 0;
    result.done.push_back(graph.add(task, deps));
  }
  return result;
}

}  // namespace pipesim
