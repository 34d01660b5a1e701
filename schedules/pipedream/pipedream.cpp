// PipeDream's eager 1F1B with NOAM micro-batches in flight and weight
// stashing (seed 000 §4.1 and §7), as a task graph and as its steady-state pattern.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_params.hpp"
#include "sim/input_error.hpp"

namespace pipesim {

StagePlan allocation_plan(const Allocation& allocation, const Workload& workload, const Platform& platform) {
  if (allocation.size() != workload.layers.size())
    throw std::invalid_argument("allocation: " + std::to_string(allocation.size()) + " devices for " +
                                std::to_string(workload.layers.size()) + " layers");
  if (!is_contiguous(allocation))
    throw std::invalid_argument("allocation " + to_string(allocation) + " is not contiguous");
  Workload w = workload;  // explicit placement: make_stage_plan checks hosts and routes
  w.placement = Placement{};
  w.placement.automatic = false;
  for (std::size_t l = 0; l < allocation.size(); ++l) {
    const int d = allocation[l];
    if (d < 0 || d >= platform.size()) throw std::invalid_argument("allocation: device index out of range");
    if (l > 0 && d == allocation[l - 1]) {
      w.placement.stage_layers.back().second = static_cast<int>(l);
      continue;
    }
    w.placement.stage_layers.push_back({static_cast<int>(l), static_cast<int>(l)});
    w.placement.stage_hosts.push_back(platform.devices[d].name);
  }
  return make_stage_plan(w, platform);
}

int eager_cycle_bound(int noam) { return std::max(kMaxEagerCopies, noam); }

int pipedream_in_flight(int stage, int microbatches, int noam) {
  return std::min(microbatches, std::max(1, noam - stage));
}

std::vector<StageSequence> pipedream_sequences(int stages, int microbatches, int noam) {
  if (noam < 1) throw std::invalid_argument("PipeDream: NOAM must be at least 1");
  const int M = microbatches;
  std::vector<StageSequence> result(stages);
  for (int s = 0; s < stages; ++s) {
    const int warmup = pipedream_in_flight(s, M, noam) - 1;  // PipeDream's runtime: noam - 1 - s
    StageSequence& seq = result[s];
    for (int m = 0; m < warmup; ++m) seq.push_back({TaskKind::Forward, m});
    for (int m = 0; m + warmup < M; ++m) {
      seq.push_back({TaskKind::Forward, m + warmup});
      seq.push_back({TaskKind::Backward, m});
    }
    for (int m = M - warmup; m < M; ++m) seq.push_back({TaskKind::Backward, m});
  }
  return result;
}

TaskGraph pipedream_schedule(const StagePlan& plan, int microbatches, int noam, int device_count) {
  const int S = static_cast<int>(plan.stages.size());
  TaskGraph g = build_pipeline(plan, pipedream_sequences(S, microbatches, noam), 1, device_count);
  // Weight stashing: one version per micro-batch in flight (weight_versions);
  // build_pipeline already holds one.
  for (int s = 0; s < S; ++s)
    g.add_static_memory(plan.stages[s].device, MemoryCategory::Weights,
                        (weight_versions(WeightPolicy::Stashing, pipedream_in_flight(s, microbatches, noam)) - 1) *
                            plan.stages[s].weight_bytes);
  return g;
}

namespace {

// Every task as soon as its inputs and its device's previous task are done;
// a transfer alone on its route. Ids are a topological order of both.
std::vector<double> contention_free_starts(const TaskGraph& g, const Platform& platform) {
  const std::size_t n = g.size();
  std::vector<TaskId> previous(n, static_cast<TaskId>(-1));
  for (int d = 0; d < g.device_count(); ++d) {
    const auto& order = g.device_order(d);
    for (std::size_t i = 1; i < order.size(); ++i) previous[order[i]] = order[i - 1];
  }
  std::vector<double> start(n, 0), finish(n, 0);
  for (TaskId id = 0; id < n; ++id) {
    const Task& t = g.task(id);
    double ready = 0;
    for (const TaskId* d = g.deps_begin(id); d != g.deps_end(id); ++d) ready = std::max(ready, finish[*d]);
    if (previous[id] != static_cast<TaskId>(-1)) {
      if (previous[id] > id) throw std::logic_error("PipeDream: device order against task ids");
      ready = std::max(ready, finish[previous[id]]);
    }
    double duration = 0;
    if (t.kind == TaskKind::Transfer) {
      if (t.amount > 0 && t.device != t.peer) duration = platform.transfer_time(t.device, t.peer, t.amount);
    } else {
      duration = t.amount / platform.devices[t.device].speed;
    }
    start[id] = ready;
    finish[id] = ready + duration;
  }
  return start;
}

// Task ids per stage and micro-batch: its forward, its backward, the
// activation it sends up (to s+1) and the gradient it sends down (to s-1);
// -1 where the graph has none (nothing crosses devices, or 0 bytes).
struct StageTasks {
  std::vector<std::vector<long long>> forward, backward, up, down;  // [stage][micro-batch]
};

StageTasks index_tasks(const TaskGraph& g, const StagePlan& plan, int M) {
  const int S = static_cast<int>(plan.stages.size());
  StageTasks ix{std::vector<std::vector<long long>>(S, std::vector<long long>(M, -1)), {}, {}, {}};
  ix.backward = ix.up = ix.down = ix.forward;
  for (TaskId id = 0; id < g.size(); ++id) {
    const Task& t = g.task(id);
    if (t.kind == TaskKind::Forward)
      ix.forward[t.stage][t.microbatch] = id;
    else if (t.kind == TaskKind::Backward)
      ix.backward[t.stage][t.microbatch] = id;
    else if (t.stage + 1 < S && t.peer == plan.stages[t.stage + 1].device)
      ix.up[t.stage][t.microbatch] = id;
    else
      ix.down[t.stage][t.microbatch] = id;
  }
  return ix;
}

// The smallest k in 1..max_copies such that every task's start advances by
// one T every k micro-batches over `window` micro-batches from m0; 0 if none.
int steady_cycle(const StageTasks& ix, const std::vector<double>& start, int m0, int window, int max_copies) {
  for (int k = 1; k <= max_copies; ++k) {
    const int first = m0 - m0 % k;  // a multiple of k: copy c is micro-batch first + c
    const double T = start[ix.forward[0][first + k]] - start[ix.forward[0][first]];
    if (!(T > 0)) throw std::invalid_argument("PipeDream pattern: every operation takes no time");
    bool periodic = true;
    for (const auto* table : {&ix.forward, &ix.backward, &ix.up, &ix.down})
      for (const auto& per_stage : *table)
        for (int m = first; periodic && m < first + window; ++m)
          if (per_stage[m] >= 0) periodic = std::abs(start[per_stage[m + k]] - start[per_stage[m]] - T) <= 1e-9 * T;
    if (periodic) return k;
  }
  return 0;
}

}  // namespace

Pattern pipedream_pattern(const Allocation& allocation, int noam, const Workload& workload, const Platform& platform) {
  const StagePlan plan = allocation_plan(allocation, workload, platform);
  const int S = static_cast<int>(plan.stages.size());
  const int L = static_cast<int>(allocation.size());

  // F and B of every layer on its stage's device, k copies; durations from pattern_timing.
  auto ops_of = [&](int k) {
    Pattern p;
    p.layers = L;
    p.copies = k;
    p.period = 1;
    p.weights = WeightPolicy::Stashing;
    for (int l = 0; l < L; ++l)
      for (TaskKind kind : {TaskKind::Forward, TaskKind::Backward})
        for (int c = 0; c < k; ++c) {
          PatternOp op;
          op.kind = kind;
          op.layer = l;
          op.copy = c;
          op.device = allocation[l];
          p.ops.push_back(op);
        }
    return p;
  };

  for (int M = std::max(64, 16 * noam); M <= 8192; M *= 2) {
    const TaskGraph g = pipedream_schedule(plan, M, noam, platform.size());
    const std::vector<double> start = contention_free_starts(g, platform);
    const StageTasks ix = index_tasks(g, plan, M);
    // A window of micro-batches in the middle: untouched by the drain, which
    // comes later in every order; long enough to see 4 cycles of the longest k.
    const int window = std::min(M / 4, std::max(32, 4 * eager_cycle_bound(noam)));
    const int k = steady_cycle(ix, start, M / 2, window, eager_cycle_bound(noam));
    if (k == 0) continue;
    const int m0 = M / 2 - (M / 2) % k;
    const double T = start[ix.forward[0][m0 + k]] - start[ix.forward[0][m0]];

    Pattern p = ops_of(k);
    const PatternTiming timing = pattern_timing(p, workload, platform);
    auto at = [&](TaskKind kind, int layer, int copy) {
      return (2 * layer + (kind == TaskKind::Forward ? 0 : 1)) * k + copy;
    };
    // Micro-batch m0 + c (copy c) of an op runs at `time`: offset = time mod
    // T, and period i runs micro-batch k (i + shift) + c, so time = (m0 / k - shift) T + offset.
    p.period = T;
    auto place = [&](double time, double& offset, int& shift) {
      double periods = std::floor(time / T);
      offset = time - periods * T;
      if (offset >= T * (1 - 1e-12)) offset = 0, periods += 1;
      shift = m0 / k - static_cast<int>(periods);
    };
    for (int s = 0; s < S; ++s)
      for (int c = 0; c < k; ++c) {
        const Stage& st = plan.stages[s];
        double f = start[ix.forward[s][m0 + c]], b = start[ix.backward[s][m0 + c]];
        for (int l = st.first_layer; l <= st.last_layer; ++l) {  // the stage's layers back to back
          PatternOp& op = p.ops[at(TaskKind::Forward, l, c)];
          place(f, op.start, op.shift);
          f += timing.duration[at(TaskKind::Forward, l, c)];
        }
        for (int l = st.last_layer; l >= st.first_layer; --l) {
          PatternOp& op = p.ops[at(TaskKind::Backward, l, c)];
          place(b, op.start, op.shift);
          b += timing.duration[at(TaskKind::Backward, l, c)];
        }
        // Transfers after F_last (up) and B_first (down); an empty one sits at its producer's end.
        auto transfer = [&](long long task, int from, double producer_end) {
          PatternTransfer tr;
          tr.from = from;
          place(task >= 0 ? start[task] : producer_end, tr.start, tr.shift);
          p.transfers.push_back(tr);
        };
        if (s + 1 < S) transfer(ix.up[s][m0 + c], at(TaskKind::Forward, st.last_layer, c), f);
        if (s > 0) transfer(ix.down[s][m0 + c], at(TaskKind::Backward, st.first_layer, c), b);
      }
    const std::string overlap = find_overlap(p, pattern_timing(p, workload, platform), platform);
    if (!overlap.empty())
      throw std::invalid_argument("PipeDream pattern: the eager steady state is no seed 000 pattern: " + overlap);
    return p;
  }
  throw std::invalid_argument("PipeDream pattern: no steady state repeating every " +
                              std::to_string(eager_cycle_bound(noam)) +
                              " micro-batches or fewer within 8192 micro-batches");
}

std::pair<TaskGraph, std::optional<Pattern>> pipedream_run(const Allocation& allocation, int noam,
                                                           const Workload& workload, const Platform& platform,
                                                           int microbatches, BufferPolicy buffers) {
  try {
    Pattern p = pipedream_pattern(allocation, noam, workload, platform);
    p.buffers = buffers;
    TaskGraph g = unroll_pattern(p, pattern_timing(p, workload, platform), platform.size(), microbatches);
    return {std::move(g), std::move(p)};
  } catch (const std::invalid_argument&) {
    // Its steady state is not 1-periodic, or two of its transfers share a link
    // at once: no seed 000 pattern says that. The run itself is unaffected.
  }
  const StagePlan plan = allocation_plan(allocation, workload, platform);
  return {pipedream_schedule(plan, microbatches, noam, platform.size()), std::nullopt};
}

namespace {

// schedule: {name: pipedream, noam, allocation, memory_policy}: one stream
// of microbatches x iterations micro-batches. When its steady state is a
// pattern, the run is that pattern unrolled (the same orders, warm-up
// included: instances of micro-batches below 0 do not exist), so that its
// memory is the pattern's per layer under either buffer policy; otherwise
// the stage pipeline (lifetime buffers per stage).
const std::set<std::string> kParams = {"allocation", "noam", "memory_policy"};

GeneratedSchedule pipedream_workload_schedule(const Workload& w, const Platform& platform) {
  check_params(w, kParams);
  const BufferPolicy buffers = memory_policy_param(w);
  const Allocation a = workload_allocation(w, platform);
  if (!is_contiguous(a))
    throw InputError(w.file, "schedule.allocation", "PipeDream needs a contiguous allocation, got " + to_string(a));
  const StagePlan plan = allocation_plan(a, w, platform);
  const int noam = positive_param(w, "noam", static_cast<int>(plan.stages.size()));
  auto [graph, pattern] = pipedream_run(a, noam, w, platform, total_microbatches(w), buffers);
  return {std::move(graph), std::move(pattern)};
}

// Per micro-batch: a forward and a backward per stage, two transfers per
// boundary (a given allocation has at most min(devices, layers) stages);
// the pattern is one copy of every layer's tasks.
ScheduleSize pipedream_size(const Workload& w, const Platform& platform) {
  const int S = planned_stage_count(w, platform);
  const double L = static_cast<double>(w.layers.size());
  return {static_cast<double>(w.microbatches) * w.iterations * (4.0 * S - 2), 2 * L + 2.0 * (S - 1),
          std::to_string(S) + " stages"};
}

const bool registered = register_schedule({"pipedream"}, pipedream_workload_schedule, pipedream_size) &&
                        register_schedule_params("pipedream", kParams);

}  // namespace
}  // namespace pipesim
