#include "sim/task_graph.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace pipesim {

std::string_view to_string(TaskKind kind) {
  switch (kind) {
    case TaskKind::Forward:
      return "forward";
    case TaskKind::Backward:
      return "backward";
    case TaskKind::BackwardInput:
      return "backward_input";
    case TaskKind::BackwardWeight:
      return "backward_weight";
    case TaskKind::Recompute:
      return "recompute";
    case TaskKind::Update:
      return "update";
    case TaskKind::GradientNorm:
      return "gradient_norm";
    case TaskKind::Transfer:
      return "transfer";
    case TaskKind::Offload:
      return "offload";
    case TaskKind::Prefetch:
      return "prefetch";
    case TaskKind::WeightFetch:
      return "weight_fetch";
    case TaskKind::Communication:
      return "communication";
  }
  return "?";
}

bool is_transfer(TaskKind kind) {
  return kind == TaskKind::Transfer || kind == TaskKind::Offload || kind == TaskKind::Prefetch ||
         kind == TaskKind::WeightFetch;
}

std::string_view to_string(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::Weights:
      return "weights";
    case MemoryCategory::Activations:
      return "activations";
    case MemoryCategory::Gradients:
      return "gradients";
    case MemoryCategory::CommBuffers:
      return "comm_buffers";
    case MemoryCategory::Optimizer:
      return "optimizer";
    case MemoryCategory::Workspace:
      return "workspace";
    case MemoryCategory::Runtime:
      return "runtime";
  }
  return "?";
}

namespace {

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

void mix(std::size_t& h, std::uint64_t v) {
  h ^= std::hash<std::uint64_t>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
}

}  // namespace

void TaskGraph::reserve(std::size_t tasks, std::size_t dependencies) {
  shape_of_.reserve(tasks);
  microbatch_.reserve(tasks);
  priority_.reserve(tasks);
  dep_offsets_.reserve(tasks + 1);
  dep_ids_.reserve(dependencies);
}

TaskId TaskGraph::add(const Task& task, std::initializer_list<TaskId> deps) {
  return add(task, deps.begin(), deps.end());
}

TaskId TaskGraph::add(const Task& task, const std::vector<TaskId>& deps) {
  return add(task, deps.data(), deps.data() + deps.size());
}

TaskId TaskGraph::add(const Task& task, const TaskId* deps_first, const TaskId* deps_last) {
  const auto id = static_cast<TaskId>(size());
  if (task.device < 0 || task.device >= device_count() ||
      (is_transfer(task.kind) && (task.peer < 0 || task.peer >= device_count())))
    throw std::logic_error("task graph: task on a device out of range");
  for (const TaskId* d = deps_first; d != deps_last; ++d)
    if (*d >= id) throw std::logic_error("task graph: a dependency must be added before its dependant");
  TaskShape shape;
  shape.task = task;
  shape.task.microbatch = -1;
  shape.task.priority = 0;
  shape_of_.push_back(intern(shape).first);
  microbatch_.push_back(task.microbatch);
  priority_.push_back(task.priority);
  dep_ids_.insert(dep_ids_.end(), deps_first, deps_last);
  dep_offsets_.push_back(static_cast<std::uint32_t>(dep_ids_.size()));
  return id;
}

void TaskGraph::add_memory(TaskId task, int device, MemoryCategory category, MemoryWhen when, double bytes) {
  if (bytes == 0) return;
  const std::uint32_t from = shape_of_.at(task);
  const MemoryEffect effect{device, category, when, bytes};
  // Tasks of one shape get the same effects in turn: the last move from each
  // shape is remembered, which spares the lookup below for almost every effect.
  Move& last = last_move_[from];
  if (last.to != kNoShape && same_effect(last.effect, effect)) {
    shape_of_[task] = last.to;
    return;
  }
  // The task moves to the shape with one more effect; its effects are copied
  // to the end of the pool, and dropped again if that shape already exists.
  TaskShape shape = shapes_[from];
  const auto mark = static_cast<std::uint32_t>(effect_pool_.size());
  // Room grown geometrically: reserving the exact size copied the whole pool at every new shape.
  const std::size_t needed = effect_pool_.size() + (shape.effects_end - shape.effects_begin) + 1;
  if (needed > effect_pool_.capacity()) effect_pool_.reserve(std::max(needed, 2 * effect_pool_.capacity()));
  for (std::uint32_t i = shape.effects_begin; i < shape.effects_end; ++i) effect_pool_.push_back(effect_pool_[i]);
  effect_pool_.push_back(effect);
  shape.effects_begin = mark;
  shape.effects_end = static_cast<std::uint32_t>(effect_pool_.size());
  const auto [id, added] = intern(shape);
  if (!added) effect_pool_.resize(mark);
  shape_of_[task] = id;
  last_move_[from] = {effect, id};
}

void TaskGraph::set_amounts(const std::function<double(const Task&)>& amount) {
  const auto shapes = static_cast<std::uint32_t>(shapes_.size());
  std::vector<std::uint32_t> to(shapes);
  for (std::uint32_t s = 0; s < shapes; ++s) {
    TaskShape shape = shapes_[s];
    shape.task.amount = amount(shape.task);
    to[s] = bits(shape.task.amount) == bits(shapes_[s].task.amount) ? s : intern(shape).first;
  }
  for (std::uint32_t& s : shape_of_) s = to[s];
}

std::pair<std::uint32_t, bool> TaskGraph::intern(const TaskShape& shape) {
  constexpr std::size_t kRecent = 4096;
  if (recent_shape_.empty()) recent_shape_.assign(kRecent, kNoShape);
  const std::size_t h = hash(shape);
  std::uint32_t& recent = recent_shape_[h % kRecent];
  if (recent != kNoShape && same_shape(shapes_[recent], shape)) return {recent, false};
  const auto [first, last] = shape_index_.equal_range(h);
  for (auto it = first; it != last; ++it)
    if (same_shape(shapes_[it->second], shape)) return {recent = it->second, false};
  const auto id = static_cast<std::uint32_t>(shapes_.size());
  shapes_.push_back(shape);
  last_move_.push_back({});
  shape_index_.emplace(h, id);
  return {recent = id, true};
}

std::size_t TaskGraph::hash(const TaskShape& shape) const {
  const Task& t = shape.task;
  std::size_t h = static_cast<std::size_t>(t.kind);
  for (const int v :
       {t.device, t.peer, t.stage, t.layer_first, t.layer_last, t.iteration, t.resource, t.lane, t.collective})
    mix(h, static_cast<std::uint32_t>(v));
  mix(h, bits(t.amount));
  mix(h, bits(t.share));
  for (const MemoryEffect& e : effects_of(shape)) {
    mix(h, static_cast<std::uint32_t>(e.device) | std::uint64_t{static_cast<std::uint8_t>(e.category)} << 32 |
               std::uint64_t{static_cast<std::uint8_t>(e.when)} << 40);
    mix(h, bits(e.bytes));
  }
  return h;
}

bool TaskGraph::same_shape(const TaskShape& a, const TaskShape& b) const {
  const Task &x = a.task, &y = b.task;
  if (x.kind != y.kind || x.device != y.device || x.peer != y.peer || bits(x.amount) != bits(y.amount) ||
      x.stage != y.stage || x.layer_first != y.layer_first || x.layer_last != y.layer_last ||
      x.iteration != y.iteration || x.resource != y.resource || x.lane != y.lane || bits(x.share) != bits(y.share) ||
      x.collective != y.collective)
    return false;
  const MemoryEffects ea = effects_of(a), eb = effects_of(b);
  if (ea.size() != eb.size()) return false;
  for (std::size_t i = 0; i < ea.size(); ++i)
    if (!same_effect(ea.first[i], eb.first[i])) return false;
  return true;
}

bool TaskGraph::same_effect(const MemoryEffect& p, const MemoryEffect& q) {
  return p.device == q.device && p.category == q.category && p.when == q.when && bits(p.bytes) == bits(q.bytes);
}

std::vector<TaskMemoryEffect> TaskGraph::memory_effects() const {
  std::vector<TaskMemoryEffect> all;
  for (TaskId t = 0; t < size(); ++t)
    for (const MemoryEffect& e : memory_effects(t)) all.push_back({e, t});
  return all;
}

int TaskGraph::add_collective(CollectiveRecord record) {
  collectives_.push_back(std::move(record));
  return static_cast<int>(collectives_.size()) - 1;
}

void TaskGraph::add_static_memory(int device, MemoryCategory category, double bytes) {
  if (bytes != 0) static_memory_.push_back({device, category, bytes});
}

void TaskGraph::append_to_order(TaskId task) {
  device_order_.at(shapes_[shape_of_.at(task)].task.device).push_back(task);
}

void TaskGraph::append_beside_previous(TaskId task) {
  const auto& order = device_order_.at(shapes_[shape_of_.at(task)].task.device);
  if (order.empty()) throw std::invalid_argument("task graph: a task beside nothing in its device order");
  const Task a = this->task(order.back()), b = this->task(task);
  if (a.resource == b.resource && a.lane == b.lane)
    throw std::invalid_argument("task graph: a task beside the previous one needs another lane");
  if (beside_.size() < size()) beside_.resize(size(), false);
  beside_[task] = true;
  append_to_order(task);
}

void TaskGraph::insert_into_order(TaskId task, TaskId before) {
  auto& order = device_order_.at(shapes_[shape_of_.at(task)].task.device);
  const auto at = std::find(order.begin(), order.end(), before);
  if (at == order.end()) throw std::invalid_argument("task graph: inserting before a task not in the device's order");
  if (beside_previous(before))
    throw std::invalid_argument("task graph: inserting inside a group of tasks side by side");
  order.insert(at, task);
}

std::string TaskGraph::describe(TaskId id) const {
  if (id >= size()) throw std::out_of_range("task graph: no task " + std::to_string(id));
  const Task t = task(id);
  std::string s(to_string(t.kind));
  if (t.stage >= 0) s += " stage " + std::to_string(t.stage);
  if (t.microbatch >= 0) s += " mb " + std::to_string(t.microbatch);
  if (t.iteration > 0) s += " it " + std::to_string(t.iteration);
  if (t.collective >= 0 && t.collective < static_cast<int>(collectives_.size()))
    s += " of " + collectives_[t.collective].operation + " '" + collectives_[t.collective].purpose + "'";
  s += is_transfer(t.kind) ? " (dev " + std::to_string(t.device) + "->" + std::to_string(t.peer) + ")"
                           : " (dev " + std::to_string(t.device) + ")";
  return s;
}

}  // namespace pipesim
