#include "schedules/stages/pipeline_builder.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "schedules/stages/stage_merge.hpp"

namespace pipesim {
namespace {

constexpr TaskId kNone = static_cast<TaskId>(-1);
using Ids = std::vector<std::vector<TaskId>>;  // [stage][microbatch]

int count_microbatches(const std::vector<StageSequence>& sequences) {
  const int M = static_cast<int>(sequences.at(0).size() / 2);
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    std::vector<int> seen_f(M, 0), seen_b(M, 0);
    if (sequences[s].size() != static_cast<std::size_t>(2 * M))
      throw std::logic_error("pipeline builder: stages disagree on the micro-batch count");
    for (const Op& op : sequences[s]) {
      if (op.microbatch < 0 || op.microbatch >= M) throw std::logic_error("pipeline builder: micro-batch out of range");
      if (op.kind == TaskKind::Forward)
        ++seen_f[op.microbatch];
      else if (op.kind == TaskKind::Backward)
        ++seen_b[op.microbatch];
      else
        throw std::logic_error("pipeline builder: only Forward and Backward are supported");
    }
    for (int m = 0; m < M; ++m)
      if (seen_f[m] != 1 || seen_b[m] != 1)
        throw std::logic_error("pipeline builder: stage " + std::to_string(s) + " must run F and B of micro-batch " +
                               std::to_string(m) + " once");
  }
  return M;
}

class Builder {
 public:
  Builder(const StagePlan& plan, int M, int device_count, StageComputeEmitter* compute)
      : plan_(plan),
        S_(static_cast<int>(plan.stages.size())),
        M_(M),
        graph_(device_count),
        compute_(compute),
        shared_(shares_devices(plan)) {
    for (const Stage& st : plan.stages) {
      graph_.add_static_memory(st.device, MemoryCategory::Weights, st.weight_bytes);
      graph_.add_static_memory(st.device, MemoryCategory::Gradients, st.weight_bytes);
    }
  }

  // Room for `iterations` of this pipeline: F and B per stage and
  // micro-batch, plus their transfers, each with at most one dependency.
  void reserve(int iterations) {
    std::size_t per_microbatch = 0;
    for (int s = 0; s < S_; ++s) per_microbatch += 2 + forward_sent(s) + gradient_sent(s);
    const std::size_t tasks = per_microbatch * static_cast<std::size_t>(M_) * static_cast<std::size_t>(iterations);
    graph_.reserve(tasks, tasks);
  }

  void iteration(int it, const std::vector<StageSequence>& sequences) {
    it_ = it;
    forward_.assign(S_, std::vector<TaskId>(M_, kNone));
    backward_ = output_transfer_ = gradient_transfer_ = forward_;
    if (shared_) {
      // Several stages on a device: the device runs them in one merged order
      // (stage_merge.hpp), so the tasks are emitted in that order.
      if (merged_.empty()) merged_ = merge_stage_sequences(sequences);
      for (const StageOp& x : merged_) {
        if (!ready(x.stage, x.op)) throw std::logic_error("pipeline builder: the merged order breaks a dependency");
        add(x.stage, x.op);
      }
      return;
    }
    std::vector<std::size_t> pos(S_, 0);
    // Emit tasks in a global order that puts every dependency first: advance
    // each stage while its next op's producer exists.
    for (std::size_t done = 0, total = 2 * M_ * S_; done < total;) {
      bool progress = false;
      for (int s = 0; s < S_; ++s) {
        while (pos[s] < sequences[s].size() && ready(s, sequences[s][pos[s]])) {
          add(s, sequences[s][pos[s]++]);
          ++done;
          progress = true;
        }
      }
      if (!progress) throw std::logic_error("pipeline builder: the stage sequences deadlock");
    }
  }

  TaskGraph take() { return std::move(graph_); }

 private:
  // Sending stage `from`'s output forward (or its input gradient backward).
  bool forward_sent(int s) const {
    return s + 1 < S_ && stage(s).device != stage(s + 1).device && stage(s).output_bytes > 0;
  }
  bool gradient_sent(int s) const {  // from s to s-1
    return s > 0 && stage(s).device != stage(s - 1).device && stage(s).input_bytes > 0;
  }
  // The same tensors handed to a stage on the same device: no transfer, one
  // copy held from the producer's start to the consumer's finish (memory-model.md).
  bool forward_kept(int s) const {
    return s + 1 < S_ && stage(s).device == stage(s + 1).device && stage(s).output_bytes > 0;
  }
  bool gradient_kept(int s) const {
    return s > 0 && stage(s).device == stage(s - 1).device && stage(s).input_bytes > 0;
  }
  const Stage& stage(int s) const { return plan_.stages[s]; }

  bool ready(int s, const Op& op) const {
    if (op.kind == TaskKind::Forward) return s == 0 || forward_[s - 1][op.microbatch] != kNone;
    return s == S_ - 1 ? forward_[s][op.microbatch] != kNone : backward_[s + 1][op.microbatch] != kNone;
  }

  Task base(TaskKind kind, int s, int m) const {
    Task t;
    t.kind = kind;
    t.device = stage(s).device;
    t.stage = s;
    t.layer_first = stage(s).first_layer;
    t.layer_last = stage(s).last_layer;
    t.microbatch = m;
    t.iteration = it_;
    t.priority = static_cast<double>(it_) * M_ + m;  // older micro-batches first
    return t;
  }

  void add(int s, const Op& op) {
    if (op.kind == TaskKind::Forward)
      add_forward(s, op.microbatch);
    else
      add_backward(s, op.microbatch);
  }

  // F(s, m), after stage s-1's output reached it (its transfer, or its
  // forward on the same device); then the output's transfer to s+1.
  void add_forward(int s, int m) {
    const int dev = stage(s).device;
    Task t = base(TaskKind::Forward, s, m);
    t.amount = stage(s).forward_flops;
    const TaskId in = s == 0 ? kNone : (forward_sent(s - 1) ? output_transfer_[s - 1][m] : forward_[s - 1][m]);
    const TaskId id = compute(t, in);
    if (s > 0 && (forward_sent(s - 1) || forward_kept(s - 1)))
      graph_.add_memory(id, dev, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -stage(s - 1).output_bytes);
    forward_[s][m] = id;
    if (forward_sent(s) || forward_kept(s))
      graph_.add_memory(id, dev, MemoryCategory::CommBuffers, MemoryWhen::AtStart, stage(s).output_bytes);
    if (forward_sent(s)) output_transfer_[s][m] = transfer(s, s + 1, m, stage(s).output_bytes, id);
  }

  // B(s, m), after stage s+1's input gradient reached it (the last stage:
  // after its own forward); then the input gradient's transfer to s-1.
  void add_backward(int s, int m) {
    const int dev = stage(s).device;
    Task t = base(TaskKind::Backward, s, m);
    t.amount = stage(s).backward_flops;
    const TaskId in =
        s == S_ - 1 ? forward_[s][m] : (gradient_sent(s + 1) ? gradient_transfer_[s][m] : backward_[s + 1][m]);
    const TaskId id = compute(t, in);
    if (s + 1 < S_ && (gradient_sent(s + 1) || gradient_kept(s + 1)))
      graph_.add_memory(id, dev, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -stage(s + 1).input_bytes);
    backward_[s][m] = id;
    if (gradient_sent(s) || gradient_kept(s))
      graph_.add_memory(id, dev, MemoryCategory::CommBuffers, MemoryWhen::AtStart, stage(s).input_bytes);
    if (gradient_sent(s)) gradient_transfer_[s - 1][m] = transfer(s, s - 1, m, stage(s).input_bytes, id);
  }

  // F(s,m) or B(s,m) after `in`: one task holding the stash from F's start to
  // B's finish, or the emitter's tasks.
  TaskId compute(const Task& t, TaskId in) {
    const std::vector<TaskId> deps = in == kNone ? std::vector<TaskId>{} : std::vector<TaskId>{in};
    if (compute_ != nullptr && compute_->replaces(t.stage)) return compute_->emit(graph_, t, deps);
    const TaskId id = graph_.add(t, deps);
    graph_.append_to_order(id);
    const bool forward = t.kind == TaskKind::Forward;
    graph_.add_memory(id, t.device, MemoryCategory::Activations, forward ? MemoryWhen::AtStart : MemoryWhen::AtFinish,
                      forward ? stage(t.stage).stash_bytes : -stage(t.stage).stash_bytes);
    return id;
  }

  // Transfer of `bytes` from stage `from` to its neighbour `to`, after `producer`.
  TaskId transfer(int from, int to, int m, double bytes, TaskId producer) {
    Task t = base(TaskKind::Transfer, from, m);
    t.peer = stage(to).device;
    t.amount = bytes;
    // The tensor crossing the boundary: output of the lower stage's last layer.
    t.layer_first = t.layer_last = stage(std::min(from, to)).last_layer;
    const TaskId id = graph_.add(t, {producer});
    graph_.add_memory(id, t.device, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -bytes);
    graph_.add_memory(id, t.peer, MemoryCategory::CommBuffers, MemoryWhen::AtStart, bytes);
    return id;
  }

  const StagePlan& plan_;
  int S_, M_;
  int it_ = 0;
  TaskGraph graph_;
  Ids forward_, backward_;       // F(s, m), B(s, m)
  Ids output_transfer_;          // [s][m]: F(s, m)'s output, s -> s+1
  Ids gradient_transfer_;        // [s][m]: B(s+1, m)'s input gradient, s+1 -> s
  std::vector<StageOp> merged_;  // one iteration's order when stages share a device
  StageComputeEmitter* compute_;
  bool shared_;  // some device runs several stages
};

}  // namespace

TaskGraph build_pipeline(const StagePlan& plan, const std::vector<StageSequence>& sequences, int iterations,
                         int device_count, StageComputeEmitter* compute) {
  if (plan.stages.empty()) throw std::logic_error("pipeline builder: no stages");
  if (sequences.size() != plan.stages.size())
    throw std::logic_error("pipeline builder: one sequence per stage expected");
  if (iterations < 1) throw std::logic_error("pipeline builder: iterations must be positive");
  const int M = count_microbatches(sequences);
  if (M < 1) throw std::logic_error("pipeline builder: no micro-batches");
  Builder builder(plan, M, device_count, compute);
  builder.reserve(iterations);
  for (int it = 0; it < iterations; ++it) builder.iteration(it, sequences);
  return builder.take();
}

}  // namespace pipesim
