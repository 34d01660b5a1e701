// The contract between schedule generators and the engine: what runs where,
// after what, and what it does to memory. Nothing here knows SimGrid.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pipesim {

using TaskId = std::uint32_t;

enum class TaskKind : std::uint8_t {
  Forward,
  Backward,        // full backward (input and weight gradients together)
  BackwardInput,   // input-gradient half of a split backward
  BackwardWeight,  // weight-gradient half of a split backward
  Recompute,       // rematerialised forward
  Update,          // optimizer step
  GradientNorm,    // the gradients' norm, read before the step (clipping)
  Transfer,        // activations or gradients between devices
  Offload,         // device -> host memory
  Prefetch,        // host memory -> device
  WeightFetch,     // weights from their owner to a compute worker
  Communication,   // the device busy sending or receiving (PyTorch's SEND/RECV steps); runs as compute
};

std::string_view to_string(TaskKind kind);
bool is_transfer(TaskKind kind);  // Transfer, Offload, Prefetch, WeightFetch

enum class MemoryCategory : std::uint8_t {
  Weights,
  Activations,  // stashed for the backward pass
  Gradients,    // weight gradients (accumulation buffers)
  CommBuffers,  // sent or received tensors waiting to be consumed
  Optimizer,    // optimizer state (master weights, moments)
  Workspace,    // transient working memory of the op that runs
  Runtime,      // static reserve: library workspaces, allocator, context
};
inline constexpr int kMemoryCategoryCount = 7;
using MemoryBreakdown = std::array<double, kMemoryCategoryCount>;  // bytes, indexed by MemoryCategory
std::string_view to_string(MemoryCategory category);

// A memory effect fires when its task starts or finishes.
enum class MemoryWhen : std::uint8_t { AtStart, AtFinish };

// What one task does to memory.
struct MemoryEffect {
  int device;
  MemoryCategory category;
  MemoryWhen when;
  double bytes;  // > 0 allocates, < 0 frees
};

// A memory effect and the task it belongs to.
struct TaskMemoryEffect : MemoryEffect {
  TaskId task;
};

// Memory held for the whole run (weights, gradient buffers, ...).
struct StaticMemory {
  int device;
  MemoryCategory category;
  double bytes;
};

struct Task {
  TaskKind kind = TaskKind::Forward;
  int device = -1;    // compute: the device; transfer: the source
  int peer = -1;      // transfer: the destination; -1 otherwise
  double amount = 0;  // flops for compute, bytes for transfers
  int stage = -1;
  int layer_first = -1;  // inclusive range of layers, -1 if none
  int layer_last = -1;
  int microbatch = -1;
  int iteration = 0;
  double priority = 0;  // among ready tasks of one device, lowest runs first
  // Compute tasks only (docs/architecture.md, "The engine"). Tasks of one
  // device, resource and lane run one at a time; different lanes (and
  // resources) run at the same time and share the resource's speed.
  int resource = 0;  // which compute resource of the device: 0 = the device's own host
  int lane = 0;      // e.g. seed 004's forward (0) and backward (1) running side by side
  double share = 1;  // in (0, 1]: the task runs at most at share x the resource's speed
  // Transfers only: the collective this transfer is a step of (an index
  // into TaskGraph::collectives()), -1 for a point-to-point transfer. One
  // record serves every micro-batch: an instance is (collective, micro-batch).
  int collective = -1;
};

// One call of a collective: its tasks are the ids [first, end), added together.
struct CollectiveInstance {
  int record = -1;
  TaskId first = 0, end = 0;
};

// A collective operation the graph runs as point-to-point transfers
// (collectives/): what the reports group the transfers by.
struct CollectiveRecord {
  std::string operation;   // "all-reduce", "reduce-scatter", "all-gather", "broadcast"
  std::string algorithm;   // "ring", "tree", "hierarchical"
  std::string purpose;     // "tp forward", "dp gradients", ...: what the job uses it for
  std::vector<int> group;  // its devices, in rank order
  double bytes = 0;        // the buffer it reduces or gathers (per rank: the full tensor)
};

// What the tasks of one shape share: every field of a Task but its
// micro-batch and priority, and the task's memory effects. A pipeline has a
// few shapes per stage however many micro-batches it runs, so a graph stores
// per task only a shape id, a micro-batch and a priority: millions of tasks
// fit in a few bytes each, and an engine can work out a cost once per shape.
struct TaskShape {
  Task task;                                         // microbatch -1, priority 0
  std::uint32_t effects_begin = 0, effects_end = 0;  // into the graph's effect pool
};

// A task's memory effects, in the order they were added.
struct MemoryEffects {
  const MemoryEffect* first = nullptr;
  const MemoryEffect* last = nullptr;
  const MemoryEffect* begin() const { return first; }
  const MemoryEffect* end() const { return last; }
  std::size_t size() const { return static_cast<std::size_t>(last - first); }
  bool empty() const { return first == last; }
};

class TaskGraph;

// The tasks of a graph in id order, each rebuilt from its shape.
class TaskRange {
 public:
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Task;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Task;
    iterator(const TaskGraph* graph, TaskId id) : graph_(graph), id_(id) {}
    Task operator*() const;
    iterator& operator++() {
      ++id_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++id_;
      return old;
    }
    bool operator==(const iterator& o) const { return id_ == o.id_; }
    bool operator!=(const iterator& o) const { return id_ != o.id_; }

   private:
    const TaskGraph* graph_;
    TaskId id_;
  };
  TaskRange(const TaskGraph* graph, TaskId size) : graph_(graph), size_(size) {}
  iterator begin() const { return {graph_, 0}; }
  iterator end() const { return {graph_, size_}; }
  std::size_t size() const { return size_; }

 private:
  const TaskGraph* graph_;
  TaskId size_;
};

// Tasks, their dependencies (compressed rows) and per-device orders.
// Devices are indices into the Platform's device list.
class TaskGraph {
 public:
  explicit TaskGraph(int device_count = 0) : device_order_(device_count) {}

  // Room for this many tasks and dependencies: a generator that knows its
  // size saves the copies (and the transient memory) of growing vectors.
  void reserve(std::size_t tasks, std::size_t dependencies);
  TaskId add(const Task& task, std::initializer_list<TaskId> deps = {});
  TaskId add(const Task& task, const std::vector<TaskId>& deps);
  void add_memory(TaskId task, int device, MemoryCategory category, MemoryWhen when, double bytes);
  void add_static_memory(int device, MemoryCategory category, double bytes);
  // Every task's amount becomes AMOUNT(task), read from what tasks of one
  // shape share (all but the micro-batch and priority): called once per
  // shape, so that a graph of millions of tasks is re-timed in place.
  void set_amounts(const std::function<double(const Task&)>& amount);
  // Appends a compute task to its device's order: the device runs its ordered
  // tasks in exactly this sequence, each lane (resource, lane) on its own: an
  // ordered task waits for the previous ordered task of its resource and
  // lane. Lanes with no ordered task run ready tasks by priority.
  void append_to_order(TaskId task);
  // Appends a compute task that runs beside the previous ordered task of its
  // device, on another lane (DualPipeV's overlapped forward and backward).
  // Around such a group the order is strict: every task of the group waits
  // for every task of the group before it, and every task of the group after
  // it for every task of this one (besides the per-lane links above).
  void append_beside_previous(TaskId task);
  // Puts a compute task into its device's order just before BEFORE, an
  // ordered task of that device that does not run beside the one before it:
  // what runs between two iterations and is added after both (the optimizer
  // step of each iteration).
  void insert_into_order(TaskId task, TaskId before);
  bool beside_previous(TaskId task) const { return task < beside_.size() && beside_[task]; }
  // Calls f(previous, next) for every order link: consecutive ordered tasks
  // of one lane, and the links around groups (each pair once).
  template <class F>
  void for_each_order_link(F f) const;

  std::size_t size() const { return shape_of_.size(); }
  int device_count() const { return static_cast<int>(device_order_.size()); }
  Task task(TaskId id) const {
    Task t = shapes_[shape_of_[id]].task;
    t.microbatch = microbatch_[id];
    t.priority = priority_[id];
    return t;
  }
  TaskRange tasks() const { return {this, static_cast<TaskId>(size())}; }
  // The shape of a task, and the table of shapes.
  std::uint32_t shape_of(TaskId id) const { return shape_of_[id]; }
  const TaskShape& shape(std::uint32_t s) const { return shapes_[s]; }
  std::size_t shape_count() const { return shapes_.size(); }
  // Dependencies of a task, as [begin, end) over dependency ids.
  const TaskId* deps_begin(TaskId id) const { return dep_ids_.data() + dep_offsets_[id]; }
  const TaskId* deps_end(TaskId id) const { return dep_ids_.data() + dep_offsets_[id + 1]; }
  std::size_t dependency_count() const { return dep_ids_.size(); }
  const std::vector<TaskId>& device_order(int device) const { return device_order_[device]; }
  MemoryEffects memory_effects(TaskId id) const { return effects_of(shapes_[shape_of_[id]]); }
  MemoryEffects effects_of(const TaskShape& s) const {
    return {effect_pool_.data() + s.effects_begin, effect_pool_.data() + s.effects_end};
  }
  // Every task's memory effects, task by task (a copy: for small graphs and tests).
  std::vector<TaskMemoryEffect> memory_effects() const;
  const std::vector<StaticMemory>& static_memory() const { return static_memory_; }
  // Collectives whose steps are transfers of this graph (Task::collective).
  int add_collective(CollectiveRecord record);
  const std::vector<CollectiveRecord>& collectives() const { return collectives_; }
  // Each call: the tasks added since `first` (the graph's size before the call).
  void add_collective_instance(int record, TaskId first) {
    instances_.push_back({record, first, static_cast<TaskId>(size())});
  }
  const std::vector<CollectiveInstance>& collective_instances() const { return instances_; }

  // A short human name such as "forward stage 1 mb 7 (dev 3)" for messages.
  std::string describe(TaskId id) const;

 private:
  // The id of an equal shape already in the table, else `shape` added; the
  // flag says whether it was added.
  std::pair<std::uint32_t, bool> intern(const TaskShape& shape);
  TaskId add(const Task& task, const TaskId* deps_first, const TaskId* deps_last);
  bool same_shape(const TaskShape& a, const TaskShape& b) const;
  static bool same_effect(const MemoryEffect& a, const MemoryEffect& b);
  std::size_t hash(const TaskShape& shape) const;

  std::vector<TaskShape> shapes_;
  std::vector<MemoryEffect> effect_pool_;
  std::unordered_multimap<std::size_t, std::uint32_t> shape_index_;  // hash -> shape ids
  // The shape last found or added per hash modulo 4096: a pipeline adds the
  // same few shapes over and over, so most lookups end here.
  std::vector<std::uint32_t> recent_shape_;
  static constexpr std::uint32_t kNoShape = 0xffffffffu;
  struct Move {
    MemoryEffect effect{};
    std::uint32_t to = kNoShape;
  };
  std::vector<Move> last_move_;  // per shape: the last effect added to one of its tasks, and the shape it led to
  std::vector<std::uint32_t> shape_of_;  // per task
  std::vector<std::int32_t> microbatch_;
  std::vector<double> priority_;
  std::vector<std::uint32_t> dep_offsets_{0};
  std::vector<TaskId> dep_ids_;
  std::vector<std::vector<TaskId>> device_order_;
  std::vector<StaticMemory> static_memory_;
  std::vector<CollectiveRecord> collectives_;
  std::vector<CollectiveInstance> instances_;
  std::vector<bool> beside_;  // per task, sized on first use: runs beside the previous ordered task
};

inline Task TaskRange::iterator::operator*() const { return graph_->task(id_); }

template <class F>
void TaskGraph::for_each_order_link(F f) const {
  struct Last {
    int resource, lane;
    TaskId task;
  };
  std::vector<Last> last;
  std::vector<TaskId> group, previous_group;
  auto lane_of = [&](TaskId t) -> const Task& { return shapes_[shape_of_[t]].task; };
  for (const auto& order : device_order_) {
    last.clear();
    group.clear();
    for (std::size_t i = 0; i <= order.size(); ++i) {
      // A group ends where the next task does not run beside it: link it to the one before.
      if (i == order.size() || !beside_previous(order[i])) {
        if (!group.empty() && (group.size() > 1 || previous_group.size() > 1))
          for (const TaskId t : group)
            for (const TaskId p : previous_group) {
              const Task& a = lane_of(p);
              const Task& b = lane_of(t);
              if (a.resource == b.resource && a.lane == b.lane) continue;  // a lane link covers it
              f(p, t);
            }
        previous_group.swap(group);
        group.clear();
        if (i == order.size()) break;
      }
      const TaskId t = order[i];
      group.push_back(t);
      const Task& task = lane_of(t);
      auto it = last.begin();
      while (it != last.end() && (it->resource != task.resource || it->lane != task.lane)) ++it;
      if (it == last.end()) {
        last.push_back({task.resource, task.lane, t});
      } else {
        f(it->task, t);
        it->task = t;
      }
    }
    previous_group.clear();
  }
}

}  // namespace pipesim
