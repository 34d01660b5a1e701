// Data parallelism: each pipeline device's gradients reduced over its DP
// group in buckets, as Megatron's DDP does (docs/parallelism.md,
// "Gradient reduction"): layers in backward order fill buckets; a bucket's
// collective starts when the backward of its last layer has finished for
// the last micro-batch (with overlap), or when the device's whole backward
// has (without); buckets go one after another on one communication stream.
// ZeRO 0 all-reduces; ZeRO 1 and 2 reduce-scatter (each rank keeps its
// shard for the distributed optimizer step, which then all-gathers the
// updated weights: parallelism/job_builder.cpp).
#include <algorithm>

#include "parallelism/job_builder.hpp"

namespace pipesim {
namespace {

// Megatron-LM's default DDP bucket: max(40M, 1M x dp) parameters
// (megatron/core/distributed/distributed_data_parallel.py).
double default_bucket_parameters(int dp) { return std::max(40e6, 1e6 * dp); }

}  // namespace

// Buckets per pipeline device, in backward order (the last layer's gradient
// is ready first), and where the backward that completes a bucket must be
// cut so the bucket can start before the rest of that backward runs.
void JobBuilder::plan_buckets() {
  const double bucket_bytes = w_.parallel.bucket_bytes > 0
                                  ? w_.parallel.bucket_bytes
                                  : default_bucket_parameters(map_.dp) * w_.optimizer.gradient_bytes;
  // Per pipeline device, per layer: the last pass that adds to its gradient.
  const int L = static_cast<int>(w_.layers.size());
  std::vector<std::vector<TaskId>> last_gradient(map_.pp, std::vector<TaskId>(L, kNone));
  std::vector<TaskId> last_backward(map_.pp, kNone);
  for (TaskId x = 0; x < pipe_.size(); ++x) {
    const Task task = pipe_.task(x);
    if ((task.kind != TaskKind::Backward && task.kind != TaskKind::BackwardWeight) || task.layer_first < 0 ||
        task.device < 0 || task.device >= map_.pp)
      continue;
    last_backward[task.device] = x;
    for (int l = task.layer_first; l <= task.layer_last; ++l) last_gradient[task.device][l] = x;
  }
  const bool overlap = w_.parallel.overlap_gradient_reduce;
  for (int p = 0; p < map_.pp; ++p) {
    std::vector<Bucket>& buckets = buckets_[p];
    for (int l = L - 1; l >= 0; --l) {
      const TaskId x = last_gradient[p][l];
      if (x == kNone) continue;
      weight_bytes_[p] += w_.layers[l].weights;
      // The gradient buffer training_state holds: parameters x gradient bytes.
      const double gradient = layer_parameters(w_, l) * w_.optimizer.gradient_bytes;
      if (gradient <= 0) continue;
      if (buckets.empty() || buckets.back().bytes >= bucket_bytes) buckets.push_back({0, 0, l, l});
      Bucket& b = buckets.back();
      b.bytes += gradient;
      b.ready = std::max(b.ready, overlap ? x : last_backward[p]);
      b.first = l;
    }
    if (map_.dp == 1 || !overlap) continue;
    for (const Bucket& b : buckets) {  // the backward reaches b.first before it ends: cut it there
      const Task task = pipe_.task(b.ready);
      if (task.layer_first < b.first && b.first <= task.layer_last) cuts_[b.ready].push_back(b.first);
    }
  }
}

void JobBuilder::reduce_gradients() {
  if (map_.dp == 1) return;
  field_ = "parallel.dp_algorithm";
  const CollectiveOp op = w_.parallel.zero >= 1 ? CollectiveOp::ReduceScatter : CollectiveOp::AllReduce;
  for (int p = 0; p < map_.pp; ++p)
    for (int t = 0; t < built_tp_; ++t) {
      std::vector<TaskId> previous(built_dp_, kNone);
      for (const Bucket& b : buckets_[p]) {
        std::vector<std::vector<TaskId>> ready(built_dp_);
        for (int d = 0; d < built_dp_; ++d) {
          ready[d] = {gradient_ready(b, replica(t, d))};
          if (previous[d] != kNone) ready[d].push_back(previous[d]);
        }
        Task tag;
        tag.stage = pipe_.task(b.ready).stage;
        tag.layer_first = b.first;
        tag.layer_last = b.last;
        tag.iteration = pipe_.task(b.ready).iteration;
        previous =
            collective(op, w_.parallel.dp_algorithm, map_.dp_group(t, p), b.bytes, "dp gradients", ready, tag, fold_);
      }
      for (int d = 0; d < built_dp_; ++d)
        if (previous[d] != kNone) reduced_[at(p, replica(t, d))] = {previous[d]};
    }
}

// The task after which bucket b's gradients are final in replica r: the
// piece of a cut backward that ends at the bucket's lowest layer, else the
// backward (and its TP collectives) as a whole.
TaskId JobBuilder::gradient_ready(const Bucket& b, int r) const {
  const auto pieces = pieces_.find(slot(b.ready, r));
  if (pieces != pieces_.end())
    for (const auto& [lowest, id] : pieces->second)
      if (lowest == b.first) return id;
  return last_[slot(b.ready, r)];
}

}  // namespace pipesim
