// The analytic engine (sim/engine/analytic_engine.hpp) against the SimGrid
// executor: the same timeline wherever it runs, and a precise refusal where
// it cannot be sure. SimGrid runs in forked children (analytic_test_support.hpp).
#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "sim/engine/analytic_engine.hpp"
#include "sim/engine/simgrid_settings.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "tests/sim/engine/analytic_test_support.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

using testing::compute;
using testing::expect_same_timeline;
using testing::simgrid_timeline;
using testing::transfer;
using testing::write_file;

// Three 1 Tf hosts; gpu0 and gpu1 reach gpu2 over one link "bus" (POLICY),
// behind a private link each (gpu1's of latency A1, gpu0's of 1 us).
std::string bus_platform(const std::string& policy, const std::string& a1 = "1us", const std::string& bus = "0s") {
  testing::PlatformXml x;
  for (const char* gpu : {"gpu0", "gpu1", "gpu2"}) x.host(gpu, "1Tf", {{"memory", "1TiB"}});
  return x.link("a0", "10GBps", "1us")
      .link("a1", "10GBps", a1)
      .link("bus", "1GBps", bus, policy)
      .route("gpu0", "gpu2", {{"a0", ""}, {"bus", ""}})
      .route("gpu1", "gpu2", {{"a1", ""}, {"bus", ""}})
      .route("gpu0", "gpu1", {{"a0", ""}, {"a1", ""}})
      .write("bus-" + policy + "-" + a1 + "-" + bus + ".xml");
}

// gpu0 and gpu1 each compute, then send 1 GB to gpu2, which computes on both.
TaskGraph two_flows(double second_start_flops) {
  TaskGraph g(3);
  const TaskId c0 = g.add(compute(0, 1e12));
  const TaskId c1 = g.add(compute(1, second_start_flops));
  const TaskId t0 = g.add(transfer(0, 2, 1e9, 0), {c0});
  const TaskId t1 = g.add(transfer(1, 2, 1e9, 1), {c1});
  g.add(compute(2, 1e12), {t0, t1});
  return g;
}

// SimGrid's CM02 shares the bus: the first flow alone for 0.5 s, then both
// at half the rate (they have the same latency, so the same penalty).
TEST(AnalyticEngine, TwoFlowsOnOneSharedLinkShareItAsInSimGrid) {
  Simulation sim(bus_platform("SHARED"));
  const TaskGraph g = two_flows(1.5e12);
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_NEAR(out.timeline->finish[2], 1 + 1e-6 + 0.5 + 2 * 0.5, 1e-9);
  EXPECT_NEAR(out.timeline->finish[3], 1.5 + 1e-6 + 2 * 0.5 + 0.5, 1e-9);
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
}

// A path's weights (a folded job's: docs/folding.md) are lmm's consumption
// weights: gpu0's flow, standing for 2 flows on the bus, shares it with
// gpu1's as the 3 flows would (each gets a third of 1 GB/s: both end at
// 1 us + 3 s); alone it gets half the bus (1 us + 2 s), by the list pass.
TEST(AnalyticEngine, AWeightedFlowSharesALinkAsTheFlowsItStandsFor) {
  Simulation sim(bus_platform("SHARED"));
  Platform view = sim.platform();
  const int n = view.size();
  view.paths.assign(static_cast<std::size_t>(n) * n, Path{});
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) view.paths[a * n + b] = sim.platform().path(a, b);
  view.paths[0 * n + 2].weights = {1, 2};  // a0, bus
  TaskGraph both(3);
  both.add(transfer(0, 2, 1e9, 0));
  both.add(transfer(1, 2, 1e9, 1));
  const AnalyticOutcome shared = sim.run_analytic(both, view);
  ASSERT_TRUE(shared.timeline) << shared.refusal;
  EXPECT_NEAR(shared.timeline->finish[0], 1e-6 + 3, 1e-9);
  EXPECT_NEAR(shared.timeline->finish[1], 1e-6 + 3, 1e-9);
  TaskGraph three(3);  // the flows it stands for, on SimGrid
  three.add(transfer(0, 2, 1e9, 0));
  three.add(transfer(0, 2, 1e9, 1));
  three.add(transfer(1, 2, 1e9, 2));
  const Timeline whole = simgrid_timeline(sim, three);
  EXPECT_NEAR(shared.timeline->finish[0], whole.finish[0], 1e-9);
  EXPECT_NEAR(shared.timeline->finish[1], whole.finish[2], 1e-9);
  EXPECT_EQ(shared.timeline->route_weights, (std::vector<double>{1, 2, 1, 1}));
  TaskGraph alone(3);
  alone.add(transfer(0, 2, 1e9, 0));
  const AnalyticOutcome half = sim.run_analytic(alone, view);
  ASSERT_TRUE(half.timeline) << half.refusal;
  EXPECT_FALSE(half.shared);
  EXPECT_NEAR(half.timeline->finish[0], 1e-6 + 2, 1e-9);
}

// CM02's sharing penalty is a flow's route latency: on one link, rates are
// in inverse proportion to latency (RTT unfairness). gpu0 reaches gpu2 with
// 1 us of latency, gpu1 with 3 us: while both send, gpu0's flow gets 3/4 of
// the bus. Both start at 0 with 1 GB; gpu0's ends at 1e9 / 0.75e9 s after
// its latency, then gpu1's has the bus alone.
TEST(AnalyticEngine, FlowsShareALinkInInverseProportionToTheirLatency) {
  Simulation sim(bus_platform("SHARED", "3us"));
  TaskGraph g(3);
  g.add(transfer(0, 2, 1e9, 0));
  g.add(transfer(1, 2, 1e9, 1));
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  // gpu0's flow: from 1 us alone until 3 us (2e3 bytes), then 3/4 of the bus.
  const double first = 3e-6 + (1e9 - 1e9 * 2e-6) / 0.75e9;
  EXPECT_NEAR(out.timeline->finish[0], first, 1e-12);
  // gpu1's: 1/4 of the bus from 3 us to `first`, then all of it.
  EXPECT_NEAR(out.timeline->finish[1], first + (1e9 - 0.25e9 * (first - 3e-6)) / 1e9, 1e-12);
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
}

// lmm's precision (maxmin/precision) decides when a link counts as full.
// gpu0's 1 GB goes through its 0.9995 GB/s access link (1 us) and the 1 GB/s
// bus; gpu1's 1 MB through its 10 GB/s, 10 ms access link and the bus: a
// penalty 10^4 times gpu0's, so gpu0's access link saturates first and the
// bus keeps 5e5 B/s for gpu1.
std::string precision_bus() {
  testing::PlatformXml x;
  for (const char* gpu : {"gpu0", "gpu1", "gpu2"}) x.host(gpu, "1Tf", {{"memory", "1TiB"}});
  return x.link("a0", "0.9995GBps", "1us")
      .link("a1", "10GBps", "10ms")
      .link("bus", "1GBps", "0s")
      .route("gpu0", "gpu2", {{"a0", ""}, {"bus", ""}})
      .route("gpu1", "gpu2", {{"a1", ""}, {"bus", ""}})
      .route("gpu0", "gpu1", {{"a0", ""}, {"a1", ""}})
      .write("precision-bus.xml");
}

// gpu0 sends once gpu1's flow is past its latency (10 ms).
TaskGraph precision_flows() {
  TaskGraph g(3);
  const TaskId late = g.add(compute(0, 1e10));
  g.add(transfer(0, 2, 1e9, 0), {late});
  g.add(transfer(1, 2, 1e6, 1));
  return g;
}

// At the default 1e-5 that remainder is gpu1's: alone on the bus for 1 us
// (1e3 bytes), then 5e5 B/s beside gpu0's 0.9995 GB/s, then the bus alone.
TEST(AnalyticEngine, TheMaxMinsDefaultPrecisionLeavesTheRemainder) {
  Simulation sim(precision_bus());
  const TaskGraph g = precision_flows();
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_TRUE(out.shared);
  const double both = 0.01 + 1e-6, first_end = both + 1e9 / 0.9995e9;
  EXPECT_NEAR(out.timeline->finish[1], first_end, 1e-9);
  EXPECT_NEAR(out.timeline->finish[2], first_end + (1e6 - 1e3 - 5e5 * (first_end - both)) / 1e9, 1e-9);
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
}

// At 1e-3 the 5e5 B/s left on the bus is below its precision (1e6): the
// bus counts as full before gpu1's flow is set, which then takes what its
// access link allows, 10 GB/s, beyond the bus. That is SimGrid's answer
// (lmm drops a saturated link from the rounds, maxmin.cpp), and the
// analytic engine's: the setting reaches it through analytic_refusal.
TEST(AnalyticEngine, ACoarseMaxMinPrecisionIsSimGrids) {
  Simulation sim(precision_bus(), {"maxmin/precision:1e-3"});
  AnalyticSettings settings;
  ASSERT_EQ(analytic_refusal(effective_simgrid_config({"maxmin/precision:1e-3"}), sim.platform(), settings), "");
  EXPECT_EQ(settings.maxmin_precision, 1e-3);
  const TaskGraph g = precision_flows();
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_NEAR(out.timeline->finish[2], 0.01 + 1e-6 + (1e6 - 1e3) / 1e10, 1e-12);
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
}

// A flow whose only link lmm drops as full before setting it gets no rate
// at all, which SimGrid cannot run (its lazy update dies there): with gpu1
// straight on the bus (no latency: penalty 1, against gpu0's 1e-6) and
// maxmin/precision 1e-3, gpu0's flow leaves the bus 5e5 B/s, below its
// precision, and the analytic engine refuses, naming the flow.
TEST(AnalyticEngine, AFlowTheMaxMinLeavesNoRateIsRefused) {
  testing::PlatformXml x;
  for (const char* gpu : {"gpu0", "gpu1", "gpu2"}) x.host(gpu, "1Tf", {{"memory", "1TiB"}});
  Simulation sim(x.link("a0", "0.9995GBps", "1us")
                     .link("bus", "1GBps", "0s")
                     .route("gpu0", "gpu2", {{"a0", ""}, {"bus", ""}})
                     .route("gpu1", "gpu2", {{"bus", ""}})
                     .route("gpu0", "gpu1", {{"a0", ""}, {"bus", ""}})
                     .write("starving-bus.xml"));
  TaskGraph g(3);
  g.add(transfer(0, 2, 1e9, 0));
  g.add(transfer(1, 2, 1e9, 1));
  AnalyticSettings coarse;
  coarse.maxmin_precision = 1e-3;
  const AnalyticOutcome out = run_analytic(g, sim.platform(), coarse);
  ASSERT_FALSE(out.timeline);
  EXPECT_EQ(out.refusal,
            "transfer 'transfer mb 1 (dev 1->2)' gets no bandwidth at t = 1e-06 s (SimGrid's max-min precision "
            "leaves it none)");
  // At the default precision the remainder is its own: the run is exact.
  EXPECT_TRUE(sim.run_analytic(g).timeline);
}

TEST(AnalyticEngine, FlowsOneAfterTheOtherOnASharedLinkAreExact) {
  Simulation sim(bus_platform("SHARED"));
  // The second flow starts when the first has finished (1 + 1e-6 + 1 s).
  const TaskGraph g = two_flows(2.5e12);
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_DOUBLE_EQ(out.timeline->finish[2], 1 + 1e-6 + 1);
  EXPECT_DOUBLE_EQ(out.timeline->finish[3], 2.5 + 1e-6 + 1);
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
}

// A transfer holds no bandwidth while its latency elapses (SimGrid's CM02):
// on a bus with 1 s of latency, the second flow's latency phase may overlap
// the first's data phase, and both keep the whole bus. Only data phases that
// overlap share it.
TEST(AnalyticEngine, OnlyDataPhasesShareALink) {
  Simulation sim(bus_platform("SHARED", "1us", "1s"));
  // First flow: latency [1, 2 + 1e-6), data until 3 + 1e-6. Second from 2.5 s: data from 3.5 + 1e-6.
  const TaskGraph g = two_flows(2.5e12);
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_DOUBLE_EQ(out.timeline->finish[2], 1 + 1 + 1e-6 + 1);
  EXPECT_DOUBLE_EQ(out.timeline->finish[3], 2.5 + 1 + 1e-6 + 1);
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
  AnalyticSettings replay;
  replay.list_fast_path = false;
  const AnalyticOutcome events = run_analytic(g, sim.platform(), replay);
  ASSERT_TRUE(events.timeline) << events.refusal;
  expect_same_timeline(*events.timeline, *out.timeline, "replay vs fast path");
  // From 1.5 s the second flow's data (from 2.5 + 1e-6) meets the first's:
  // they share the bus from then on, the first with 0.5 GB left.
  const AnalyticOutcome shared = sim.run_analytic(two_flows(1.5e12));
  ASSERT_TRUE(shared.timeline) << shared.refusal;
  EXPECT_NEAR(shared.timeline->finish[2], 2.5 + 1e-6 + 2 * 0.5, 1e-9);
  expect_same_timeline(*shared.timeline, simgrid_timeline(sim, two_flows(1.5e12)));
}

TEST(AnalyticEngine, TwoFlowsOnAFatPipeAreExact) {
  Simulation sim(bus_platform("FATPIPE"));
  const TaskGraph g = two_flows(1.5e12);
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_DOUBLE_EQ(out.timeline->finish[3], 1.5 + 1e-6 + 1);  // the full bandwidth each
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
}

TEST(AnalyticEngine, OppositeSplitDuplexDirectionsShareNothingAndOneDirectionIsShared) {
  Simulation sim(testing::complete_platform(2, "1GBps", "1ms"));
  TaskGraph g(2);
  const TaskId c0 = g.add(compute(0, 1e12));
  const TaskId c1 = g.add(compute(1, 1.2e12));
  const TaskId a = g.add(transfer(0, 1, 1e9), {c0});
  const TaskId b = g.add(transfer(1, 0, 1e9), {c1});
  g.add(compute(1, 1e12), {a});
  g.add(compute(0, 1e12), {b});
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_DOUBLE_EQ(out.timeline->finish[b], 1.2 + 1e-3 + 1);
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));

  TaskGraph same_way(2);
  const TaskId d0 = same_way.add(compute(0, 1e12));
  same_way.add(transfer(0, 1, 1e9), {d0});
  same_way.add(transfer(0, 1, 2e9, 3));
  const AnalyticOutcome shared = sim.run_analytic(same_way);
  ASSERT_TRUE(shared.timeline) << shared.refusal;
  // The 2 GB flow alone on l0-1_UP from 1 ms moves 1 GB by 1.001 s, when the
  // 1 GB flow's data starts: then 1 GB each at half the rate, 2 s.
  EXPECT_NEAR(shared.timeline->finish[1], 1.001 + 2, 1e-9);
  EXPECT_NEAR(shared.timeline->finish[2], 1.001 + 2, 1e-9);
  expect_same_timeline(*shared.timeline, simgrid_timeline(sim, same_way));
}

TEST(AnalyticEngine, DeadlockGivesTheSameReport) {
  Simulation sim(testing::complete_platform(2));
  TaskGraph g(2);
  const TaskId a = g.add(compute(0, 1e12));
  const TaskId b = g.add(compute(0, 1e12), {a});
  const TaskId c = g.add(compute(1, 1e12));
  g.append_to_order(c);
  g.append_to_order(b);
  g.append_to_order(a);  // a after b in gpu0's order, but b needs a
  g.add(transfer(0, 1, 1e9), {b});
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_EQ(out.timeline->blocked, (std::vector<TaskId>{0, 1, 3}));
  EXPECT_EQ(out.timeline->deadlock,
            "deadlock: 3 of 4 tasks never ran; waiting cycle: forward (dev 0) waits (device order) for forward "
            "(dev 0) waits (data) for forward (dev 0)");
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
}

// The master scheduler's rule: tasks ready at one instant compete by priority.
TEST(AnalyticEngine, SimultaneousArrivalsCompeteByPriorityAsInSimGrid) {
  Simulation sim(testing::complete_platform(3, "1GBps", "0s"));
  TaskGraph g(3);
  const TaskId from0 = g.add(transfer(0, 2, 1e9));
  const TaskId from1 = g.add(transfer(1, 2, 1e9));
  const TaskId l = g.add(compute(2, 1e12, 5), {from0});
  const TaskId h = g.add(compute(2, 1e12, 1), {from1});
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_DOUBLE_EQ(out.timeline->start[h], 1.0);
  EXPECT_DOUBLE_EQ(out.timeline->start[l], 2.0);
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
}

// One SimGrid engine per process (a second one in the same process crashed
// under AddressSanitizer): the settings are checked on the platform it read.
TEST(AnalyticEngine, SettingsThatChangeTimesAndProfilesAreRefused) {
  Simulation sim(testing::complete_platform(2), {"network/latency-factor:1.0", "network/weight-S:8775"});
  TaskGraph g(2);
  g.add(compute(0, 1e12));
  EXPECT_TRUE(sim.run_analytic(g).timeline);  // settings that change nothing
  AnalyticSettings settings;
  auto refusal = [&](const std::string& setting) {
    return analytic_refusal(effective_simgrid_config({setting}), sim.platform(), settings);
  };
  EXPECT_EQ(refusal("network/model:LV08"), "--cfg network/model:LV08 changes transfer times");
  EXPECT_EQ(refusal("network/crosstraffic:1"), "--cfg network/crosstraffic:1 slows opposite flows");
  EXPECT_EQ(refusal("network/TCP-gamma:4194304"), "--cfg network/TCP-gamma:4194304 caps transfer rates");
  EXPECT_EQ(refusal("cpu/optim:Full"), "--cfg cpu/optim:Full updates executions differently");
  EXPECT_EQ(refusal("network/latency-factor:2"), "--cfg network/latency-factor:2 changes transfer times");
  EXPECT_EQ(refusal("cpu/optim:Lazy"), "");
  Platform platform = sim.platform();
  platform.time_varying = true;
  EXPECT_EQ(analytic_refusal(effective_simgrid_config({}), platform, settings),
            "the platform has profiles (speeds, bandwidths or states that change over time)");
}

TEST(AnalyticEngine, BadAmountsAreTheSameInputErrors) {
  Simulation sim(testing::complete_platform(2));
  TaskGraph g(2);
  g.add(compute(0, std::numeric_limits<double>::infinity()));
  EXPECT_EQ(testing::error_message<InputError>([&] { sim.run_analytic(g); }),
            "task graph: forward (dev 0): expected a finite flop count >= 0, got inf (a cost too large for the "
            "device's speed?)");
}

// Two lanes of one resource with shares (seed 004's split), three
// micro-batches: forwards on lane 0, backwards on lane 1 of gpu0, each
// backward's result sent to gpu1.
TaskGraph lanes(double share0, double share1) {
  TaskGraph g(2);
  for (int m = 0; m < 3; ++m) {
    Task f = compute(0, 1e11 * (m + 1));
    f.share = share0;
    f.microbatch = m;
    Task b = compute(0, 3e11);
    b.lane = 1;
    b.share = share1;
    b.microbatch = m;
    const TaskId ft = g.add(f);
    g.append_to_order(ft);
    const TaskId bt = g.add(b, {ft});
    g.append_to_order(bt);
    g.add(transfer(0, 1, 1e8, m), {bt});
  }
  return g;
}

// Lanes within their shares run at their bounds; lanes asking together for
// more than the speed share it by max-min (Cas01 under cpu/optim:Lazy), as
// SimGrid does.
TEST(AnalyticEngine, LanesShareTheirResourceAsSimGridsCpuModelDoes) {
  Simulation sim(testing::complete_platform(2, "1GBps", "0s", "1Tf"), {"cpu/optim:Lazy"});
  const TaskGraph g = lanes(0.25, 0.75);
  const AnalyticOutcome out = sim.run_analytic(g);
  ASSERT_TRUE(out.timeline) << out.refusal;
  EXPECT_DOUBLE_EQ(out.timeline->finish[0], 0.4);  // 1e11 flops at 0.25 Tf/s
  expect_same_timeline(*out.timeline, simgrid_timeline(sim, g));
  const TaskGraph over = lanes(0.5, 0.75);
  const AnalyticOutcome shared = sim.run_analytic(over);
  ASSERT_TRUE(shared.timeline) << shared.refusal;
  expect_same_timeline(*shared.timeline, simgrid_timeline(sim, over));
  // Forward mb 0 (1e11 flops) runs alone at its bound, 0.5 Tf/s, to 0.2 s.
  // From then each forward (bound 0.5) runs beside a backward (bound 0.75):
  // 1.25 > 1 Tf/s, so max-min gives each 0.5. Forward mb 1 (2e11) ends at
  // 0.6, backward mb 0 (3e11) at 0.8; backward mb 1 has 1e11 left when
  // forward mb 2 ends at 1.2 and runs it alone at its bound.
  const TaskId b0 = 1, f1 = 3, b1 = 4;
  EXPECT_DOUBLE_EQ(shared.timeline->finish[0], 0.2);
  EXPECT_DOUBLE_EQ(shared.timeline->start[f1], 0.2);
  EXPECT_DOUBLE_EQ(shared.timeline->finish[f1], 0.6);
  EXPECT_DOUBLE_EQ(shared.timeline->finish[b0], 0.8);
  EXPECT_DOUBLE_EQ(shared.timeline->finish[b1], 1.2 + 1e11 / 0.75e12);
}

// With lanes, the contention-free pass (a plan's time bound) is the longest
// path with each execution at its rate alone: forward mb 0 ends at 0.1 s,
// then forwards (2e11, 3e11 flops) and backwards (3e11 each) run side by
// side at 1 Tf/s, backward mb 2 ends at 1.0 s and its 1e8-byte send at
// 1.1 s; the run, whose pairs share the GPU, takes longer (1.5e12 flops in all).
TEST(AnalyticEngine, TheContentionFreeBoundOfLanesIsTheirLongestPathAlone) {
  Simulation sim(testing::complete_platform(2, "1GBps", "0s", "1Tf"), {"cpu/optim:Lazy"});
  const TaskGraph g = lanes(1, 1);
  const std::optional<Timeline> bound = contention_free_timeline(g, sim.platform());
  ASSERT_TRUE(bound);
  EXPECT_DOUBLE_EQ(bound->makespan, 1.1);
  const AnalyticOutcome run = sim.run_analytic(g);
  ASSERT_TRUE(run.timeline) << run.refusal;
  EXPECT_GE(run.timeline->makespan, 1.5);
  EXPECT_TRUE(run.shared_executions);
}

TEST(AnalyticEngine, LanesBeyondTheSpeedUnderTheTiCpuModelAreRefused) {
  Simulation ti(testing::complete_platform(2, "1GBps", "0s", "1Tf"), {"cpu/optim:TI"});
  EXPECT_EQ(ti.run_analytic(lanes(1, 1)).refusal,
            "tasks 'forward mb 0 (dev 0)' and 'forward mb 1 (dev 0)' run on one resource of gpu0 with shares 1 "
            "and 1 at t = 0.1 s (more than its whole speed: cpu/optim:TI would share it)");
}

// Random graphs: compute tasks and transfers on discrete sizes (so that many
// events coincide), random dependencies, some devices ordered (in a random
// order, which may deadlock), some greedy with tied priorities, some lanes
// mixed. Wherever the analytic engine accepts a graph it equals SimGrid.
// all_ordered: every compute task in its device's order, which takes the
// longest-path fast path; it must then agree with the event replay too.
// lanes: compute tasks on lanes 0 and 1 with shares (cpu/optim:Lazy); else under cpu/optim:TI.
void random_graphs(const std::string& platform_file, int devices, unsigned seed, int graphs, int& exact,
                   bool all_ordered = false, bool lanes = false) {
  Simulation sim(platform_file, {lanes ? "cpu/optim:Lazy" : "cpu/optim:TI"});
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int k = 0; k < graphs; ++k) {
    TaskGraph g(devices);
    const int n = 8 + pick(40);
    std::vector<std::vector<TaskId>> computes(devices);
    for (int i = 0; i < n; ++i) {
      std::vector<TaskId> deps;
      for (int d = pick(4); d > 0 && i > 0; --d) {
        const TaskId dep = static_cast<TaskId>(pick(i));
        if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(dep);
      }
      if (pick(3) == 0) {
        const int from = pick(devices);
        const int to = pick(5) == 0 ? from : (from + 1 + pick(devices - 1)) % devices;
        g.add(transfer(from, to, pick(6) == 0 ? 0 : 2.5e8 * (1 + pick(4)), i), deps);
      } else {
        const int d = pick(devices);
        Task c = compute(d, pick(8) == 0 ? 0 : 2.5e11 * (1 + pick(6)), pick(3));
        c.microbatch = i;
        if (lanes) {
          c.lane = pick(2);
          const double shares[] = {1, 0.5, 0.25, 0.75};
          c.share = shares[pick(4)];
        }
        computes[d].push_back(g.add(c, deps));
      }
    }
    for (int d = 0; d < devices; ++d) {
      if (!all_ordered && pick(2) == 0) continue;  // greedy device
      std::vector<TaskId> order = computes[d];
      if (pick(all_ordered ? 4 : 2) == 0) std::shuffle(order.begin(), order.end(), rng);
      for (const TaskId t : order)
        if (all_ordered || pick(10) != 0) g.append_to_order(t);  // now and then one left out: a mixed lane
    }
    const AnalyticOutcome out = sim.run_analytic(g);
    if (all_ordered) {
      AnalyticSettings replay;
      replay.list_fast_path = false;
      replay.bounded_cpu = lanes;
      const AnalyticOutcome events = run_analytic(g, sim.platform(), replay);
      // The same verdict, the same link and time (two transfers that start together may be named in either order).
      auto where = [](const std::string& refusal) {
        return refusal.substr(std::min(refusal.size(), refusal.find(" both use")));
      };
      EXPECT_EQ(where(events.refusal), where(out.refusal)) << "graph " << k;
      if (events.timeline && out.timeline) expect_same_timeline(*out.timeline, *events.timeline, "fast path vs replay");
    }
    if (!out.timeline) continue;
    ++exact;
    if (!expect_same_timeline(*out.timeline, simgrid_timeline(sim, g),
                              "seed " + std::to_string(seed) + " graph " + std::to_string(k) + ": "))
      return;
  }
}

TEST(AnalyticEngineRandom, SplitDuplexPairsWithoutLatency) {
  int exact = 0;
  random_graphs(testing::complete_platform(3, "1GBps", "0s"), 3, 1, 150, exact);
  EXPECT_GE(exact, 105);
}

TEST(AnalyticEngineRandom, SplitDuplexPairsWithLatency) {
  int exact = 0;
  random_graphs(testing::complete_platform(4, "1GBps", "1ms"), 4, 2, 150, exact);
  EXPECT_GE(exact, 108);
}

// Three hosts reach a Shared bus behind access links of 1, 2 and 5 us: flows
// on the bus share it in inverse proportion to their route's latency.
std::string unequal_bus_platform() {
  testing::PlatformXml x;
  for (const char* gpu : {"gpu0", "gpu1", "gpu2"}) x.host(gpu, "1Tf", {{"memory", "1TiB"}});
  return x.link("a0", "10GBps", "1us", "SPLITDUPLEX")
      .link("a1", "4GBps", "2us", "SPLITDUPLEX")
      .link("a2", "2GBps", "5us", "SPLITDUPLEX")
      .link("bus", "1GBps", "0s")
      .route("gpu0", "gpu1", {{"a0", "UP"}, {"bus", ""}, {"a1", "DOWN"}})
      .route("gpu0", "gpu2", {{"a0", "UP"}, {"bus", ""}, {"a2", "DOWN"}})
      .route("gpu1", "gpu2", {{"a1", "UP"}, {"bus", ""}, {"a2", "DOWN"}})
      .write("unequal-bus.xml");
}

TEST(AnalyticEngineRandom, SharedBusWithUnequalLatencies) {
  int exact = 0;
  random_graphs(unequal_bus_platform(), 3, 8, 150, exact);
  EXPECT_GE(exact, 100);
}

TEST(AnalyticEngineRandom, AllOrderedOnASharedBusWithUnequalLatencies) {
  int exact = 0;
  random_graphs(unequal_bus_platform(), 3, 9, 100, exact, true);
  EXPECT_GE(exact, 90);
}

TEST(AnalyticEngineRandom, FatPipeBus) {
  int exact = 0;
  random_graphs(bus_platform("FATPIPE"), 3, 3, 150, exact);
  EXPECT_GE(exact, 119);
}

// One Simulation (one SimGrid engine) per test: a second engine in the same
// process crashed under AddressSanitizer.
TEST(AnalyticEngineRandom, LanesWithShares) {
  int exact = 0;
  random_graphs(testing::complete_platform(3, "1GBps", "1us"), 3, 6, 150, exact, false, true);
  EXPECT_GE(exact, 122);
}

TEST(AnalyticEngineRandom, LanesWithSharesAllOrdered) {
  int exact = 0;
  random_graphs(testing::complete_platform(2, "1GBps", "0s"), 2, 7, 150, exact, true, true);
  EXPECT_GE(exact, 150);  // every graph
}

TEST(AnalyticEngineRandom, AllOrderedTakeTheFastPathAndEqualTheReplayAndSimGrid) {
  int exact = 0;
  random_graphs(testing::complete_platform(3, "1GBps", "1us"), 3, 4, 100, exact, true);
  EXPECT_GE(exact, 100);
}

TEST(AnalyticEngineRandom, AllOrderedOnAFatPipeBus) {
  int exact = 0;
  random_graphs(bus_platform("FATPIPE"), 3, 5, 100, exact, true);
  EXPECT_GE(exact, 100);
}

}  // namespace
}  // namespace pipesim
