#include "patterns/pattern_unroll.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace pipesim {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
constexpr TaskId kNoTask = std::numeric_limits<TaskId>::max();

struct Instance {
  long long period;
  double start;
  int chain;  // 2 * task number, + 1 for the transfer after it: ties go along the chain
  int copy;
  int item;  // index into ops or transfers
  bool transfer;
  int microbatch;
  std::size_t dep = kNone;           // data (producer)
  std::vector<std::size_t> links{};  // the previous transfer on each link resource it holds
};

// Pattern time order; the last fields only make it total.
bool earlier(const Instance& a, const Instance& b) {
  return std::tie(a.period, a.start, a.chain, a.copy, a.item) < std::tie(b.period, b.start, b.chain, b.copy, b.item);
}

class Unroller {
 public:
  Unroller(const Pattern& p, const PatternTiming& t, int device_count, int microbatches, int per_iteration, bool timed)
      : p_(p),
        t_(t),
        n_(microbatches),
        per_it_(per_iteration > 0 ? per_iteration : std::max(1, microbatches)),
        timed_(timed),
        graph_(device_count) {
    check_pattern(p, device_count, true);
    if (t.duration.size() != p.ops.size() || t.flops.size() != p.ops.size() || t.output_bytes.size() != p.ops.size() ||
        t.transfer_links.size() != p.ops.size() || t.weights.size() != static_cast<std::size_t>(p.layers))
      throw std::invalid_argument("pattern unroll: timing does not match the pattern");
    if (microbatches < 0) throw std::invalid_argument("pattern unroll: negative micro-batch count");
    if (!t.steps.empty() && t.steps.size() != p.ops.size())
      throw std::invalid_argument("pattern unroll: steps do not match the pattern");
    succ_ = p.successors();
    pred_.assign(p.ops.size(), -1);
    for (std::size_t i = 0; i < succ_.size(); ++i)
      if (succ_[i] >= 0) pred_[succ_[i]] = static_cast<int>(i);
    transfer_ = p.transfer_of();
    // For F_l: B_l of the same copy, whose output has F_l's input size a_{l-1}.
    std::vector<int> backward(p.layers * p.copies, -1);
    for (std::size_t i = 0; i < p.ops.size(); ++i)
      if (p.ops[i].kind == TaskKind::Backward)
        backward[p.ops[i].layer * p.copies + p.ops[i].copy] = static_cast<int>(i);
    backward_of_.assign(p.ops.size(), -1);
    for (std::size_t i = 0; i < p.ops.size(); ++i)
      if (p.ops[i].kind == TaskKind::Forward) backward_of_[i] = backward[p.ops[i].layer * p.copies + p.ops[i].copy];
    // Each link resource's transfers (an empty message holds none:
    // timing.transfer_links), and per transfer its resources in id order.
    on_link_ = transfers_by_link(p_, t_);
    links_of_.resize(p.transfers.size());
    for (std::size_t r = 0; r < on_link_.size(); ++r)
      for (int tr : on_link_[r]) links_of_[tr].push_back(static_cast<int>(r));
  }

  // Returns whether the graph was emitted in pattern time order (else by Kahn).
  bool build(unroll_internal::Method method) {
    const bool fast = method == unroll_internal::Method::Automatic && producers_come_first();
    if (fast) {
      emit_in_pattern_order();
    } else {
      make_instances();
      emit_in_dependency_order();
      make_device_orders();
    }
    add_static_memory();
    return fast;
  }

  TimedUnroll result() { return {std::move(graph_), std::move(duration_), std::move(op_), std::move(period_)}; }

 private:
  bool same_device(int a, int b) const { return b >= 0 && p_.ops[a].device == p_.ops[b].device; }

  // Items are what instances repeat: ops 0 .. ops-1, then the transfers.
  int item_count() const { return static_cast<int>(p_.ops.size() + p_.transfers.size()); }
  bool is_transfer_item(int i) const { return i >= static_cast<int>(p_.ops.size()); }
  int transfer_index(int i) const { return i - static_cast<int>(p_.ops.size()); }
  const PatternOp& op_of_item(int i) const {
    return is_transfer_item(i) ? p_.ops[p_.transfers[transfer_index(i)].from] : p_.ops[i];
  }
  int shift_of(int i) const { return is_transfer_item(i) ? p_.transfers[transfer_index(i)].shift : p_.ops[i].shift; }
  // Instances of an item: q = 0 .. count-1, those with micro-batch k*q + copy < n.
  long long instance_count(int i) const {
    const long long c = op_of_item(i).copy;
    return c >= n_ ? 0 : (n_ - c + p_.copies - 1) / p_.copies;
  }
  // The item whose instance q feeds instance q of item i (same micro-batch), -1 if none.
  int producer_of(int i) const {
    if (is_transfer_item(i)) return p_.transfers[transfer_index(i)].from;
    const int pr = pred_[i];
    if (pr < 0) return -1;
    return transfer_[pr] >= 0 ? static_cast<int>(p_.ops.size()) + transfer_[pr] : pr;
  }
  // Instance q of item i, without dependencies.
  Instance instance(int i, long long q) const {
    const PatternOp& op = op_of_item(i);
    const bool transfer = is_transfer_item(i);
    return {q - shift_of(i),
            transfer ? p_.transfers[transfer_index(i)].start : op.start,
            2 * p_.task_number(op) + (transfer ? 1 : 0),
            op.copy,
            transfer ? transfer_index(i) : i,
            transfer,
            static_cast<int>(p_.copies * q + op.copy)};
  }

  // Whether pattern time order (`earlier`) is a topological order of the
  // instances; Kahn's algorithm then emits exactly that order (the earliest
  // instance left is always ready). Link predecessors come earlier by
  // definition; a producer's instance q comes before its consumer's for
  // every q as soon as for q = 0, as both periods move with q. Valid shifts
  // give this.
  bool producers_come_first() const {
    for (const std::vector<int>& links : links_of_)  // a resource listed twice: Kahn finds the self-dependency
      if (std::adjacent_find(links.begin(), links.end()) != links.end()) return false;
    for (int i = 0; i < item_count(); ++i) {
      const int pr = producer_of(i);
      if (pr >= 0 && instance_count(i) > 0 && !earlier(instance(pr, 0), instance(i, 0))) return false;
    }
    return true;
  }

  // Calls f(item, q) for every instance in pattern time order: period by
  // period, the items with an instance in it, in `earlier` order. Periods
  // without instances are skipped, so shifts far apart cost nothing.
  template <class F>
  void for_each_in_pattern_order(F f) const {
    std::vector<int> items;
    std::vector<long long> bounds;  // the periods where an item's instances begin or have ended
    for (int i = 0; i < item_count(); ++i)
      if (const long long count = instance_count(i); count > 0) {
        items.push_back(i);
        bounds.push_back(-static_cast<long long>(shift_of(i)));
        bounds.push_back(count - shift_of(i));
      }
    std::sort(items.begin(), items.end(), [&](int a, int b) {
      Instance x = instance(a, 0), y = instance(b, 0);
      x.period = y.period = 0;  // the order within one period
      return earlier(x, y);
    });
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    std::vector<int> active;  // the items with an instance in every period of [bounds[b], bounds[b + 1])
    for (std::size_t b = 0; b + 1 < bounds.size(); ++b) {
      active.clear();
      for (int i : items)
        if (bounds[b] + shift_of(i) >= 0 && bounds[b] + shift_of(i) < instance_count(i)) active.push_back(i);
      if (active.empty()) continue;
      for (long long period = bounds[b]; period < bounds[b + 1]; ++period)
        for (int i : active) f(i, period + shift_of(i));
    }
  }

  // The dependencies of instance q of item i when instances are emitted in
  // pattern time order (ids = emission order): its producer's instance q
  // (`produced` holds, per producer, the ids of its instances not consumed
  // yet, oldest first), then the previous transfer on each link resource
  // it holds (`last`), each once, as the reference lists them.
  template <class Produced>
  void pattern_order_deps(int i, const std::vector<TaskId>& last, Produced produced, std::vector<TaskId>& deps) const {
    deps.clear();
    if (const int pr = producer_of(i); pr >= 0) deps.push_back(produced(pr));
    if (!is_transfer_item(i)) return;
    const auto first_link = deps.size();
    for (int r : links_of_[transfer_index(i)])
      if (last[r] != kNoTask && std::find(deps.begin() + first_link, deps.end(), last[r]) == deps.end())
        deps.push_back(last[r]);
  }

  // The fast path (see producers_come_first): per item a queue of the ids
  // its consumer has not taken yet (as many as periods between them), per
  // link resource the last transfer; device orders as the ops come.
  void emit_in_pattern_order() {
    std::vector<TaskId> last(on_link_.size(), kNoTask);
    std::vector<TaskId> deps;
    // A first pass counts tasks and dependencies, so the graph is allocated once.
    std::size_t tasks = 0, dependencies = 0;
    for_each_in_pattern_order([&](int i, long long) {
      pattern_order_deps(
          i, last, [](int) { return TaskId{0}; }, deps);
      const std::size_t before = is_transfer_item(i) ? 0 : prelude(i);  // each waits for the one before it
      dependencies += deps.size() + before;
      if (is_transfer_item(i))
        for (int r : links_of_[transfer_index(i)]) last[r] = static_cast<TaskId>(tasks);
      tasks += 1 + before;
    });
    graph_.reserve(tasks, dependencies);
    if (timed_) {
      duration_.reserve(tasks);
      op_.reserve(tasks);
      period_.reserve(tasks);
    }
    std::fill(last.begin(), last.end(), kNoTask);
    std::vector<std::deque<TaskId>> waiting(item_count());
    std::vector<char> consumed(item_count(), 0);
    for (int i = 0; i < item_count(); ++i)
      if (const int pr = producer_of(i); pr >= 0) consumed[pr] = 1;
    auto take = [&](int pr) {
      if (waiting[pr].empty()) throw std::logic_error("pattern unroll: a consumer before its producer");
      const TaskId id = waiting[pr].front();
      waiting[pr].pop_front();
      return id;
    };
    for_each_in_pattern_order([&](int i, long long q) {
      pattern_order_deps(i, last, take, deps);
      const TaskId id = emit(instance(i, q), deps);
      if (consumed[i]) waiting[i].push_back(id);
      if (is_transfer_item(i))
        for (int r : links_of_[transfer_index(i)]) last[r] = id;
      else
        append_op_to_order(id, i);
    });
  }

  // The reference: every instance with its dependencies, then Kahn.
  void make_instances() {
    op_inst_.resize(p_.ops.size());
    tr_inst_.resize(p_.transfers.size());
    for (int i = 0; i < item_count(); ++i) {
      std::vector<std::size_t>& out = is_transfer_item(i) ? tr_inst_[transfer_index(i)] : op_inst_[i];
      for (long long q = 0; q < instance_count(i); ++q) {
        out.push_back(inst_.size());
        inst_.push_back(instance(i, q));
      }
    }
    // Same micro-batch, same copy: instance q of a producer feeds instance q of its consumer.
    for (std::size_t o = 0; o < p_.ops.size(); ++o) {
      const int pr = pred_[o];
      if (pr < 0) continue;
      const int t = transfer_[pr];
      for (std::size_t q = 0; q < op_inst_[o].size(); ++q)
        inst_[op_inst_[o][q]].dep = t >= 0 ? tr_inst_[t][q] : op_inst_[pr][q];
    }
    for (std::size_t t = 0; t < p_.transfers.size(); ++t)
      for (std::size_t q = 0; q < tr_inst_[t].size(); ++q)
        inst_[tr_inst_[t][q]].dep = op_inst_[p_.transfers[t].from][q];
    // Each link resource's instances in pattern time order (an empty
    // message holds none: timing.transfer_links).
    for (const std::vector<int>& on_link : on_link_) {
      std::vector<std::size_t> list;
      for (int t : on_link) list.insert(list.end(), tr_inst_[t].begin(), tr_inst_[t].end());
      std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) { return earlier(inst_[a], inst_[b]); });
      for (std::size_t i = 1; i < list.size(); ++i) {
        std::vector<std::size_t>& after = inst_[list[i]].links;
        if (std::find(after.begin(), after.end(), list[i - 1]) == after.end()) after.push_back(list[i - 1]);
      }
    }
  }

  // Kahn's algorithm in pattern-time order: for valid shifts that is plain
  // pattern-time order; a cycle means the shifts are not valid.
  void emit_in_dependency_order() {
    const std::size_t n = inst_.size();
    std::vector<std::size_t> offsets(n + 1, 0), succs, waiting(n, 0);
    auto each_dep = [](const Instance& in, auto f) {
      if (in.dep != kNone) f(in.dep);
      for (std::size_t d : in.links) f(d);
    };
    for (const Instance& in : inst_) each_dep(in, [&](std::size_t d) { ++offsets[d + 1]; });
    for (std::size_t i = 0; i < n; ++i) offsets[i + 1] += offsets[i];
    succs.resize(offsets[n]);
    std::vector<std::size_t> fill(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < n; ++i) each_dep(inst_[i], [&](std::size_t d) { succs[fill[d]++] = i, ++waiting[i]; });
    auto later = [&](std::size_t a, std::size_t b) { return earlier(inst_[b], inst_[a]); };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> ready(later);
    for (std::size_t i = 0; i < n; ++i)
      if (waiting[i] == 0) ready.push(i);
    id_.assign(n, 0);
    std::size_t emitted = 0;
    std::vector<TaskId> deps;
    while (!ready.empty()) {
      const std::size_t i = ready.top();
      ready.pop();
      deps.clear();
      each_dep(inst_[i], [&](std::size_t d) { deps.push_back(id_[d]); });
      id_[i] = emit(inst_[i], deps);
      ++emitted;
      for (std::size_t s = offsets[i]; s < offsets[i + 1]; ++s)
        if (--waiting[succs[s]] == 0) ready.push(succs[s]);
    }
    if (emitted != n)
      throw std::invalid_argument(
          "pattern unroll: the shifts make data go back in time (circular dependency); use assign_minimal_shifts");
  }

  TaskId emit(const Instance& in, const std::vector<TaskId>& deps) {
    const int op = in.transfer ? p_.transfers[in.item].from : in.item;
    const PatternOp& o = p_.ops[op];
    Task task;
    task.microbatch = in.microbatch % per_it_;
    task.iteration = in.microbatch / per_it_;
    task.priority = static_cast<double>(in.period) * p_.period + in.start;
    task.device = o.device;
    // The layer whose activation (or its gradient) the task produces.
    task.layer_first = task.layer_last = task.stage =
        in.transfer && o.kind == TaskKind::Backward ? o.layer - 1 : o.layer;
    if (timed_) period_.push_back(in.period);
    if (in.transfer) {
      task.kind = TaskKind::Transfer;
      task.peer = p_.ops[succ_[op]].device;
      task.amount = t_.output_bytes[op];
      const TaskId id = graph_.add(task, deps);
      if (timed_) {
        duration_.push_back(t_.output_bytes[op] > 0 ? t_.transfer_duration[op] : 0);
        op_.push_back(-1);
      }
      if (p_.buffers == BufferPolicy::Lifetime && task.amount > 0) {
        // The receiver's buffer from the start of the transfer, the sender's copy until its end.
        graph_.add_memory(id, task.peer, MemoryCategory::CommBuffers, MemoryWhen::AtStart, task.amount);
        graph_.add_memory(id, task.device, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -task.amount);
      }
      return id;
    }
    if (t_.programmed(op)) return emit_steps(task, op, deps);
    task.kind = o.kind;
    task.amount = t_.flops[op];
    const TaskId id = graph_.add(task, deps);
    if (timed_) {
      duration_.push_back(t_.duration[op]);
      op_.push_back(op);
    }
    add_memory(id, op);
    return id;
  }

  // A programmed op: its steps one after the other, the first waiting for
  // the op's inputs (recomputes wait for the gradient, as the op would);
  // the program's memory on each, the op's cross-device buffers on the last.
  TaskId emit_steps(Task task, int op, const std::vector<TaskId>& deps) {
    const std::vector<OpStep>& steps = t_.steps[op];
    TaskId id = kNoTask;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const OpStep& step = steps[k];
      task.kind = step.kind;
      task.amount = step.flops;
      task.layer_first = task.layer_last = task.stage = step.layer;
      if (k > 0 && timed_) period_.push_back(period_.back());
      id = k == 0 ? graph_.add(task, deps) : graph_.add(task, {id});
      if (timed_) {
        duration_.push_back(step.duration);
        op_.push_back(op);
      }
      graph_.add_memory(id, task.device, MemoryCategory::Activations, MemoryWhen::AtStart, step.at_start);
      graph_.add_memory(id, task.device, MemoryCategory::Activations, MemoryWhen::AtFinish, step.at_finish);
    }
    add_memory(id, op);
    return id;
  }

  // Tasks emitted before an op's own one: its program's recomputes.
  std::size_t prelude(int op) const { return t_.programmed(op) ? t_.steps[op].size() - 1 : 0; }

  // An op's tasks are consecutive ids ending with its own.
  void append_op_to_order(TaskId id, int op) {
    for (TaskId k = id - prelude(op); k <= id; ++k) graph_.append_to_order(k);
  }

  // Whether op's output is held by its transfer (lifetime), not by op itself.
  bool sent_by_transfer(int op) const {
    return p_.buffers == BufferPolicy::Lifetime && transfer_[op] >= 0 && t_.output_bytes[op] > 0;
  }
  // Whether op's input is held by the transfer that brought it (lifetime).
  bool received_by_transfer(int op) const { return pred_[op] >= 0 && sent_by_transfer(pred_[op]); }

  // See docs/memory-model.md: under seed000 memory only rises when a task
  // starts; under lifetime a transfer also allocates its receiver's buffer
  // when it starts and frees its sender's copy when it ends.
  void add_memory(TaskId id, int op) {
    constexpr auto Act = MemoryCategory::Activations;
    constexpr auto Buf = MemoryCategory::CommBuffers;
    constexpr auto Start = MemoryWhen::AtStart;
    constexpr auto Finish = MemoryWhen::AtFinish;
    const int dev = p_.ops[op].device;
    const bool prev_here = same_device(op, pred_[op]), next_here = same_device(op, succ_[op]);
    const bool received = received_by_transfer(op), sent = sent_by_transfer(op);
    const double out = t_.output_bytes[op];
    if (t_.programmed(op)) {
      // The program holds the stage's tensors (its steps' memory); left
      // here are the copies sent to and received from other devices.
      const bool forward = p_.ops[op].kind == TaskKind::Forward;
      if (forward && received) graph_.add_memory(id, dev, Buf, Finish, -t_.output_bytes[backward_of_[op]]);
      if (!forward && !prev_here) {
        const double in = t_.output_bytes[pred_[op]];
        if (!received) graph_.add_memory(id, dev, Buf, Start, in);
        graph_.add_memory(id, dev, Buf, Finish, -in);
      }
      if (!next_here) {
        graph_.add_memory(id, dev, Buf, Start, out);
        if (!sent) graph_.add_memory(id, dev, Buf, Finish, -out);
      }
      return;
    }
    if (p_.ops[op].kind == TaskKind::Forward) {
      const double in = t_.output_bytes[backward_of_[op]];  // a_{l-1}: becomes the stash
      graph_.add_memory(id, dev, Act, Start, in);
      if (prev_here) graph_.add_memory(id, dev, Buf, Start, -in);  // the direct dependency, now the stash
      if (received) graph_.add_memory(id, dev, Buf, Finish, -in);  // the received buffer, once consumed
      graph_.add_memory(id, dev, Buf, Start, out);
      if (!next_here && !sent) graph_.add_memory(id, dev, Buf, Finish, -out);  // else a direct dependency, or sent
      return;
    }
    const double in = t_.output_bytes[pred_[op]];
    if (!prev_here && !received) graph_.add_memory(id, dev, Buf, Start, in);  // else already held
    graph_.add_memory(id, dev, Buf, Start, out);
    graph_.add_memory(id, dev, Buf, Finish, -in);
    graph_.add_memory(id, dev, Act, Finish, -out);  // the stash a_{l-1} of this layer and micro-batch
    if (!next_here && !sent) graph_.add_memory(id, dev, Buf, Finish, -out);
  }

  void make_device_orders() {
    std::vector<std::vector<std::size_t>> order(graph_.device_count());
    for (std::size_t o = 0; o < p_.ops.size(); ++o)
      for (std::size_t i : op_inst_[o]) order[p_.ops[o].device].push_back(i);
    for (auto& list : order) {
      std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) { return earlier(inst_[a], inst_[b]); });
      for (std::size_t i : list) append_op_to_order(id_[i], inst_[i].item);
    }
  }

  // Weights and gradients per weight policy; under seed000, one
  // communication buffer per cross-device edge end (seed 000 eqs. 33-35).
  void add_static_memory() {
    const int D = graph_.device_count();
    std::vector<std::vector<char>> holds(D, std::vector<char>(p_.layers, 0));
    for (const PatternOp& o : p_.ops) holds[o.device][o.layer] = 1;
    const std::vector<int> in_flight = max_in_flight();
    for (int d = 0; d < D; ++d) {
      double w = 0;
      for (int l = 0; l < p_.layers; ++l)
        if (holds[d][l]) w += t_.weights[l];
      graph_.add_static_memory(d, MemoryCategory::Weights, weight_versions(p_.weights, in_flight[d]) * w);
      graph_.add_static_memory(d, MemoryCategory::Gradients, w);
    }
    if (p_.buffers != BufferPolicy::Seed000) return;
    std::vector<double> buffers(D, 0);
    for (std::size_t i = 0; i < p_.ops.size(); ++i)
      if (succ_[i] >= 0 && !same_device(static_cast<int>(i), succ_[i])) {
        buffers[p_.ops[i].device] += t_.output_bytes[i];
        buffers[p_.ops[succ_[i]].device] += t_.output_bytes[i];
      }
    for (int d = 0; d < D; ++d) graph_.add_static_memory(d, MemoryCategory::CommBuffers, buffers[d]);
  }

  // Per device, the most micro-batches any one layer has between the start
  // of its forward and the end of its backward, replayed along the device order.
  std::vector<int> max_in_flight() const {
    std::vector<int> result(graph_.device_count(), 0);
    for (int d = 0; d < graph_.device_count(); ++d) {
      std::vector<int> count(p_.layers, 0);
      for (TaskId id : graph_.device_order(d)) {
        const Task& task = graph_.task(id);
        if (task.kind == TaskKind::Forward)
          result[d] = std::max(result[d], ++count[task.layer_first]);
        else if (task.kind == TaskKind::Backward)
          --count[task.layer_first];
      }
    }
    return result;
  }

  const Pattern& p_;
  const PatternTiming& t_;
  const int n_, per_it_;
  const bool timed_;  // fill duration_, op_ and period_
  TaskGraph graph_;
  std::vector<int> succ_, pred_, transfer_, backward_of_;
  std::vector<std::vector<int>> on_link_, links_of_;  // transfers per link resource, resources per transfer
  std::vector<Instance> inst_;
  std::vector<std::vector<std::size_t>> op_inst_, tr_inst_;
  std::vector<TaskId> id_;
  std::vector<double> duration_;
  std::vector<int> op_;
  std::vector<long long> period_;
};

}  // namespace

namespace unroll_internal {
Unrolled unroll(const Pattern& pattern, const PatternTiming& timing, int device_count, int microbatches,
                int microbatches_per_iteration, bool timed, Method method) {
  Unroller u(pattern, timing, device_count, microbatches, microbatches_per_iteration, timed);
  const bool pattern_order = u.build(method);
  return {u.result(), pattern_order};
}
}  // namespace unroll_internal

TaskGraph unroll_pattern(const Pattern& pattern, const PatternTiming& timing, int device_count, int microbatches,
                         int microbatches_per_iteration) {
  using namespace unroll_internal;
  return unroll(pattern, timing, device_count, microbatches, microbatches_per_iteration, false, Method::Automatic)
      .unroll.graph;
}

TimedUnroll unroll_pattern_timed(const Pattern& pattern, const PatternTiming& timing, int device_count,
                                 int microbatches) {
  using namespace unroll_internal;
  return unroll(pattern, timing, device_count, microbatches, 0, true, Method::Automatic).unroll;
}

}  // namespace pipesim
