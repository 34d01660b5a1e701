// Seed 004's `split` schedule: every worker runs the forward of one
// micro-batch (lane 0, share beta_j of each resource j) and the backward of
// an earlier one (lane 1, shares 1 - beta_j) at the same time, PipeDream's
// asynchronous 1F1B with weight stashing and at most `in_flight`
// micro-batches per stage (bounded staleness, §IV.C). docs/mobile.md.
#include "schedules/split/split_schedule.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "patterns/pattern.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "schedules/split/split_planner.hpp"
#include "workloads/costs.hpp"

namespace pipesim {
namespace {

constexpr TaskId kNone = static_cast<TaskId>(-1);

// One pass of a stage spread over the resources that take part in it, each
// given work in proportion to its share / its seconds T_j for the whole pass,
// so that all finish together: part j lasts fraction_j x T_j / share_j =
// 1 / sum_i share_i / T_i (Definition 1).
struct Part {
  int device;  // a device of the worker
  int resource;
  double share;
  double fraction;    // of the pass's work (and of its memory effects)
  double host_flops;  // the part's work in its host's flops: fraction x T_j x host speed
};

// A group's parts run on every resource of every one of its devices.
std::vector<Part> parts(const Platform& platform, const SplitStagePlan& stage, bool forward) {
  std::vector<Part> out;
  double total = 0;
  for (std::size_t i = 0; i < stage.devices.size(); ++i) {
    const std::vector<ComputeResource> resources = device_resources(platform.devices[stage.devices[i]]);
    for (std::size_t j = 0; j < resources.size(); ++j) {
      const double share = forward ? stage.beta[i][j] : 1 - stage.beta[i][j];
      const double seconds = (forward ? stage.resource_forward_seconds : stage.resource_backward_seconds)[i][j];
      if (share < 1e-12 || !(seconds < std::numeric_limits<double>::infinity()))
        continue;  // takes no part (an exact optimum gives 0)
      out.push_back(
          {stage.devices[i], static_cast<int>(j), std::min(share, 1.0), share / seconds, seconds * resources[j].speed});
      total += out.back().fraction;
    }
  }
  for (Part& p : out) p.fraction /= total, p.host_flops *= p.fraction;
  return out;
}

struct StageInfo {
  int device;
  double stash_bytes = 0, weight_bytes = 0;
  double output_bytes = 0;  // sent to the next stage (0 for the last)
  double input_bytes = 0;   // gradient sent to the previous stage (0 for the first)
  std::vector<Part> forward, backward;
  int in_flight = 1;
};

class SplitBuilder {
 public:
  SplitBuilder(const SplitPlan& plan, const Workload& w, const Platform& platform)
      : S_(static_cast<int>(plan.stages.size())), graph_(platform.size()) {
    for (const SplitStagePlan& p : plan.stages) {
      StageInfo st;
      st.device = p.device;
      for (int l = p.first_layer; l <= p.last_layer; ++l) {
        st.stash_bytes += l == 0 ? w.input : w.layers[l - 1].activation;
        st.weight_bytes += w.layers[l].weights;
      }
      if (p.last_layer + 1 < static_cast<int>(w.layers.size())) st.output_bytes = w.layers[p.last_layer].activation;
      if (p.first_layer > 0) st.input_bytes = w.layers[p.first_layer - 1].activation;
      st.forward = parts(platform, p, true);
      st.backward = parts(platform, p, false);
      st.in_flight = p.in_flight;
      // Weight stashing: one version per micro-batch in flight (the newest
      // forward uses the live one), plus one gradient buffer.
      graph_.add_static_memory(st.device, MemoryCategory::Weights,
                               weight_versions(WeightPolicy::Stashing, st.in_flight) * st.weight_bytes);
      graph_.add_static_memory(st.device, MemoryCategory::Gradients, st.weight_bytes);
      stages_.push_back(std::move(st));
      layers_.push_back({p.first_layer, p.last_layer});
    }
  }

  TaskGraph build(int microbatches) {
    fwd_.assign(S_, std::vector<std::vector<TaskId>>(microbatches));
    bwd_ = fwd_;
    up_.assign(S_, std::vector<TaskId>(microbatches, kNone));
    down_ = up_;
    // Forward of every stage, then backward from the last stage down, micro-batch
    // after micro-batch: every dependency is added before its dependant (the
    // staleness bound only looks back in_flight micro-batches).
    for (int k = 0; k < microbatches; ++k) {
      for (int s = 0; s < S_; ++s) forward(s, k);
      for (int s = S_ - 1; s >= 0; --s) backward(s, k);
    }
    return std::move(graph_);
  }

 private:
  Task base(TaskKind kind, int s, int k) const {
    Task t;
    t.kind = kind;
    t.device = stages_[s].device;
    t.stage = s;
    t.layer_first = layers_[s].first;
    t.layer_last = layers_[s].second;
    t.microbatch = k;
    t.priority = k;
    return t;
  }

  // The pass's parts, each after deps, in its resource's lane order; memory
  // effects split between the parts in proportion to their work, all on the
  // worker's first device (a group's memory is counted there).
  std::vector<TaskId> pass(TaskKind kind, int s, int k, const std::vector<TaskId>& deps) {
    const StageInfo& st = stages_[s];
    const bool fwd = kind == TaskKind::Forward;
    std::vector<TaskId> ids;
    for (const Part& p : fwd ? st.forward : st.backward) {
      Task t = base(kind, s, k);
      t.device = p.device;
      t.amount = p.host_flops;
      t.resource = p.resource;
      t.lane = fwd ? 0 : 1;
      t.share = p.share;
      const TaskId id = graph_.add(t, deps);
      graph_.append_to_order(id);
      constexpr auto Comm = MemoryCategory::CommBuffers;
      if (fwd) {
        graph_.add_memory(id, st.device, MemoryCategory::Activations, MemoryWhen::AtStart, p.fraction * st.stash_bytes);
        graph_.add_memory(id, st.device, Comm, MemoryWhen::AtStart, p.fraction * st.output_bytes);
        if (s > 0) graph_.add_memory(id, st.device, Comm, MemoryWhen::AtFinish, -p.fraction * st.input_bytes);
      } else {
        graph_.add_memory(id, st.device, MemoryCategory::Activations, MemoryWhen::AtFinish,
                          -p.fraction * st.stash_bytes);
        graph_.add_memory(id, st.device, Comm, MemoryWhen::AtStart, p.fraction * st.input_bytes);
        if (s + 1 < S_) graph_.add_memory(id, st.device, Comm, MemoryWhen::AtFinish, -p.fraction * st.output_bytes);
      }
      ids.push_back(id);
    }
    return ids;
  }

  // A tensor from stage s to its neighbour `to`, after all parts of its producer.
  TaskId transfer(int s, int to, int k, double bytes, const std::vector<TaskId>& producer) {
    Task t = base(TaskKind::Transfer, s, k);
    t.peer = stages_[to].device;
    t.amount = bytes;
    t.layer_first = t.layer_last = layers_[std::min(s, to)].second;  // the boundary's tensor
    const TaskId id = graph_.add(t, producer);
    graph_.add_memory(id, t.device, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -bytes);
    graph_.add_memory(id, t.peer, MemoryCategory::CommBuffers, MemoryWhen::AtStart, bytes);
    return id;
  }

  void forward(int s, int k) {
    std::vector<TaskId> deps;
    if (s > 0) deps = up_[s - 1][k] != kNone ? std::vector<TaskId>{up_[s - 1][k]} : fwd_[s - 1][k];
    // Bounded staleness: a stage starts micro-batch k once k - in_flight has gone back through it.
    if (const int old = k - stages_[s].in_flight; old >= 0)
      deps.insert(deps.end(), bwd_[s][old].begin(), bwd_[s][old].end());
    fwd_[s][k] = pass(TaskKind::Forward, s, k, deps);
    if (s + 1 < S_ && stages_[s].output_bytes > 0)
      up_[s][k] = transfer(s, s + 1, k, stages_[s].output_bytes, fwd_[s][k]);
  }

  void backward(int s, int k) {
    std::vector<TaskId> deps;
    if (s + 1 < S_)
      deps = down_[s][k] != kNone ? std::vector<TaskId>{down_[s][k]} : bwd_[s + 1][k];
    else
      deps = fwd_[s][k];
    bwd_[s][k] = pass(TaskKind::Backward, s, k, deps);
    if (s > 0 && stages_[s].input_bytes > 0)
      down_[s - 1][k] = transfer(s, s - 1, k, stages_[s].input_bytes, bwd_[s][k]);
  }

  int S_;
  TaskGraph graph_;
  std::vector<StageInfo> stages_;
  std::vector<std::pair<int, int>> layers_;
  std::vector<std::vector<std::vector<TaskId>>> fwd_, bwd_;  // [stage][micro-batch]: the parts
  std::vector<std::vector<TaskId>> up_, down_;               // up_[s]: s -> s+1; down_[s]: s+1 -> s
};

GeneratedSchedule split_workload_schedule(const Workload& w, const Platform& platform) {
  const SplitPlan plan = plan_split(w, platform);
  GeneratedSchedule out{split_schedule(plan, w, platform, total_microbatches(w)), std::nullopt};
  out.split = plan;
  return out;
}

// At most two parts per resource per stage and micro-batch (a group's
// stage: all its devices' resources), two transfers per boundary.
ScheduleSize split_size(const Workload& w, const Platform& platform) {
  std::size_t resources = 1, all = 0;
  for (const Device& d : platform.devices) {
    resources = std::max(resources, std::max<std::size_t>(1, d.resources.size()));
    all += std::max<std::size_t>(1, d.resources.size());
  }
  const double S = std::max(1, std::min(platform.size(), static_cast<int>(w.layers.size())));
  const double parts = std::max(static_cast<double>(resources) * S, static_cast<double>(all));
  return {static_cast<double>(w.microbatches) * w.iterations * (2.0 * parts + 2 * (S - 1)), 0,
          std::to_string(static_cast<int>(S)) + " stages"};
}

const bool registered = register_schedule({"split"}, split_workload_schedule, split_size);

}  // namespace

TaskGraph split_schedule(const SplitPlan& plan, const Workload& workload, const Platform& platform, int microbatches) {
  return SplitBuilder(plan, workload, platform).build(microbatches);
}

}  // namespace pipesim
