#include "schedules/memory_saving/sequence_graph_internal.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pipesim::memory_saving {

namespace {

constexpr TaskId kNoTask = static_cast<TaskId>(-1);
constexpr auto kActivations = MemoryCategory::Activations;

}  // namespace

SequenceEmitter::SequenceEmitter(TaskGraph& graph, const Chain& chain, const ChainPlacement& where)
    : graph_(graph),
      chain_(chain),
      where_(where),
      plain_(chain.length() + 1, false),
      tape_(chain.length() + 1, false),
      forwarded_(chain.length() + 1, false),
      on_host_(chain.length() + 1, false),
      host_tape_(chain.length() + 1, false),
      prefetch_(chain.length() + 1, kNoTask),
      offload_(chain.length() + 1, kNoTask),
      last_gpu_(kNoTask),
      last_link_(kNoTask),
      gradient_(chain.length()) {}

double SequenceEmitter::host_size(int i) const { return host_tape_[i] ? chain_.layers[i - 1].tape_size : chain_.a(i); }

Task SequenceEmitter::make(TaskKind kind, int layer) const {
  Task t;
  t.kind = kind;
  t.device = where_.gpu;
  t.stage = where_.stage;
  t.layer_first = t.layer_last = where_.first_layer + layer - 1;
  t.microbatch = where_.microbatch;
  t.iteration = where_.iteration;
  t.priority = where_.priority;
  return t;
}

TaskId SequenceEmitter::add(Task task, std::vector<TaskId> deps, bool gpu_order) {
  deps.insert(deps.end(), after_.begin(), after_.end());  // set by emit() for its first GPU task and transfer
  deps.erase(std::remove(deps.begin(), deps.end(), kNoTask), deps.end());
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  const TaskId id = graph_.add(task, deps);
  if (gpu_order) {
    graph_.append_to_order(id);
    last_gpu_ = id;
  } else {
    last_link_ = id;
  }
  return id;
}

std::vector<TaskId> SequenceEmitter::emit(const std::vector<Step>& steps, const std::vector<TaskId>& after) {
  std::vector<TaskId> ids;
  ids.reserve(steps.size());
  // after_ applies to the first GPU task and the first transfer of this call.
  bool gpu_waited = after.empty(), link_waited = after.empty();
  for (std::size_t n = 0; n < steps.size(); ++n) {
    const auto [kind, i] = steps[n];
    step_index_ = n, step_ = steps[n];
    if (i < 1 || i > chain_.length()) fail("no such layer");
    const bool transfer = kind == OpKind::Offload || kind == OpKind::Prefetch;
    if (transfer && where_.host_memory < 0) fail("no host memory to transfer to");
    after_ = (transfer ? link_waited : gpu_waited) ? std::vector<TaskId>{} : after;
    (transfer ? link_waited : gpu_waited) = true;
    switch (kind) {
      case OpKind::ForwardAll:
      case OpKind::ForwardCheckpoint:
      case OpKind::ForwardNone:
        ids.push_back(add_forward(kind, i));
        break;
      case OpKind::Backward:
        ids.push_back(add_backward(i));
        break;
      case OpKind::Offload:
        ids.push_back(add_offload(i));
        break;
      case OpKind::Prefetch:
        ids.push_back(add_prefetch(i));
        break;
      case OpKind::Free:
        ids.push_back(add_free(i));
        break;
      default:
        ids.push_back(kNoTask);
    }
  }
  after_.clear();
  return ids;
}

void SequenceEmitter::fail(const std::string& why) const {
  throw std::logic_error("sequence graph: step " + std::to_string(step_index_) + " (" + op_kind_name(step_.first) +
                         " " + std::to_string(step_.second) + "): " + why);
}

bool SequenceEmitter::input_there(int i) const { return i == 1 || plain_[i - 1] || tape_[i - 1]; }

// a^{i-1}, held plain (not in a tape), is freed when TASK, its last use, finishes.
void SequenceEmitter::free_input(int i, TaskId task) {
  if (i == 1 || !plain_[i - 1]) return;
  plain_[i - 1] = false;
  graph_.add_memory(task, where_.gpu, kActivations, MemoryWhen::AtFinish, -chain_.a(i - 1));
}

// F_all^i, F_ck^i or F_∅^i (OpKind says what each keeps).
TaskId SequenceEmitter::add_forward(OpKind kind, int i) {
  const int gpu = where_.gpu, host = where_.host_memory;
  const ChainLayer& layer = chain_.layers[i - 1];
  if (!input_there(i)) fail("input activation missing");
  const bool all = kind == OpKind::ForwardAll;
  if (all ? tape_[i] : (plain_[i] || tape_[i])) fail("output already there");
  Task t = make(forwarded_[i] ? TaskKind::Recompute : TaskKind::Forward, i);
  t.amount = layer.forward_time * where_.gpu_speed;
  const TaskId id = add(t, {prefetch_[i - 1]}, true);
  forwarded_[i] = true;
  graph_.add_memory(id, gpu, kActivations, MemoryWhen::AtStart,
                    (all ? layer.tape_size : layer.output_size) + layer.forward_overhead);
  graph_.add_memory(id, gpu, kActivations, MemoryWhen::AtFinish, -layer.forward_overhead);
  if (all && plain_[i]) graph_.add_memory(id, gpu, kActivations, MemoryWhen::AtFinish, -layer.output_size);
  if (all) plain_[i] = false;
  (all ? tape_ : plain_)[i] = true;
  if (on_host_[i]) {  // recomputed: the host copy is stale (replay_with_transfers forgets it too)
    graph_.add_memory(id, host, kActivations, MemoryWhen::AtFinish, -host_size(i));
    on_host_[i] = false;
  }
  prefetch_[i] = kNoTask;  // recomputed: a later use waits for this forward, in the GPU order
  if (kind == OpKind::ForwardNone) free_input(i, id);
  return id;
}

// B^i: consumes δ^i and the tape ā^i, yields δ^{i-1}.
TaskId SequenceEmitter::add_backward(int i) {
  const ChainLayer& layer = chain_.layers[i - 1];
  if (gradient_ != i) fail("gradient missing");
  if (!tape_[i]) fail("tape missing");
  if (!input_there(i)) fail("input activation missing");
  Task t = make(TaskKind::Backward, i);
  t.amount = layer.backward_time * where_.gpu_speed;
  const TaskId id = add(t, {prefetch_[i - 1], prefetch_[i]}, true);
  graph_.add_memory(id, where_.gpu, kActivations, MemoryWhen::AtStart, chain_.delta(i - 1) + layer.backward_overhead);
  graph_.add_memory(id, where_.gpu, kActivations, MemoryWhen::AtFinish,
                    -(layer.backward_overhead + chain_.delta(i) + layer.tape_size));
  tape_[i] = false;
  gradient_ = i - 1;
  free_input(i, id);
  return id;
}

TaskId SequenceEmitter::add_offload(int i) {
  const int host = where_.host_memory;
  const ChainLayer& layer = chain_.layers[i - 1];
  if (!plain_[i] && !tape_[i]) fail("nothing to offload (a^i not on the GPU)");
  Task t = make(TaskKind::Offload, i);
  t.peer = host;
  t.amount = tape_[i] ? layer.tape_size : layer.output_size;  // after F_all^i the tape ā^i moves
  const TaskId id = add(t, {last_link_, last_gpu_, prefetch_[i]}, false);
  graph_.add_memory(id, host, kActivations, MemoryWhen::AtStart, t.amount);
  if (on_host_[i]) graph_.add_memory(id, host, kActivations, MemoryWhen::AtStart, -host_size(i));  // replaced
  on_host_[i] = true;
  host_tape_[i] = tape_[i];
  offload_[i] = id;
  return id;
}

TaskId SequenceEmitter::add_prefetch(int i) {
  const int gpu = where_.gpu, host = where_.host_memory;
  if (!on_host_[i]) fail("nothing to prefetch (a^i never offloaded)");
  if (plain_[i] || tape_[i]) fail("a^i already on the GPU");
  Task t = make(TaskKind::Prefetch, i);
  t.device = host;
  t.peer = gpu;
  t.amount = host_size(i);
  const TaskId id = add(t, {last_link_, last_gpu_}, false);
  graph_.add_memory(id, gpu, kActivations, MemoryWhen::AtStart, t.amount);
  graph_.add_memory(id, host, kActivations, MemoryWhen::AtFinish, -t.amount);
  on_host_[i] = false;
  (host_tape_[i] ? tape_ : plain_)[i] = true;
  prefetch_[i] = id;
  return id;
}

TaskId SequenceEmitter::add_free(int i) {
  const int gpu = where_.gpu, host = where_.host_memory;
  const ChainLayer& layer = chain_.layers[i - 1];
  if (!plain_[i] && !tape_[i]) fail("nothing to free (a^i not on the GPU)");
  Task t = make(TaskKind::Offload, i);  // zero bytes: completes at once, in the GPU order
  t.peer = host >= 0 ? host : gpu;
  const TaskId id = add(t, {offload_[i], prefetch_[i]}, true);
  graph_.add_memory(id, gpu, kActivations, MemoryWhen::AtStart, -(tape_[i] ? layer.tape_size : layer.output_size));
  plain_[i] = tape_[i] = false;
  offload_[i] = kNoTask;
  return id;
}

void SequenceEmitter::release_host_copies(TaskId task) {
  for (int i = 1; i <= chain_.length(); ++i)
    if (on_host_[i]) {
      graph_.add_memory(task, where_.host_memory, kActivations, MemoryWhen::AtFinish, -host_size(i));
      on_host_[i] = false;
    }
}

std::vector<Step> steps_of(const std::vector<Operation>& ops) {
  std::vector<Step> steps;
  steps.reserve(ops.size());
  for (const Operation& op : ops) steps.push_back({op.kind, op.layer});
  return steps;
}

std::vector<TaskId> append_chain_sequence(TaskGraph& graph, const Chain& chain, const std::vector<Operation>& ops,
                                          const ChainPlacement& where) {
  if (ops.empty()) return {};
  SequenceEmitter emitter(graph, chain, where);
  const std::vector<TaskId> ids = emitter.emit(steps_of(ops));
  graph.add_memory(ids.front(), where.gpu, kActivations, MemoryWhen::AtStart,
                   chain.input_size + chain.delta(chain.length()));
  const TaskId last = emitter.last_gpu_task();
  graph.add_memory(last, where.gpu, kActivations, MemoryWhen::AtFinish,
                   -(chain.input_size + chain.input_gradient_size));
  emitter.release_host_copies(last);
  return ids;
}

}  // namespace pipesim::memory_saving
