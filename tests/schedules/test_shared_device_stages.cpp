// Several pipeline stages on one device under gpipe and 1f1b: the stage plan
// (explicit lists naming a host twice, automatic placement with more stages
// than devices), the devices' merged orders, closed-form makespans, memory
// peaks, no deadlock on random placements, and the refusals of the
// schedules that run one stage per device.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "patterns/pattern_timing.hpp"
#include "schedules/flush/flush_pattern.hpp"
#include "schedules/flush/flush_sequences.hpp"
#include "schedules/registry.hpp"
#include "schedules/stages/stage_merge.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

constexpr double kF = 1.0, kB = 2.0;  // seconds on the 1 Tf reference device

// D devices of 1 Tf, every pair routed (no SimGrid).
Platform devices(int n) {
  Platform p;
  p.file = "plat.xml";
  for (int i = 0; i < n; ++i) p.devices.push_back({"gpu" + std::to_string(i), 1e12, 1e15, "gpu"});
  p.paths.assign(n * n, Path{true, 0, 1e15, 1});
  for (int i = 0; i < n; ++i) p.paths[i * n + i] = Path{true, 0, 0, 0};
  return p;
}

// L uniform layers (F = 1 s, B = 2 s), each stashing `activation` bytes.
Workload chain(const std::string& schedule, int layers, int microbatches, double activation = 0) {
  Workload w;
  w.file = "w.yaml";
  w.schedule = schedule;
  w.microbatches = microbatches;
  w.reference_speed = 1e12;
  w.input = activation;
  for (int l = 0; l < layers; ++l)
    w.layers.push_back({"l" + std::to_string(l), {kF, false}, {kB, false}, activation, 0});
  return w;
}

// One layer per stage, stage s on hosts[s].
Workload placed(Workload w, const std::vector<std::string>& hosts) {
  w.placement.automatic = false;
  for (std::size_t s = 0; s < hosts.size(); ++s) {
    w.placement.stage_layers.push_back({static_cast<int>(s), static_cast<int>(s)});
    w.placement.stage_hosts.push_back(hosts[s]);
  }
  return w;
}

Workload automatic(Workload w, int stages) {
  w.placement.stages = stages;
  return w;
}

// A device's order as "<stage>F<micro-batch>" / "<stage>B<micro-batch>".
std::string device_order(const TaskGraph& g, int device) {
  std::string out;
  for (TaskId t : g.device_order(device)) {
    const Task task = g.task(t);
    out += (out.empty() ? "" : " ") + std::to_string(task.stage) + (task.kind == TaskKind::Forward ? "F" : "B") +
           std::to_string(task.microbatch);
  }
  return out;
}

std::string error_of(const Workload& w, const Platform& p) {
  return testing::error_message<InputError>([&] { generate(w, p); });
}

TEST(SharedDeviceStagePlan, AutomaticPlacementPutsContiguousBlocksOnEachDevice) {
  auto devices_of = [](int stages, int device_count) {
    const StagePlan plan =
        make_stage_plan(automatic(chain("gpipe", 8, 1), stages), devices(device_count), StagesPerDevice::Several);
    std::vector<int> out;
    for (const Stage& st : plan.stages) out.push_back(st.device);
    return out;
  };
  EXPECT_EQ(devices_of(4, 1), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(devices_of(4, 2), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(devices_of(5, 2), (std::vector<int>{0, 0, 0, 1, 1}));  // floor(s * D / N)
  EXPECT_EQ(devices_of(8, 3), (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(devices_of(7, 5), (std::vector<int>{0, 0, 1, 2, 2, 3, 4}));  // larger blocks spread evenly
  EXPECT_EQ(devices_of(3, 4), (std::vector<int>{0, 1, 2}));  // no more stages than devices: stage i on device i
  // The layers are still balanced: two per stage.
  const StagePlan plan = make_stage_plan(automatic(chain("gpipe", 8, 1), 4), devices(2), StagesPerDevice::Several);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(plan.stages[s].last_layer - plan.stages[s].first_layer, 1) << s;
  EXPECT_TRUE(shares_devices(plan));
  EXPECT_FALSE(shares_devices(make_stage_plan(automatic(chain("gpipe", 8, 1), 2), devices(2))));
}

TEST(SharedDeviceStagePlan, ExplicitListsMayNameAHostTwice) {
  const Workload w = placed(chain("gpipe", 4, 1), {"gpu0", "gpu1", "gpu0", "gpu0"});
  const StagePlan plan = make_stage_plan(w, devices(2), StagesPerDevice::Several);
  ASSERT_EQ(plan.stages.size(), 4u);
  EXPECT_EQ(plan.stages[2].device, 0);
  EXPECT_EQ(plan.stages[3].device, 0);
  // More stages than devices, and layers still checked.
  Workload gap = w;
  gap.placement.stage_layers[1] = {2, 2};
  EXPECT_EQ(testing::error_message<InputError>([&] { make_stage_plan(gap, devices(2), StagesPerDevice::Several); }),
            "w.yaml: placement[1].layers: stages must cover layers 0..3 contiguously, in order (this one should start "
            "at 1)");
}

// One stage per device: the sequences are those of before (stage s warms
// up with min(S - s - 1, M) forwards), the builder's emission is its own.
TEST(SharedDeviceStagePlan, OneStagePerDeviceKeepsItsSequences) {
  for (int S = 1; S <= 6; ++S)
    for (int M : {1, 2, 5, 9}) {
      const StagePlan plan = make_stage_plan(automatic(chain("1f1b", 6, M), S), devices(6), StagesPerDevice::Several);
      EXPECT_FALSE(shares_devices(plan));
      EXPECT_EQ(one_f_one_b_sequences(plan, M), one_f_one_b_sequences(S, M)) << S << " " << M;
      EXPECT_EQ(gpipe_sequences(plan, M), gpipe_sequences(S, M));
      EXPECT_EQ(plan.stages.size(), make_stage_plan(automatic(chain("1f1b", 6, M), S), devices(6)).stages.size());
    }
}

// The measured one-GPU GPipe run: 4 stages, 8 micro-batches.
TEST(SharedDeviceOrders, GPipeOnOneDeviceIsTheMeasuredOrder) {
  const TaskGraph g = generate(automatic(chain("gpipe", 4, 8), 4), devices(1)).graph;
  std::string forwards, backwards;
  for (int m = 0; m < 8; ++m)
    for (int s = 0; s < 4; ++s) forwards += (forwards.empty() ? "" : " ") + std::to_string(s) + "F" + std::to_string(m);
  for (int m = 0; m < 8; ++m)
    for (int s = 3; s >= 0; --s) backwards += " " + std::to_string(s) + "B" + std::to_string(m);
  EXPECT_EQ(device_order(g, 0), forwards + backwards);
  EXPECT_EQ(device_order(g, 0).substr(0, 24), "0F0 1F0 2F0 3F0 0F1 1F1 ");
  EXPECT_EQ(device_order(g, 0).substr(forwards.size(), 17), " 3B0 2B0 1B0 0B0 ");
  // The explicit list gives the same graph.
  const TaskGraph listed = generate(placed(chain("gpipe", 4, 8), {"gpu0", "gpu0", "gpu0", "gpu0"}), devices(1)).graph;
  EXPECT_EQ(device_order(listed, 0), device_order(g, 0));
}

// 1F1B on one device: depth first, each micro-batch's forwards then its
// backwards before the next micro-batch (the device is one pipeline stage,
// whose 1F1B warm-up is 0).
TEST(SharedDeviceOrders, OneFOneBOnOneDeviceIsDepthFirst) {
  const TaskGraph g = generate(automatic(chain("1f1b", 4, 8), 4), devices(1)).graph;
  std::string expected;
  for (int m = 0; m < 8; ++m) {
    for (int s = 0; s < 4; ++s) expected += (expected.empty() ? "" : " ") + std::to_string(s) + "F" + std::to_string(m);
    for (int s = 3; s >= 0; --s) expected += " " + std::to_string(s) + "B" + std::to_string(m);
  }
  EXPECT_EQ(device_order(g, 0), expected);
}

// Two devices with two stages each: each device runs its stages as one
// stage of a two-deep pipeline.
TEST(SharedDeviceOrders, TwoDevicesWithTwoStagesEach) {
  const Platform p = devices(2);
  const Workload gpipe = placed(chain("gpipe", 4, 4), {"gpu0", "gpu0", "gpu1", "gpu1"});
  const TaskGraph g = generate(gpipe, p).graph;
  EXPECT_EQ(device_order(g, 0), "0F0 1F0 0F1 1F1 0F2 1F2 0F3 1F3 1B0 0B0 1B1 0B1 1B2 0B2 1B3 0B3");
  EXPECT_EQ(device_order(g, 1), "2F0 3F0 2F1 3F1 2F2 3F2 2F3 3F3 3B0 2B0 3B1 2B1 3B2 2B2 3B3 2B3");
  Workload one_f_one_b = gpipe;
  one_f_one_b.schedule = "1f1b";
  const TaskGraph h = generate(one_f_one_b, p).graph;
  EXPECT_EQ(device_order(h, 0), "0F0 1F0 0F1 1F1 1B0 0B0 0F2 1F2 1B1 0B1 0F3 1F3 1B2 0B2 1B3 0B3");
  EXPECT_EQ(device_order(h, 1), "2F0 3F0 3B0 2B0 2F1 3F1 3B1 2B1 2F2 3F2 3B2 2B2 2F3 3F3 3B3 2B3");
  // Automatic placement of 4 stages on 2 devices: the same plan, the same orders.
  const TaskGraph a = generate(automatic(chain("1f1b", 4, 4), 4), p).graph;
  EXPECT_EQ(device_order(a, 0), device_order(h, 0));
  EXPECT_EQ(device_order(a, 1), device_order(h, 1));
  // The one-stage event graph does not describe a merged order.
  EXPECT_THROW(one_f_one_b_event_graph(make_stage_plan(gpipe, p, StagesPerDevice::Several), p), std::invalid_argument);
  // 1F1B's warm-up counts device changes, not stages.
  EXPECT_EQ(device_hops_to_last(make_stage_plan(gpipe, p, StagesPerDevice::Several)), (std::vector<int>{1, 1, 0, 0}));
}

struct SimRun {
  TaskGraph graph;
  Timeline timeline;
};

// The analytic engine on the D-device platform above (SimGrid allows one
// engine per process; SimGridAgrees below runs it once).
SimRun simulate(const Workload& w, int device_count) {
  const Platform p = devices(device_count);
  TaskGraph g = generate(w, p).graph;
  AnalyticOutcome out = run_analytic(g, p);
  if (!out.timeline) ADD_FAILURE() << "not analytic: " << out.refusal;
  return {std::move(g), out.timeline ? std::move(*out.timeline) : Timeline{}};
}

// One device: no idle time, the makespan is the sum of every task.
TEST(SharedDeviceMakespan, OneDeviceRunsEveryTaskBackToBack) {
  for (const char* schedule : {"gpipe", "1f1b"})
    for (int M : {1, 3, 8}) {
      Workload w = automatic(chain(schedule, 6, M, 1024), 4);
      for (int l = 0; l < 6; ++l) w.layers[l].forward = {0.5 + l, false}, w.layers[l].backward = {1.0 + 2 * l, false};
      w.iterations = 2;
      const SimRun r = simulate(w, 1);
      ASSERT_TRUE(r.timeline.completed()) << r.timeline.deadlock;
      double sum = 0;
      for (TaskId t = 0; t < r.graph.size(); ++t) sum += r.timeline.finish[t] - r.timeline.start[t];
      EXPECT_NEAR(sum, 2.0 * M * (6 * 0.5 + 15 + 6 * 1.0 + 30), 1e-9) << schedule << " M=" << M;
      EXPECT_NEAR(r.timeline.makespan, sum, 1e-9) << schedule << " M=" << M;
    }
}

// D devices with k uniform stages each and free transfers: the closed form
// of a D-stage pipeline whose stages cost k F and k B, (M + D - 1) k (F + B),
// for both schedules.
TEST(SharedDeviceMakespan, BlocksOfStagesRunAsOneDeepPipeline) {
  for (const char* schedule : {"gpipe", "1f1b"})
    for (int D : {2, 3})
      for (int k : {2, 3})
        for (int M : {1, 4, 8}) {
          const SimRun r = simulate(automatic(chain(schedule, D * k, M), D * k), D);
          ASSERT_TRUE(r.timeline.completed()) << r.timeline.deadlock;
          EXPECT_DOUBLE_EQ(r.timeline.makespan, (M + D - 1) * k * (kF + kB))
              << schedule << " D=" << D << " k=" << k << " M=" << M;
        }
}

// Memory on one device (uniform stages, each stashing a and handing a to the
// next): GPipe stashes every micro-batch of every stage, 1F1B one
// micro-batch; the tensor handed between two stages is held from its
// producer's start to its consumer's finish, so two are held at once while
// a middle stage runs.
TEST(SharedDeviceMemory, OneDevicePeaks) {
  const double a = 1024;
  const int S = 4, M = 8;
  const int activations = static_cast<int>(MemoryCategory::Activations);
  const int comm = static_cast<int>(MemoryCategory::CommBuffers);
  for (const char* schedule : {"gpipe", "1f1b"}) {
    const SimRun r = simulate(automatic(chain(schedule, S, M, a), S), 1);
    ASSERT_TRUE(r.timeline.completed()) << r.timeline.deadlock;
    const auto peaks = peak_memory(r.graph, r.timeline);
    const double stashes = std::string(schedule) == "gpipe" ? M * S : S;
    EXPECT_DOUBLE_EQ(peaks[0].category_peaks[activations], stashes * a) << schedule;
    EXPECT_DOUBLE_EQ(peaks[0].category_peaks[comm], 2 * a) << schedule;
    EXPECT_DOUBLE_EQ(peaks[0].total, (stashes + 1) * a) << schedule;
  }
}

// Two devices, two stages each: device d keeps min(D - d, M) micro-batches of
// each of its stages under 1F1B, M under GPipe.
TEST(SharedDeviceMemory, TwoDevicesStashPerDeviceDepth) {
  const double a = 1024;  // over 1 PB/s: transfers take 1e-12 s
  const int activations = static_cast<int>(MemoryCategory::Activations);
  for (const char* schedule : {"gpipe", "1f1b"})
    for (int M : {1, 2, 8}) {
      const SimRun r = simulate(placed(chain(schedule, 4, M, a), {"gpu0", "gpu0", "gpu1", "gpu1"}), 2);
      ASSERT_TRUE(r.timeline.completed()) << r.timeline.deadlock;
      const auto peaks = peak_memory(r.graph, r.timeline);
      for (int d = 0; d < 2; ++d) {
        const int in_flight = std::string(schedule) == "gpipe" ? M : std::min(2 - d, M);
        EXPECT_DOUBLE_EQ(peaks[d].category_peaks[activations], 2 * in_flight * a)
            << schedule << " M=" << M << " d=" << d;
      }
    }
}

// Random placements (hosts named in any order, a host again after another),
// random micro-batches: the merged orders keep each stage's sequence, the
// run completes, every memory category returns to zero, and the exported
// pattern's period is the simulated iteration.
TEST(SharedDeviceOrders, RandomPlacementsNeverDeadlock) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int D = std::uniform_int_distribution<int>(1, 3)(rng);
    const int S = std::uniform_int_distribution<int>(1, 6)(rng);
    const int M = std::uniform_int_distribution<int>(1, 6)(rng);
    const bool gpipe = trial % 2 == 0;
    std::vector<std::string> hosts;
    for (int s = 0; s < S; ++s)
      hosts.push_back("gpu" + std::to_string(std::uniform_int_distribution<int>(0, D - 1)(rng)));
    Workload w = placed(chain(gpipe ? "gpipe" : "1f1b", S, M, 1024), hosts);
    for (Layer& l : w.layers)
      l.forward = {std::uniform_real_distribution<double>(0.5, 2)(rng), false},
      l.backward = {std::uniform_real_distribution<double>(1, 3)(rng), false};
    const std::string what = w.schedule + " hosts " + std::to_string(S) + " on " + std::to_string(D) +
                             " M=" + std::to_string(M) + " trial " + std::to_string(trial);
    const Platform platform = devices(D);
    const TaskGraph g = generate(w, platform).graph;
    // Each stage's own sequence, in the order its device runs it.
    const StagePlan plan = make_stage_plan(w, platform, StagesPerDevice::Several);
    const auto sequences = gpipe ? gpipe_sequences(plan, M) : one_f_one_b_sequences(plan, M);
    std::vector<StageSequence> seen(S);
    for (int d = 0; d < D; ++d)
      for (TaskId t : g.device_order(d)) seen[g.task(t).stage].push_back({g.task(t).kind, g.task(t).microbatch});
    EXPECT_EQ(seen, sequences) << what;
    const AnalyticOutcome out = run_analytic(g, platform);
    ASSERT_TRUE(out.timeline) << what << ": " << out.refusal;
    const Timeline& tl = *out.timeline;
    ASSERT_TRUE(tl.completed()) << what << ": " << tl.deadlock;
    std::map<std::pair<int, int>, double> sums;
    for (TaskId t = 0; t < g.size(); ++t)
      for (const MemoryEffect& e : g.memory_effects(t)) sums[{e.device, static_cast<int>(e.category)}] += e.bytes;
    for (const auto& [key, sum] : sums) EXPECT_DOUBLE_EQ(sum, 0) << what;
    const Pattern p = flush_pattern(plan, sequences, w, platform);
    EXPECT_NEAR(p.period, tl.makespan, 1e-6) << what;
  }
}

// SimGrid itself on two devices with two stages each (one engine per process:
// one run per test), against the closed form and the analytic engine.
void simgrid_agrees(const std::string& schedule) {
  const double a = 1024;
  Simulation sim(testing::complete_platform(2, "1PBps"));
  const TaskGraph g =
      generate(placed(chain(schedule, 4, 8, a), {"gpu0", "gpu0", "gpu1", "gpu1"}), sim.platform()).graph;
  const AnalyticOutcome analytic = sim.run_analytic(g);
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  EXPECT_NEAR(tl.makespan, (8 + 1) * 2 * (kF + kB), 1e-6);
  ASSERT_TRUE(analytic.timeline) << analytic.refusal;
  EXPECT_NEAR(analytic.timeline->makespan, tl.makespan, 1e-9);
  const auto peaks = peak_memory(g, tl);
  const int activations = static_cast<int>(MemoryCategory::Activations);
  EXPECT_DOUBLE_EQ(peaks[0].category_peaks[activations], (schedule == "gpipe" ? 16 : 4) * a);
  EXPECT_DOUBLE_EQ(peaks[1].category_peaks[activations], (schedule == "gpipe" ? 16 : 2) * a);
}

TEST(SharedDeviceSimGrid, GPipeTwoDevicesTwoStagesEach) { simgrid_agrees("gpipe"); }
TEST(SharedDeviceSimGrid, OneFOneBTwoDevicesTwoStagesEach) { simgrid_agrees("1f1b"); }

TEST(SharedDeviceOrders, MergeIsATopologicalOrderKeepingEachSequence) {
  const auto merged = merge_stage_sequences(one_f_one_b_sequences(3, 2));
  ASSERT_EQ(merged.size(), 12u);
  EXPECT_EQ(merged.front(), (StageOp{0, {TaskKind::Forward, 0}}));
  EXPECT_EQ(merged.back(), (StageOp{0, {TaskKind::Backward, 1}}));
  // Sequences that deadlock whatever the merge: stage 1 waits for B0 before F0.
  std::vector<StageSequence> bad = gpipe_sequences(2, 1);
  bad[1] = {{TaskKind::Backward, 0}, {TaskKind::Forward, 0}};
  EXPECT_THROW(merge_stage_sequences(bad), std::logic_error);
}

// The schedules that run one stage per device refuse, in one line naming the
// workload and the placement.
TEST(SharedDeviceRefusals, OtherSchedulesNameThePlacement) {
  const Platform p = devices(2);
  for (const char* schedule : {"pipedream", "kfkb", "1f1b-pattern"}) {
    const std::string name = schedule;
    EXPECT_EQ(error_of(automatic(chain(schedule, 4, 4), 4), p),
              "w.yaml: placement.stages: 4 stages but only 2 devices; schedule '" + name +
                  "' runs one stage per device (gpipe and 1f1b run several)");
    EXPECT_EQ(error_of(placed(chain(schedule, 4, 4), {"gpu0", "gpu0", "gpu1", "gpu1"}), devices(4)),
              "w.yaml: placement[1].host: host 'gpu0' already runs another stage; schedule '" + name +
                  "' runs one stage per device (gpipe and 1f1b run several)");
  }
  // Memory saving budgets a device for its one stage.
  Workload w = placed(chain("gpipe", 4, 4, 1024), {"gpu0", "gpu0", "gpu1", "gpu1"});
  w.memory_saving.policy = "remat";
  EXPECT_EQ(error_of(w, p),
            "w.yaml: memory_saving: runs one stage per device (its limits are a device's memory), but placement puts "
            "stages 0 and 1 on gpu0");
}

}  // namespace
}  // namespace pipesim
