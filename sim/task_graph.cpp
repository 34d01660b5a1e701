#include "sim/task_graph.hpp"

#include <stdexcept>

namespace pipesim {

std::string_view to_string(TaskKind kind) {
  switch (kind) {
    case TaskKind::Forward: return "forward";
    case TaskKind::Backward: return "backward";
    case TaskKind::BackwardInput: return "backward_input";
    case TaskKind::BackwardWeight: return "backward_weight";
    case TaskKind::Recompute: return "recompute";
    case TaskKind::Update: return "update";
    case TaskKind::Transfer: return "transfer";
    case TaskKind::Offload: return "offload";
    case TaskKind::Prefetch: return "prefetch";
    case TaskKind::WeightFetch: return "weight_fetch";
    case TaskKind::Communication: return "communication";
  }
  return "?";
}

bool is_transfer(TaskKind kind) {
  return kind == TaskKind::Transfer || kind == TaskKind::Offload || kind == TaskKind::Prefetch ||
         kind == TaskKind::WeightFetch;
}

std::string_view to_string(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::Weights: return "weights";
    case MemoryCategory::Activations: return "activations";
    case MemoryCategory::Gradients: return "gradients";
    case MemoryCategory::CommBuffers: return "comm_buffers";
    case MemoryCategory::Optimizer: return "optimizer";
  }
  return "?";
}

TaskId TaskGraph::add(const Task& task, std::initializer_list<TaskId> deps) {
  return add(task, std::vector<TaskId>(deps));
}

TaskId TaskGraph::add(const Task& task, const std::vector<TaskId>& deps) {
  const auto id = static_cast<TaskId>(tasks_.size());
  if (task.device < 0 || task.device >= device_count() ||
      (is_transfer(task.kind) && (task.peer < 0 || task.peer >= device_count())))
    throw std::logic_error("task graph: task on a device out of range");
  for (TaskId d : deps)
    if (d >= id) throw std::logic_error("task graph: a dependency must be added before its dependant");
  tasks_.push_back(task);
  dep_ids_.insert(dep_ids_.end(), deps.begin(), deps.end());
  dep_offsets_.push_back(static_cast<std::uint32_t>(dep_ids_.size()));
  return id;
}

void TaskGraph::add_memory(TaskId task, int device, MemoryCategory category, MemoryWhen when,
                           double bytes) {
  if (bytes != 0) memory_.push_back({task, device, category, when, bytes});
}

void TaskGraph::add_static_memory(int device, MemoryCategory category, double bytes) {
  if (bytes != 0) static_memory_.push_back({device, category, bytes});
}

void TaskGraph::append_to_order(TaskId task) {
  device_order_.at(tasks_.at(task).device).push_back(task);
}

void TaskGraph::append_beside_previous(TaskId task) {
  const auto& order = device_order_.at(tasks_.at(task).device);
  if (order.empty()) throw std::invalid_argument("task graph: a task beside nothing in its device order");
  const Task &a = tasks_[order.back()], &b = tasks_[task];
  if (a.resource == b.resource && a.lane == b.lane)
    throw std::invalid_argument("task graph: a task beside the previous one needs another lane");
  if (beside_.size() < tasks_.size()) beside_.resize(tasks_.size(), false);
  beside_[task] = true;
  append_to_order(task);
}

std::string TaskGraph::describe(TaskId id) const {
  const Task& t = tasks_.at(id);
  std::string s(to_string(t.kind));
  if (t.stage >= 0) s += " stage " + std::to_string(t.stage);
  if (t.microbatch >= 0) s += " mb " + std::to_string(t.microbatch);
  if (t.iteration > 0) s += " it " + std::to_string(t.iteration);
  s += is_transfer(t.kind) ? " (dev " + std::to_string(t.device) + "->" + std::to_string(t.peer) + ")"
                           : " (dev " + std::to_string(t.device) + ")";
  return s;
}

}  // namespace pipesim
