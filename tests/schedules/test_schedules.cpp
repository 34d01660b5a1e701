// Per-stage orders of GPipe and 1F1B, the task graphs built from them, the
// registry, and the 1F1B steady-state event graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "schedules/flush/flush_sequences.hpp"
#include "schedules/registry_internal.hpp"
#include "schedules/stages/pipeline_builder.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/input_error.hpp"
#include "tests/support/platform_table.hpp"

namespace pipesim {
namespace {

Platform make_platform(int n, double speed = 1e12, double latency = 0, double bandwidth = 1e9) {
  return testing::table_platform(n, {speed, 16e9, latency, bandwidth});
}

// S one-layer stages on devices 0..S-1 (or `devices`), durations in seconds
// on a 1e12 flop/s device.
StagePlan uniform_plan(int S, double f, double b, double bytes, std::vector<int> devices = {}) {
  StagePlan plan;
  for (int s = 0; s < S; ++s) {
    Stage st;
    st.first_layer = st.last_layer = s;
    st.device = devices.empty() ? s : devices[s];
    st.forward_seconds = f;
    st.backward_seconds = b;
    st.forward_flops = f * 1e12;
    st.backward_flops = b * 1e12;
    st.output_bytes = bytes;
    st.input_bytes = s == 0 ? 7 : bytes;
    st.stash_bytes = 100.0 * (s + 1);
    st.weight_bytes = 1000.0 * (s + 1);
    plan.stages.push_back(st);
  }
  return plan;
}

std::string show(const StageSequence& seq) {
  std::string out;
  for (const Op& op : seq)
    out += (out.empty() ? "" : " ") + std::string(op.kind == TaskKind::Forward ? "F" : "B") +
           std::to_string(op.microbatch);
  return out;
}

TEST(Schedules, OneFOneBMatchesPyTorchOrder) {
  const auto seq = one_f_one_b_sequences(4, 8);
  ASSERT_EQ(seq.size(), 4u);
  EXPECT_EQ(show(seq[0]), "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7");
  EXPECT_EQ(show(seq[1]), "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 B6 B7");
  EXPECT_EQ(show(seq[2]), "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7");
  EXPECT_EQ(show(seq[3]), "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7");
}

TEST(Schedules, GPipeOrder) {
  const auto seq = gpipe_sequences(3, 4);
  ASSERT_EQ(seq.size(), 3u);
  for (const auto& s : seq) EXPECT_EQ(show(s), "F0 F1 F2 F3 B0 B1 B2 B3");
}

TEST(Schedules, OneFOneBWarmupGrid) {
  for (int S = 1; S <= 6; ++S) {
    for (int M = 1; M <= 10; ++M) {
      const auto seqs = one_f_one_b_sequences(S, M);
      for (int s = 0; s < S; ++s) {
        const int warmup = one_f_one_b_warmup(s, S, M);
        EXPECT_EQ(warmup, std::min(S - s - 1, M)) << S << " " << M << " " << s;
        const auto& seq = seqs[s];
        ASSERT_EQ(seq.size(), static_cast<std::size_t>(2 * M));
        // Forwards before the first backward: the warm-up, plus the first
        // steady forward when there is a steady phase.
        const auto first_b =
            std::find_if(seq.begin(), seq.end(), [](const Op& op) { return op.kind == TaskKind::Backward; });
        EXPECT_EQ(first_b - seq.begin(), warmup + (M > warmup ? 1 : 0));
        // Forwards and backwards each in micro-batch order; F(m) before B(m).
        int next_f = 0, next_b = 0;
        for (const Op& op : seq) {
          if (op.kind == TaskKind::Forward) {
            EXPECT_EQ(op.microbatch, next_f++);
          } else {
            EXPECT_LT(op.microbatch, next_f);
            EXPECT_EQ(op.microbatch, next_b++);
          }
        }
        // At most S - s micro-batches in flight on stage s.
        int in_flight = 0, peak = 0;
        for (const Op& op : seq) peak = std::max(peak, in_flight += op.kind == TaskKind::Forward ? 1 : -1);
        EXPECT_EQ(peak, std::min(S - s, M));
      }
      EXPECT_NO_THROW(build_pipeline(uniform_plan(S, 1, 2, 10), seqs, 2, S));
    }
  }
}

using Key = std::tuple<TaskKind, int, int, int, int>;  // kind, stage, mb, iteration, peer
std::map<Key, TaskId> index_tasks(const TaskGraph& g) {
  std::map<Key, TaskId> index;
  for (TaskId id = 0; id < g.size(); ++id) {
    const Task& t = g.task(id);
    EXPECT_TRUE(index.emplace(Key{t.kind, t.stage, t.microbatch, t.iteration, t.peer}, id).second);
  }
  return index;
}

std::vector<TaskId> deps(const TaskGraph& g, TaskId id) {
  return std::vector<TaskId>(g.deps_begin(id), g.deps_end(id));
}

TEST(PipelineBuilder, StructureAndDependencies) {
  const int S = 4, M = 8, I = 2;
  const StagePlan plan = uniform_plan(S, 1, 2, 50);
  const auto seqs = one_f_one_b_sequences(S, M);
  const TaskGraph g = build_pipeline(plan, seqs, I, S);
  int compute = 0, transfers = 0;
  for (const Task& t : g.tasks()) (t.kind == TaskKind::Transfer ? transfers : compute)++;
  EXPECT_EQ(compute, 2 * S * M * I);
  EXPECT_EQ(transfers, 2 * (S - 1) * M * I);

  const auto idx = index_tasks(g);
  for (int it = 0; it < I; ++it) {
    for (int s = 0; s < S; ++s) {
      for (int m = 0; m < M; ++m) {
        const TaskId f = idx.at({TaskKind::Forward, s, m, it, -1});
        const TaskId b = idx.at({TaskKind::Backward, s, m, it, -1});
        EXPECT_EQ(g.task(f).device, s);
        EXPECT_EQ(g.task(f).amount, 1e12);
        EXPECT_EQ(g.task(b).amount, 2e12);
        EXPECT_EQ(g.task(f).layer_first, s);
        if (s == 0) {
          EXPECT_TRUE(deps(g, f).empty());
        } else {
          const TaskId t = idx.at({TaskKind::Transfer, s - 1, m, it, s});
          EXPECT_EQ(deps(g, f), std::vector<TaskId>{t});
          EXPECT_EQ(deps(g, t), std::vector<TaskId>{idx.at({TaskKind::Forward, s - 1, m, it, -1})});
          EXPECT_EQ(g.task(t).device, s - 1);
          EXPECT_EQ(g.task(t).amount, 50);
        }
        if (s == S - 1) {
          EXPECT_EQ(deps(g, b), std::vector<TaskId>{f});
        } else {
          const TaskId t = idx.at({TaskKind::Transfer, s + 1, m, it, s});
          EXPECT_EQ(deps(g, b), std::vector<TaskId>{t});
          EXPECT_EQ(deps(g, t), std::vector<TaskId>{idx.at({TaskKind::Backward, s + 1, m, it, -1})});
          EXPECT_EQ(g.task(t).device, s + 1);
          EXPECT_EQ(g.task(t).amount, 50);  // input_bytes of stage s+1
        }
      }
    }
  }
  // Each device runs its stage's sequence once per iteration, in order.
  for (int s = 0; s < S; ++s) {
    const auto& order = g.device_order(s);
    ASSERT_EQ(order.size(), static_cast<std::size_t>(2 * M * I));
    for (std::size_t k = 0; k < order.size(); ++k) {
      const Task& t = g.task(order[k]);
      const Op& op = seqs[s][k % (2 * M)];
      EXPECT_EQ(t.kind, op.kind);
      EXPECT_EQ(t.microbatch, op.microbatch);
      EXPECT_EQ(t.iteration, static_cast<int>(k / (2 * M)));
    }
  }
}

TEST(PipelineBuilder, SameDeviceOrEmptyBoundaryHasNoTransfer) {
  // Stages 1 and 2 share device 1; the boundary 2 -> 3 carries nothing.
  StagePlan plan = uniform_plan(4, 1, 2, 50, {0, 1, 1, 2});
  plan.stages[2].output_bytes = 0;
  plan.stages[3].input_bytes = 0;
  const TaskGraph g = build_pipeline(plan, gpipe_sequences(4, 3), 1, 3);
  int transfers = 0;
  for (const Task& t : g.tasks()) transfers += t.kind == TaskKind::Transfer;
  EXPECT_EQ(transfers, 2 * 3);  // only 0 <-> 1
  const auto idx = index_tasks(g);
  EXPECT_EQ(deps(g, idx.at({TaskKind::Forward, 2, 1, 0, -1})),
            std::vector<TaskId>{idx.at({TaskKind::Forward, 1, 1, 0, -1})});
  EXPECT_EQ(deps(g, idx.at({TaskKind::Forward, 3, 1, 0, -1})),
            std::vector<TaskId>{idx.at({TaskKind::Forward, 2, 1, 0, -1})});
  EXPECT_EQ(deps(g, idx.at({TaskKind::Backward, 2, 1, 0, -1})),
            std::vector<TaskId>{idx.at({TaskKind::Backward, 3, 1, 0, -1})});
  for (const TaskMemoryEffect& e : g.memory_effects()) {
    if (e.category == MemoryCategory::CommBuffers) {
      EXPECT_TRUE(e.device == 0 || e.device == 1);
    }
  }
}

TEST(PipelineBuilder, MemoryEffectsBalance) {
  const StagePlan plan = uniform_plan(3, 1, 2, 50);
  for (const auto& seqs : {gpipe_sequences(3, 5), one_f_one_b_sequences(3, 5)}) {
    const TaskGraph g = build_pipeline(plan, seqs, 3, 3);
    std::map<std::pair<int, MemoryCategory>, double> sum;
    std::map<std::pair<int, MemoryCategory>, int> count;
    for (const TaskMemoryEffect& e : g.memory_effects()) {
      sum[{e.device, e.category}] += e.bytes;
      ++count[{e.device, e.category}];
    }
    for (const auto& [key, total] : sum) EXPECT_EQ(total, 0) << key.first;
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ((count[{d, MemoryCategory::Activations}]), 2 * 5 * 3);
      // Sent and received tensors: 4 effects per transfer touching d.
      const int neighbours = d == 1 ? 2 : 1;
      EXPECT_EQ((count[{d, MemoryCategory::CommBuffers}]), neighbours * 2 * 5 * 3 * 2);
    }
    std::map<std::pair<int, MemoryCategory>, double> fixed;
    for (const StaticMemory& m : g.static_memory()) fixed[{m.device, m.category}] += m.bytes;
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ((fixed[{d, MemoryCategory::Weights}]), 1000.0 * (d + 1));
      EXPECT_EQ((fixed[{d, MemoryCategory::Gradients}]), 1000.0 * (d + 1));
    }
  }
}

// A contention-free list schedule of a task graph: compute tasks in device
// order, transfers one at a time per (source, destination) in creation order.
struct Times {
  std::vector<double> start, finish;
};
Times evaluate(const TaskGraph& g, const Platform& p) {
  Times t{std::vector<double>(g.size()), std::vector<double>(g.size())};
  std::map<std::pair<int, int>, double> free_at;  // device (d,-1) or link (d,peer)
  for (TaskId id = 0; id < g.size(); ++id) {
    const Task& task = g.task(id);
    double ready = 0;
    for (const TaskId* d = g.deps_begin(id); d != g.deps_end(id); ++d) ready = std::max(ready, t.finish[*d]);
    double& resource = free_at[{task.device, task.peer}];
    t.start[id] = std::max(ready, resource);
    const double duration = task.kind == TaskKind::Transfer ? p.transfer_time(task.device, task.peer, task.amount)
                                                            : task.amount / p.devices[task.device].speed;
    resource = t.finish[id] = t.start[id] + duration;
  }
  return t;
}

TEST(PipelineBuilder, OneFOneBKeepsFewerStashesThanGPipe) {
  const int S = 4, M = 8;
  const StagePlan plan = uniform_plan(S, 1, 2, 50);
  const Platform p = make_platform(S, 1e12, 0, 1e3);
  auto peak_activations = [&](const std::vector<StageSequence>& seqs) {
    const TaskGraph g = build_pipeline(plan, seqs, 1, S);
    const Times t = evaluate(g, p);
    std::vector<std::pair<double, double>> events;  // (time, bytes) on device 0
    for (const TaskMemoryEffect& e : g.memory_effects())
      if (e.device == 0 && e.category == MemoryCategory::Activations)
        events.push_back({e.when == MemoryWhen::AtStart ? t.start[e.task] : t.finish[e.task], e.bytes});
    std::sort(events.begin(), events.end());  // frees (negative) first at equal times
    double live = 0, peak = 0;
    for (const auto& [time, bytes] : events) peak = std::max(peak, live += bytes);
    return peak;
  };
  EXPECT_EQ(peak_activations(gpipe_sequences(S, M)), M * 100.0);
  EXPECT_EQ(peak_activations(one_f_one_b_sequences(S, M)), S * 100.0);
}

TEST(PipelineBuilder, RejectsBadSequences) {
  const StagePlan plan = uniform_plan(2, 1, 1, 10);
  auto seqs = gpipe_sequences(2, 2);
  seqs[1].pop_back();
  EXPECT_THROW(build_pipeline(plan, seqs, 1, 2), std::logic_error);
  seqs = gpipe_sequences(2, 2);
  std::swap(seqs[0][0], seqs[0][2]);  // B0 before F0 on stage 0: deadlock
  EXPECT_THROW(build_pipeline(plan, seqs, 1, 2), std::logic_error);
}

Workload small_workload(const std::string& schedule) {
  Workload w;
  w.file = "w.yaml";
  w.schedule = schedule;
  w.microbatches = 4;
  w.iterations = 2;
  for (int l = 0; l < 4; ++l) w.layers.push_back({"l", {1, false}, {2, false}, 64, 8});
  return w;
}

std::string schedule_error(const Workload& w) {
  try {
    generate(w, make_platform(2));
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Schedules, Registry) {
  // Every family registered itself (schedules/<family>/), listed sorted.
  EXPECT_EQ(schedule_names(),
            (std::vector<std::string>{"1f1b", "1f1b-pattern", "csv", "dualpipev", "gpipe", "ilp", "interleaved-1f1b",
                                      "interleaved-zb", "kfkb", "looped-bfs", "master", "pattern", "pipedream", "split",
                                      "zb-auto", "zb-h1", "zb-h2", "zbv"}));
  for (const char* name : {"gpipe", "1f1b", "1f1b-flush", "pipedream-flush"}) {
    const TaskGraph g = generate(small_workload(name), make_platform(2)).graph;
    EXPECT_EQ(g.size(), 2u * 2 * 4 * 2 + 2u * 1 * 4 * 2) << name;
  }
  const TaskGraph one = generate(small_workload("1f1b"), make_platform(2)).graph;
  EXPECT_EQ(one.task(one.device_order(0)[2]).kind, TaskKind::Backward);  // F0 F1 B0 ...
  EXPECT_EQ(
      schedule_error(small_workload("zb-h3")),
      "w.yaml: schedule: unknown schedule 'zb-h3' (expected one of: 1f1b (1f1b-flush, pipedream-flush, "
      "schedule1f1b), 1f1b-pattern, csv, dualpipev (scheduledualpipev), gpipe (schedulegpipe), ilp, interleaved-1f1b "
      "(scheduleinterleaved1f1b, interleaved1f1b), interleaved-zb "
      "(scheduleinterleavedzerobubble, interleavedzerobubble, zb1p), kfkb, looped-bfs (scheduleloopedbfs, "
      "loopedbfs), master, pattern, pipedream, split, zb-auto, zb-h1, zb-h2, zbv (schedulezbvzerobubble, "
      "zbvzerobubble, "
      "zb-v))");
  Workload w = small_workload("gpipe");
  w.schedule_params["chunks"] = "2";
  EXPECT_NE(schedule_error(w).find("w.yaml: schedule.chunks: "), std::string::npos);
}

// Maximum cycle ratio by bisection: lambda < MCR iff the graph with weights
// delay - lambda * tokens has a positive cycle.
double max_cycle_ratio(const TimedEventGraph& g) {
  const int n = static_cast<int>(g.nodes.size());
  auto positive_cycle = [&](double lambda) {
    std::vector<double> dist(n, 0);
    for (int round = 0; round < n; ++round) {
      bool changed = false;
      for (const EventArc& a : g.arcs) {
        const double d = dist[a.from] + a.delay - lambda * a.tokens;
        if (d > dist[a.to] + 1e-12) dist[a.to] = d, changed = true;
      }
      if (!changed) return false;
    }
    return true;
  };
  double lo = 0, hi = 0;
  for (const EventArc& a : g.arcs) hi += a.delay;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (positive_cycle(mid) ? lo : hi) = mid;
  }
  return lo;
}

int find_node(const TimedEventGraph& g, const std::string& name) {
  return static_cast<int>(std::find(g.nodes.begin(), g.nodes.end(), name) - g.nodes.begin());
}

bool has_arc(const TimedEventGraph& g, const std::string& from, const std::string& to, int tokens) {
  const int u = find_node(g, from), v = find_node(g, to);
  return std::any_of(g.arcs.begin(), g.arcs.end(),
                     [&](const EventArc& a) { return a.from == u && a.to == v && a.tokens == tokens; });
}

TEST(OneFOneBEventGraph, Structure) {
  const int S = 4;
  const Platform p = make_platform(S, 1e12, 0, 100);
  const TimedEventGraph with = one_f_one_b_event_graph(uniform_plan(S, 1, 2, 50), p);
  EXPECT_EQ(with.nodes.size(), 2u * S + 2 * (S - 1));
  EXPECT_EQ(with.arcs.size(), 2u * S + 6 * (S - 1));
  EXPECT_TRUE(has_arc(with, "F1", "B1", 0));
  EXPECT_TRUE(has_arc(with, "B1", "F1", 1));
  EXPECT_TRUE(has_arc(with, "F1", "T1>2", 0));
  EXPECT_TRUE(has_arc(with, "T1>2", "F2", 1));
  EXPECT_TRUE(has_arc(with, "T1>2", "T1>2", 1));
  EXPECT_TRUE(has_arc(with, "B2", "T2>1", 0));
  EXPECT_TRUE(has_arc(with, "T2>1", "B1", 0));
  EXPECT_TRUE(has_arc(with, "T2>1", "T2>1", 1));
  for (const EventArc& a : with.arcs) {
    if (with.nodes[a.from][0] == 'T') {
      EXPECT_DOUBLE_EQ(a.delay, 0.5);
    }
  }

  const TimedEventGraph without = one_f_one_b_event_graph(uniform_plan(S, 1, 2, 0), p);
  EXPECT_EQ(without.nodes.size(), 2u * S);
  EXPECT_EQ(without.arcs.size(), 2u * S + 2 * (S - 1));
  EXPECT_TRUE(has_arc(without, "F0", "F1", 1));
  EXPECT_TRUE(has_arc(without, "B1", "B0", 0));
}

TEST(OneFOneBEventGraph, PeriodOfUniformStages) {
  for (int S = 1; S <= 6; ++S) {
    const Platform p = make_platform(S, 1e12, 0, 100);
    EXPECT_NEAR(max_cycle_ratio(one_f_one_b_event_graph(uniform_plan(S, 1, 2, 0), p)), 3, 1e-9);
    const double c = 0.5;  // 50 bytes at 100 B/s
    EXPECT_NEAR(max_cycle_ratio(one_f_one_b_event_graph(uniform_plan(S, 1, 2, 50), p)), 3 + 2 * (S - 1) * c / S, 1e-9);
  }
}

// The event graph's period equals the time per micro-batch of a long 1F1B
// run of the task graph, uniform or not.
TEST(OneFOneBEventGraph, PeriodMatchesListSchedule) {
  const int M = 300;
  struct Case {
    int S;
    std::vector<double> f, b;
    double bytes, bandwidth;
  };
  const std::vector<Case> cases = {
      {4, {1, 1, 1, 1}, {2, 2, 2, 2}, 50, 100},
      {4, {1, 1, 1, 1}, {2, 2, 2, 2}, 400, 100},  // transfers longer than compute
      {3, {1, 3, 1}, {2, 1, 4}, 30, 100},
      {5, {0.5, 1, 2, 1, 0.7}, {1, 2, 1, 3, 0.9}, 80, 100},
  };
  for (const Case& k : cases) {
    StagePlan plan = uniform_plan(k.S, 1, 1, k.bytes);
    for (int s = 0; s < k.S; ++s) {
      plan.stages[s].forward_seconds = k.f[s];
      plan.stages[s].backward_seconds = k.b[s];
      plan.stages[s].forward_flops = k.f[s] * 1e12;
      plan.stages[s].backward_flops = k.b[s] * 1e12;
    }
    const Platform p = make_platform(k.S, 1e12, 0, k.bandwidth);
    const TaskGraph g = build_pipeline(plan, one_f_one_b_sequences(k.S, M), 1, k.S);
    const Times t = evaluate(g, p);
    const auto idx = index_tasks(g);
    const auto b0 = [&](int m) { return t.start[idx.at({TaskKind::Backward, 0, m, 0, -1})]; };
    // The steady state may repeat every few micro-batches: measure over 120,
    // a multiple of every cyclicity up to 6.
    const double measured = (b0(240) - b0(120)) / 120;
    EXPECT_NEAR(max_cycle_ratio(one_f_one_b_event_graph(plan, p)), measured, 1e-6) << k.S;
  }
}

}  // namespace
}  // namespace pipesim
