#include "parallelism/job_builder.hpp"

#include "parallelism/job.hpp"
#include "parallelism/pass_collectives.hpp"
#include "sim/units.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

namespace pipesim {
namespace {

// Why SPEC does not run as a ring (a folded collective must): empty when it does.
std::string not_a_ring(const CollectiveSpec& spec, const Platform& platform, const std::string& kind) {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  try {
    algorithm = choose_algorithm(spec, platform);
  } catch (const std::invalid_argument&) {
    return "a " + kind + " collective is refused (the unfolded run says why)";
  }
  if (algorithm == CollectiveAlgorithm::Ring) return {};
  return "a " + kind + " " + std::string(to_string(spec.op)) + " of " + format_bytes(spec.bytes) + " runs as a " +
         std::string(to_string(algorithm)) + ", not a ring";
}

std::string pass_name(TaskKind kind) {
  return kind == TaskKind::Forward || kind == TaskKind::Recompute ? "tp forward" : "tp backward";
}

}  // namespace

JobBuilder::JobBuilder(const TaskGraph& pipeline, const Workload& w, const Platform& platform, const RankMap& map,
                       int folded, bool fold_tp)
    : pipe_(pipeline),
      w_(w),
      platform_(platform),
      map_(map),
      fold_(folded > 0),
      fold_tp_(fold_tp && map.tp > 1),
      built_dp_(folded > 0 ? folded : map.dp),
      built_tp_(fold_tp_ ? 1 : map.tp),
      job_(platform.size()),
      first_(pipeline.size() * static_cast<std::size_t>(built_tp_ * built_dp_), kNone),
      last_(first_.size(), kNone),
      order_previous_(pipeline.size(), kNone),
      deferred_(pipeline.size(), false),
      reduced_(static_cast<std::size_t>(map.pp) * built_tp_ * built_dp_),
      tied_(reduced_.size()),
      normed_(reduced_.size()),
      first_deferred_(map.pp, kNone),
      sends_(map.pp),
      sent_by_(w.parallel.overlap_p2p ? 0 : pipeline.size()),
      buckets_(map.pp),
      weight_bytes_(map.pp, 0) {
  pipe_.for_each_order_link([&](TaskId previous, TaskId next) { order_previous_[next] = previous; });
  // The gradient norm and the optimizer step wait for the reduced
  // gradients: they and whatever depends on them are copied after the reduction.
  for (TaskId x = 0; x < pipe_.size(); ++x) {
    const Task task = pipe_.task(x);
    const bool starts = task.kind == TaskKind::GradientNorm || task.kind == TaskKind::Update;
    deferred_[x] = starts;
    for (const TaskId* y = pipe_.deps_begin(x); y != pipe_.deps_end(x) && !deferred_[x]; ++y)
      deferred_[x] = deferred_[*y];
    if (starts && task.device >= 0 && task.device < map_.pp && first_deferred_[task.device] == kNone)
      first_deferred_[task.device] = x;
    if (task.kind == TaskKind::Transfer && task.peer != task.device && !deferred_[x] && task.device >= 0 &&
        task.device < map_.pp) {
      sends_[task.device].push_back(x);
      if (!sent_by_.empty())
        for (const TaskId* y = pipe_.deps_begin(x); y != pipe_.deps_end(x); ++y)
          if (pipe_.task(*y).device == task.device) sent_by_[*y].push_back(x);
    }
  }
  plan_copy_order();
  plan_buckets();
  plan_weight_gathers();
}

// The passes are copied after what they wait for, their order predecessor
// included (with its TP collectives), so a task that runs after a later-made
// one on its device (zero-bubble orders: an F after an I) still waits for
// that pass's collectives. Smallest id first among the ready: a pipeline whose
// orders follow its ids is copied in id order. A deadlocking order (a cycle)
// leaves its tasks to id order; the engine explains the deadlock.
void JobBuilder::plan_copy_order() {
  const std::size_t n = pipe_.size();
  std::vector<std::vector<TaskId>> after(n);
  std::vector<int> waiting(n, 0);
  for (TaskId x = 0; x < n; ++x) {
    for (const TaskId* y = pipe_.deps_begin(x); y != pipe_.deps_end(x); ++y) after[*y].push_back(x), ++waiting[x];
    if (order_previous_[x] == kNone) continue;
    after[order_previous_[x]].push_back(x), ++waiting[x];
    for (const TaskId send : held_by_sends(x)) after[send].push_back(x), ++waiting[x];
  }
  std::priority_queue<TaskId, std::vector<TaskId>, std::greater<>> ready;
  for (TaskId x = 0; x < n; ++x)
    if (waiting[x] == 0) ready.push(x);
  std::vector<bool> placed(n, false);
  while (!ready.empty()) {
    const TaskId x = ready.top();
    ready.pop();
    copy_order_.push_back(x);
    placed[x] = true;
    for (const TaskId y : after[x])
      if (--waiting[y] == 0) ready.push(y);
  }
  for (TaskId x = 0; x < n; ++x) {
    if (placed[x]) continue;
    copy_order_.push_back(x);
    const TaskId previous = order_previous_[x];
    if (previous != kNone && !placed[previous] && previous > x) order_previous_[x] = kNone;  // not copied yet
  }
}

// The pipeline sends a pass waits for without overlap_p2p: those of the pass
// before it on its device (Megatron's point-to-point calls wait on their
// requests before the next pass).
const std::vector<TaskId>& JobBuilder::held_by_sends(TaskId x) const {
  static const std::vector<TaskId> none;
  const TaskId previous = order_previous_[x];
  if (w_.parallel.overlap_p2p || previous == kNone || is_transfer(pipe_.task(x).kind)) return none;
  return sent_by_[previous];
}

bool JobBuilder::scatters(TaskId x) const { return !deferred_[x] && scattered_transfer(pipe_.task(x), w_, map_.tp); }

// Each TP rank received 1/tp of the tensor: the receiving group all-gathers it
// before the pass that reads it.
void JobBuilder::gather_after_transfer(TaskId x, int d) {
  if (!scatters(x)) return;
  const Task task = pipe_.task(x);
  std::vector<std::vector<TaskId>> ready(built_tp_);
  for (int t = 0; t < built_tp_; ++t) ready[t] = {last_[slot(x, replica(t, d))]};
  // NCCL's choice for an all-gather (a ring), whatever tp_algorithm asks of the layers' collectives.
  const auto done = collective(CollectiveOp::AllGather, "auto", map_.tp_group(d, task.peer), task.amount,
                               "pipeline gather", ready, task, fold_tp_);
  for (int t = 0; t < built_tp_; ++t) last_[slot(x, replica(t, d))] = done[t];
}

void JobBuilder::copy_passes() {
  for (const TaskId x : copy_order_) {
    if (deferred_[x]) continue;
    gather_weights_before(x);
    for (int d = 0; d < built_dp_; ++d) {
      for (int t = 0; t < built_tp_; ++t) copy_task(x, replica(t, d), {});
      add_tp_collectives(x, d);
      gather_after_transfer(x, d);
    }
  }
}

// The gradient norms first, then their all-reduce, then the steps and what follows them.
void JobBuilder::copy_deferred() {
  for (TaskId x = 0; x < pipe_.size(); ++x)
    if (deferred_[x] && pipe_.task(x).kind == TaskKind::GradientNorm) copy_deferred_task(x);
  sum_gradient_norms();
  for (TaskId x = 0; x < pipe_.size(); ++x)
    if (deferred_[x] && pipe_.task(x).kind != TaskKind::GradientNorm) copy_deferred_task(x);
}

// What a device's pipeline sends in replica r. Megatron's point-to-point
// calls wait on their requests (and 2021's _communicate then synchronizes
// the device), so the end of the iteration starts once the device's last
// send is done: the pipeline's norm and step already wait for them
// (training_state.cpp); the tied embeddings' sum, built here, waits too.
std::vector<TaskId> JobBuilder::sent(int p, int r) const {
  std::vector<TaskId> out;
  for (const TaskId x : sends_[p]) out.push_back(last_[slot(x, r)]);
  return out;
}

// A device's first deferred task (its norm, else its step) waits for its
// reduced and summed gradients; a step after a norm, for the norms' all-reduce.
void JobBuilder::copy_deferred_task(TaskId x) {
  const Task task = pipe_.task(x);
  const bool on_device = task.device >= 0 && task.device < map_.pp;
  const bool first = on_device && first_deferred_[task.device] == x;
  const bool step = on_device && task.kind == TaskKind::Update;
  gather_weights_before(x);
  for (int d = 0; d < built_dp_; ++d)
    for (int t = 0; t < built_tp_; ++t) {
      const int r = replica(t, d);
      std::vector<TaskId> after;
      if (on_device) {
        const std::size_t i = at(task.device, r);
        if (first) {
          after = reduced_[i];
          after.insert(after.end(), tied_[i].begin(), tied_[i].end());
        } else if (step) {
          after = normed_[i];
        }
      }
      copy_task(x, r, after);
    }
  if (step) gather_weights(x);
}

// Megatron-core (optimizer/distrib_optimizer.py, get_grad_stats_parallel_group)
// sums the norm over each replica's model-parallel ranks, or over every rank
// with the distributed optimizer, whose ranks hold shards. pipesim sums it
// one layout dimension at a time: over each stage's TP group, then over each
// TP rank's stages, then (ZeRO) over each rank's DP group, a ring. The same
// sum, in shapes the relabelling of replicas or of TP ranks maps onto
// themselves, so the job still folds (NCCL would run one all-reduce over
// every rank: a few latencies apart, docs/parallelism.md#the-end-of-the-iteration).
void JobBuilder::sum_gradient_norms() {
  std::vector<int> stages;
  for (int p = 0; p < map_.pp; ++p)
    if (first_deferred_[p] != kNone && pipe_.task(first_deferred_[p]).kind == TaskKind::GradientNorm)
      stages.push_back(p);
  if (stages.empty()) return;
  field_ = "optimizer.clip_grad";
  const Task tag = pipe_.task(first_deferred_[stages.front()]);
  const auto summed = [&](int p, int r) {  // the norm as summed so far on rank (p, r)
    const std::vector<TaskId>& done = normed_[at(p, r)];
    return done.empty() ? std::vector<TaskId>{last_[slot(first_deferred_[p], r)]} : done;
  };
  if (map_.tp > 1)
    for (int d = 0; d < built_dp_; ++d)
      for (const int p : stages) {
        std::vector<std::vector<TaskId>> ready(built_tp_);
        for (int t = 0; t < built_tp_; ++t) ready[t] = summed(p, replica(t, d));
        const auto done = collective(CollectiveOp::AllReduce, "auto", map_.tp_group(d, p), 4, kTpGradientNormPurpose,
                                     ready, tag, fold_tp_);
        for (int t = 0; t < built_tp_; ++t) normed_[at(p, replica(t, d))] = {done[t]};
      }
  if (stages.size() > 1)
    for (int d = 0; d < built_dp_; ++d)
      for (int t = 0; t < built_tp_; ++t) {
        std::vector<int> group;
        std::vector<std::vector<TaskId>> ready;
        for (const int p : stages) {
          group.push_back(map_.device(t, d, p));
          ready.push_back(summed(p, replica(t, d)));
        }
        const auto done = collective(CollectiveOp::AllReduce, "auto", group, 4, kGradientNormPurpose, ready, tag);
        for (std::size_t i = 0; i < stages.size(); ++i) normed_[at(stages[i], replica(t, d))] = {done[i]};
      }
  if (w_.parallel.zero < 1 || map_.dp == 1) return;
  for (const int p : stages)
    for (int t = 0; t < built_tp_; ++t) {
      std::vector<std::vector<TaskId>> ready(built_dp_);
      for (int d = 0; d < built_dp_; ++d) ready[d] = summed(p, replica(t, d));
      const auto done = collective(CollectiveOp::AllReduce, "ring", map_.dp_group(t, p), 4,
                                   kGradientNormAcrossReplicasPurpose, ready, tag, fold_);
      for (int d = 0; d < built_dp_; ++d) normed_[at(p, replica(t, d))] = {done[d]};
    }
}

// Megatron's embedding all-reduce (finalize_model_grads, after the DP
// reduction): with tied embeddings, each replica sums the tied weights'
// gradient between the stage holding the first layer and the one holding
// the head, before their optimizer steps.
void JobBuilder::sum_tied_gradients() {
  const int head = tied_head(w_);
  if (head < 0) return;
  int first = -1, last = -1;
  const std::vector<TaskId>& waits = first_deferred_;  // what waits for each device's final gradients
  for (TaskId x = 0; x < pipe_.size(); ++x) {
    const Task task = pipe_.task(x);
    if (task.device < 0 || task.device >= map_.pp) continue;
    if (task.kind != TaskKind::Forward || task.layer_first < 0) continue;
    if (task.layer_first == 0 && first < 0) first = task.device;
    if (task.layer_first <= head && head <= task.layer_last) last = task.device;
  }
  if (first < 0 || last < 0 || first == last || waits[first] == kNone || waits[last] == kNone) return;
  field_ = "model.tied_embeddings";
  // What each side's gradients are final after: its reduction, else its backward passes (the inputs of what waits).
  const auto final_gradients = [&](int p, int r) {
    std::vector<TaskId> ready = reduced_[at(p, r)];
    if (ready.empty())
      for (const TaskId* y = pipe_.deps_begin(waits[p]); y != pipe_.deps_end(waits[p]); ++y)
        ready.push_back(last_[slot(*y, r)]);
    const std::vector<TaskId> sends = sent(p, r);
    ready.insert(ready.end(), sends.begin(), sends.end());
    return ready;
  };
  Task tag;
  tag.layer_first = 0;
  tag.layer_last = head;
  tag.iteration = pipe_.task(waits[last]).iteration;
  for (int d = 0; d < built_dp_; ++d)
    for (int t = 0; t < built_tp_; ++t) {
      const int r = replica(t, d);
      const auto done = collective(CollectiveOp::AllReduce, "auto", {map_.device(t, d, first), map_.device(t, d, last)},
                                   tied_gradient_bytes(w_), kTiedEmbeddingPurpose,
                                   {final_gradients(first, r), final_gradients(last, r)}, tag);
      tied_[at(first, r)] = {done[0]};
      tied_[at(last, r)] = {done[1]};
    }
}

// The distributed optimizer updates each rank's shard: the weights are
// gathered back over the DP group after the step.
void JobBuilder::gather_weights(TaskId step) {
  const int p = pipe_.task(step).device;
  if (w_.parallel.zero < 1 || map_.dp == 1 || weight_bytes_[p] <= 0 || overlaps_weight_gather()) return;
  field_ = "parallel.dp_algorithm";
  Task tag = pipe_.task(step);
  for (int t = 0; t < built_tp_; ++t) {
    std::vector<std::vector<TaskId>> ready(built_dp_);
    for (int d = 0; d < built_dp_; ++d) ready[d] = {last_[slot(step, replica(t, d))]};
    const auto done = collective(CollectiveOp::AllGather, w_.parallel.dp_algorithm, map_.dp_group(t, p),
                                 weight_bytes_[p], "dp weights", ready, tag, fold_);
    for (int d = 0; d < built_dp_; ++d) last_[slot(step, replica(t, d))] = done[d];
  }
}

bool JobBuilder::overlaps_weight_gather() const {
  return w_.parallel.overlap_param_gather && w_.parallel.zero >= 1 && map_.dp > 1;
}

void JobBuilder::plan_weight_gathers() {
  if (!overlaps_weight_gather()) return;
  std::vector<bool> steps(map_.pp, false);
  for (TaskId x = 0; x < pipe_.size(); ++x) {
    const Task task = pipe_.task(x);
    if (task.kind == TaskKind::Update && task.device >= 0 && task.device < map_.pp) steps[task.device] = true;
  }
  weights_waits_.assign(pipe_.size(), 0);
  for (int p = 0; p < map_.pp; ++p) {
    if (!steps[p]) continue;  // no step, nothing to gather (as without overlap)
    bool forward = false, backward = false;
    for (const TaskId x : pipe_.device_order(p)) {
      const TaskKind kind = pipe_.task(x).kind;
      if (kind == TaskKind::Forward && !forward) forward = true, weights_waits_[x] = 1;
      if ((kind == TaskKind::Backward || kind == TaskKind::BackwardInput) && !backward)
        backward = true, weights_waits_[x] = 2;
    }
  }
}

// Megatron dispatches the buckets' all-gathers in forward order, each
// layer's forward waiting for its own: the first bucket holds the device's
// lowest layers (buckets_ run in backward order).
void JobBuilder::gather_weights_before(TaskId x) {
  if (weights_waits_.empty() || weights_waits_[x] != 1) return;
  const Task task = pipe_.task(x);
  const int p = task.device;
  if (weight_bytes_[p] <= 0 || weight_gathers_.count(p)) return;
  double first = weight_bytes_[p];
  if (!buckets_[p].empty()) {
    double bucket = 0;
    for (int l = buckets_[p].back().first; l <= buckets_[p].back().last; ++l) bucket += w_.layers[l].weights;
    if (bucket > 0) first = std::min(first, bucket);
  }
  const double rest = weight_bytes_[p] - first;
  field_ = "parallel.dp_algorithm";
  auto& [lowest, all] = weight_gathers_[p];
  lowest.assign(replicas(), kNone);
  all.assign(replicas(), kNone);
  for (int t = 0; t < built_tp_; ++t) {
    std::vector<std::vector<TaskId>> ready(built_dp_);  // from the start
    const auto one = collective(CollectiveOp::AllGather, w_.parallel.dp_algorithm, map_.dp_group(t, p), first,
                                "dp weights", ready, task, fold_);
    for (int d = 0; d < built_dp_; ++d) ready[d] = {one[d]};
    const auto two = rest > 0 ? collective(CollectiveOp::AllGather, w_.parallel.dp_algorithm, map_.dp_group(t, p), rest,
                                           "dp weights", ready, task, fold_)
                              : one;
    for (int d = 0; d < built_dp_; ++d) lowest[replica(t, d)] = one[d], all[replica(t, d)] = two[d];
  }
}

TaskId JobBuilder::weights_wait(TaskId x, int r) const {
  if (weights_waits_.empty() || weights_waits_[x] == 0) return kNone;
  const auto found = weight_gathers_.find(pipe_.task(x).device);
  if (found == weight_gathers_.end()) return kNone;
  return (weights_waits_[x] == 1 ? found->second.first : found->second.second)[r];
}

// The copy of pipeline task x in replica r = d.tp + t.
void JobBuilder::copy_task(TaskId x, int r, const std::vector<TaskId>& extra_deps) {
  const int t = r % built_tp_, d = r / built_tp_;
  Task task = pipe_.task(x);
  task.device = map_.device(t, d, task.device);
  if (task.peer >= 0) task.peer = map_.device(t, d, task.peer);
  if (scatters(x)) task.amount /= map_.tp;
  std::vector<TaskId> deps = extra_deps;
  for (const TaskId* y = pipe_.deps_begin(x); y != pipe_.deps_end(x); ++y) deps.push_back(last_[slot(*y, r)]);
  if (const TaskId gathered = weights_wait(x, r); gathered != kNone) deps.push_back(gathered);
  // Without overlap the device waits for the previous pass's TP collectives, and its pipeline sends.
  const TaskId previous = order_previous_[x];
  if (!w_.parallel.overlap_tp && previous != kNone && last_[slot(previous, r)] != first_[slot(previous, r)])
    deps.push_back(last_[slot(previous, r)]);
  for (const TaskId send : held_by_sends(x)) deps.push_back(last_[slot(send, r)]);
  if (cuts_.count(x)) {
    first_[slot(x, r)] = copy_pieces(x, r, task, deps);
    return;
  }
  const TaskId id = job_.add(task, deps);
  for (const MemoryEffect& e : pipe_.memory_effects(x))
    job_.add_memory(id, map_.device(t, d, e.device), e.category, e.when, e.bytes);
  first_[slot(x, r)] = last_[slot(x, r)] = id;
}

// A backward cut where gradient buckets end, so that each bucket reduces
// while the layers below it still compute: pieces from the top layer down,
// each its layers' share of the pass's cost, one after another; the memory
// effects at the start of the first and the finish of the last.
TaskId JobBuilder::copy_pieces(TaskId x, int r, const Task& task, const std::vector<TaskId>& deps) {
  const int t = r % built_tp_, d = r / built_tp_;
  auto cost = [&](int l) {
    const Layer& layer = w_.layers[l];
    if (task.kind == TaskKind::BackwardWeight)
      return layer.split_given ? layer.backward_weight.value : layer.backward.value / 2;
    return layer.backward.value;
  };
  double total = 0;
  for (int l = task.layer_first; l <= task.layer_last; ++l) total += cost(l);
  std::vector<int> cuts = cuts_.at(x);  // a piece ends at each cut (its lowest layer)
  cuts.push_back(task.layer_first);
  std::sort(cuts.rbegin(), cuts.rend());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  auto& pieces = pieces_[slot(x, r)];
  TaskId first = kNone, previous = kNone;
  int top = task.layer_last;
  for (const int lowest : cuts) {
    Task piece = task;
    piece.layer_first = lowest;
    piece.layer_last = top;
    double share = 0;
    for (int l = lowest; l <= top; ++l) share += cost(l);
    piece.amount = total > 0 ? task.amount * share / total : task.amount / static_cast<double>(cuts.size());
    const TaskId id = previous == kNone ? job_.add(piece, deps) : job_.add(piece, {previous});
    if (first == kNone) first = id;
    pieces.push_back({lowest, id});
    previous = id;
    top = lowest - 1;
  }
  for (const MemoryEffect& e : pipe_.memory_effects(x))
    job_.add_memory(e.when == MemoryWhen::AtStart ? first : previous, map_.device(t, d, e.device), e.category, e.when,
                    e.bytes);
  last_[slot(x, r)] = previous;
  return first;
}

void JobBuilder::add_tp_collectives(TaskId x, int d) {
  const Task task = pipe_.task(x);
  if (map_.tp == 1 || is_transfer(task.kind) || task.layer_first < 0) return;
  const std::vector<int> group = map_.tp_group(d, task.device);
  field_ = "parallel.tp_algorithm";
  for (int l = task.layer_first; l <= task.layer_last; ++l) {
    const Layer& layer = w_.layers[l];
    const TpPassCollectives pass = collectives_of(task.kind, layer.tp);
    Task tag = task;
    tag.layer_first = tag.layer_last = l;
    for (const auto& [op, count] :
         {std::pair{CollectiveOp::AllGather, pass.all_gather}, std::pair{CollectiveOp::AllReduce, pass.all_reduce},
          std::pair{CollectiveOp::ReduceScatter, pass.reduce_scatter}})
      for (int c = 0; c < count; ++c) {
        std::vector<std::vector<TaskId>> ready(built_tp_);
        for (int t = 0; t < built_tp_; ++t) ready[t] = {last_[slot(x, replica(t, d))]};
        const auto done =
            collective(op, w_.parallel.tp_algorithm, group, layer.tp.bytes, pass_name(task.kind), ready, tag, fold_tp_);
        for (int t = 0; t < built_tp_; ++t) last_[slot(x, replica(t, d))] = done[t];
      }
  }
}

std::vector<TaskId> JobBuilder::collective(CollectiveOp op, const std::string& algorithm, const std::vector<int>& group,
                                           double bytes, const std::string& purpose,
                                           const std::vector<std::vector<TaskId>>& ready, const Task& tag,
                                           bool folded) {
  CollectiveSpec spec;
  spec.op = op;
  spec.algorithm = *parse_collective_algorithm(algorithm);
  spec.group = group;
  spec.bytes = bytes;
  spec.purpose = purpose;
  const auto key = std::make_tuple(static_cast<int>(op), bytes, purpose, group);
  const auto found = records_.find(key);
  const auto first = static_cast<TaskId>(job_.size());
  const int record = found == records_.end() ? -1 : found->second;
  const CollectiveTasks tasks = folded ? add_folded_collective(job_, spec, platform_, ready, tag, record)
                                       : add_collective(job_, spec, platform_, ready, tag, record);
  records_.emplace(key, tasks.record);
  job_.add_collective_instance(tasks.record, first);
  return tasks.done;
}

CollectiveSpec JobBuilder::dp_spec(CollectiveOp op, const std::string& algorithm, int t, int p, double bytes) const {
  CollectiveSpec spec;
  spec.op = op;
  spec.algorithm = *parse_collective_algorithm(algorithm);
  spec.group = map_.dp_group(t, p);
  spec.bytes = bytes;
  return spec;
}

bool JobBuilder::moves_to_host() const {
  for (TaskId x = 0; x < pipe_.size(); ++x) {
    const TaskKind kind = pipe_.task(x).kind;
    if (kind == TaskKind::Offload || kind == TaskKind::Prefetch || kind == TaskKind::WeightFetch) return true;
  }
  return false;
}

// Checked before building: a replica folds only if every collective that
// crosses replicas is a ring over one rank per replica.
std::string JobBuilder::fold_refusal() const {
  if (moves_to_host()) return "the pipeline moves data to host memory or fetches weights";
  if (map_.dp == 1) return "one data-parallel replica";
  const CollectiveOp reduce = w_.parallel.zero >= 1 ? CollectiveOp::ReduceScatter : CollectiveOp::AllReduce;
  for (int p = 0; p < map_.pp; ++p)
    for (int t = 0; t < map_.tp; ++t) {
      std::vector<CollectiveSpec> specs;
      for (const Bucket& b : buckets_[p]) specs.push_back(dp_spec(reduce, w_.parallel.dp_algorithm, t, p, b.bytes));
      if (w_.parallel.zero >= 1 && weight_bytes_[p] > 0)
        specs.push_back(dp_spec(CollectiveOp::AllGather, w_.parallel.dp_algorithm, t, p, weight_bytes_[p]));
      for (const CollectiveSpec& spec : specs)
        if (std::string why = not_a_ring(spec, platform_, "data-parallel"); !why.empty()) return why;
    }
  return {};
}

// And TP ranks fold only if every TP all-reduce (the layers' and the
// gradient norm's) is a ring: the other operations always are.
std::string JobBuilder::tp_fold_refusal() const {
  if (moves_to_host()) return "the pipeline moves data to host memory or fetches weights";
  if (map_.tp == 1) return "one tensor-parallel rank";
  std::set<std::pair<std::string, double>> sizes = {{"auto", 4.0}};  // (algorithm, bytes)
  for (const Layer& layer : w_.layers)
    if (layer.tp.forward.all_reduce + layer.tp.backward.all_reduce + layer.tp.recompute.all_reduce > 0)
      sizes.insert({w_.parallel.tp_algorithm, layer.tp.bytes});
  for (int d = 0; d < map_.dp; ++d)
    for (int p = 0; p < map_.pp; ++p)
      for (const auto& [algorithm, bytes] : sizes) {
        CollectiveSpec spec;
        spec.algorithm = *parse_collective_algorithm(algorithm);
        spec.group = map_.tp_group(d, p);
        spec.bytes = bytes;
        if (std::string why = not_a_ring(spec, platform_, "tensor-parallel"); !why.empty()) return why;
      }
  return {};
}

TaskGraph JobBuilder::finish() {
  for (int p = 0; p < pipe_.device_count(); ++p)
    for (int r = 0; r < replicas(); ++r)
      for (const TaskId x : pipe_.device_order(p)) {
        const TaskId id = first_[slot(x, r)];
        pipe_.beside_previous(x) ? job_.append_beside_previous(id) : job_.append_to_order(id);
        if (const auto pieces = pieces_.find(slot(x, r)); pieces != pieces_.end())  // the rest of a cut backward
          for (std::size_t i = 1; i < pieces->second.size(); ++i) job_.append_to_order(pieces->second[i].second);
      }
  for (const StaticMemory& m : pipe_.static_memory()) {
    const double bytes = job_static_bytes(m, w_.parallel);
    for (int d = 0; d < built_dp_; ++d)
      for (int t = 0; t < built_tp_; ++t) job_.add_static_memory(map_.device(t, d, m.device), m.category, bytes);
  }
  return std::move(job_);
}

}  // namespace pipesim
