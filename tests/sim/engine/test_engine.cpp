// The SimGrid engine on hand-made task graphs. Each test runs in its own
// process (gtest_discover_tests), as SimGrid allows one engine per process.
#include <cmath>
#include <limits>
#include <utility>
#include <vector>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "sim/engine/platform_reader.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

using testing::complete_platform;
using testing::write_file;

Task compute(int device, double flops, int microbatch = -1) {
  Task t;
  t.kind = TaskKind::Forward;
  t.device = device;
  t.amount = flops;
  t.microbatch = microbatch;
  return t;
}

Task transfer(int from, int to, double bytes) {
  Task t;
  t.kind = TaskKind::Transfer;
  t.device = from;
  t.peer = to;
  t.amount = bytes;
  return t;
}

TEST(Engine, ReadsDevicesSpeedsMemoryAndPaths) {
  Simulation sim(complete_platform(3, "2GBps", "1ms", "5Tf", "16GiB"));
  const Platform& p = sim.platform();
  ASSERT_EQ(p.size(), 3);
  EXPECT_EQ(p.devices[2].name, "gpu2");
  EXPECT_DOUBLE_EQ(p.devices[0].speed, 5e12);
  EXPECT_DOUBLE_EQ(p.devices[0].memory, 16.0 * (1ull << 30));
  EXPECT_TRUE(p.path(0, 2).exists);
  EXPECT_DOUBLE_EQ(p.path(2, 0).bandwidth, 2e9);
  EXPECT_DOUBLE_EQ(p.path(2, 0).latency, 1e-3);
  EXPECT_DOUBLE_EQ(p.transfer_time(0, 1, 2e9), 1.001);
}

TEST(Engine, ComputeAndTransferTimesAreExact) {
  Simulation sim(complete_platform(2, "1GBps", "1ms", "1Tf"));
  TaskGraph g(2);
  const TaskId a = g.add(compute(0, 2e12));
  const TaskId t = g.add(transfer(0, 1, 3e9), {a});
  const TaskId b = g.add(compute(1, 0.5e12), {t});
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed());
  EXPECT_DOUBLE_EQ(tl.finish[a], 2.0);
  EXPECT_DOUBLE_EQ(tl.start[t], 2.0);
  EXPECT_NEAR(tl.finish[t], 5.001, 1e-9);
  EXPECT_NEAR(tl.finish[b], 5.501, 1e-9);
  EXPECT_NEAR(tl.makespan, 5.501, 1e-9);
  ASSERT_EQ(tl.route_end(t) - tl.route_begin(t), 1);
  EXPECT_EQ(tl.links[*tl.route_begin(t)].name, "l0-1_UP");  // SimGrid names split-duplex halves
}

TEST(Engine, ConcurrentTransfersShareALinkDirection) {
  Simulation sim(complete_platform(2, "1GBps", "0s"));
  TaskGraph g(2);
  const TaskId x = g.add(transfer(0, 1, 1e9));
  const TaskId y = g.add(transfer(0, 1, 1e9));
  const TaskId back = g.add(transfer(1, 0, 1e9));  // other direction: its own capacity
  const Timeline tl = sim.run(g);
  EXPECT_NEAR(tl.finish[x], 2.0, 1e-9);
  EXPECT_NEAR(tl.finish[y], 2.0, 1e-9);
  EXPECT_NEAR(tl.finish[back], 1.0, 1e-9);
}

TEST(Engine, DeviceRunsOneTaskAtATimeInItsOrder) {
  Simulation sim(complete_platform(1));
  TaskGraph g(1);
  const TaskId a = g.add(compute(0, 1e12));
  const TaskId b = g.add(compute(0, 2e12));
  const TaskId c = g.add(compute(0, 3e12));
  g.append_to_order(c);
  g.append_to_order(a);
  g.append_to_order(b);
  const Timeline tl = sim.run(g);
  EXPECT_DOUBLE_EQ(tl.finish[c], 3.0);
  EXPECT_DOUBLE_EQ(tl.start[a], 3.0);
  EXPECT_DOUBLE_EQ(tl.finish[b], 6.0);
}

TEST(Engine, UnorderedDeviceRunsReadyTasksByPriority) {
  Simulation sim(complete_platform(1));
  TaskGraph g(1);
  Task low = compute(0, 1e12);
  low.priority = 5;
  Task high = compute(0, 1e12);
  high.priority = 1;
  const TaskId l = g.add(low);
  const TaskId h = g.add(high);
  const Timeline tl = sim.run(g);
  EXPECT_DOUBLE_EQ(tl.finish[h], 1.0);
  EXPECT_DOUBLE_EQ(tl.finish[l], 2.0);
}

TEST(Engine, ZeroCostTasksCompleteAtOnce) {
  Simulation sim(complete_platform(2));
  TaskGraph g(2);
  const TaskId a = g.add(compute(0, 1e12));
  const TaskId z = g.add(compute(0, 0), {a});
  const TaskId t = g.add(transfer(0, 1, 0), {z});
  const TaskId b = g.add(compute(1, 1e12), {t});
  const Timeline tl = sim.run(g);
  EXPECT_DOUBLE_EQ(tl.finish[z], 1.0);
  EXPECT_DOUBLE_EQ(tl.finish[t], 1.0);
  EXPECT_DOUBLE_EQ(tl.finish[b], 2.0);
}

TEST(Engine, DeadlockIsReportedWithItsWaitingCycle) {
  Simulation sim(complete_platform(2));
  TaskGraph g(2);
  const TaskId a0 = g.add(compute(0, 1e12, 0));
  const TaskId b1 = g.add(compute(1, 1e12, 1));
  const TaskId b0 = g.add(compute(1, 1e12, 0), {a0});
  const TaskId a1 = g.add(compute(0, 1e12, 1), {b1});
  // Device 0 insists on mb 1 first, which needs device 1's mb 1, queued behind mb 0.
  g.append_to_order(a1);
  g.append_to_order(a0);
  g.append_to_order(b0);
  g.append_to_order(b1);
  const Timeline tl = sim.run(g);
  EXPECT_FALSE(tl.completed());
  EXPECT_EQ(tl.blocked.size(), 4u);
  EXPECT_NE(tl.deadlock.find("4 of 4 tasks never ran"), std::string::npos) << tl.deadlock;
  EXPECT_NE(tl.deadlock.find("waiting cycle"), std::string::npos) << tl.deadlock;
  EXPECT_NE(tl.deadlock.find("device order"), std::string::npos) << tl.deadlock;
}

void expect_platform_error(const std::string& path, const std::string& fragment) {
  try {
    Simulation sim(path);
    FAIL() << "no error for " << path;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(Engine, MissingPlatformFile) { expect_platform_error("/nonexistent/platform.xml", "cannot open"); }

TEST(Engine, MalformedPlatformXml) {
  expect_platform_error(write_file("bad.xml", "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">"),
                        "XML syntax error");
}

TEST(Engine, PlatformWithoutDevices) {
  // No memory property: hosts, but none of them a device.
  expect_platform_error(write_file("nodevice.xml", testing::complete_platform_xml(2, "1GBps", "0s", "1Tf", "")),
                        "no device");
}

TEST(Engine, MalformedMemoryProperty) {
  expect_platform_error(write_file("badmem.xml", testing::complete_platform_xml(2, "1GBps", "0s", "1Tf", "lots")),
                        "property memory");
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

const std::string kPlatforms = std::string(PIPESIM_SOURCE_DIR) + "/platforms/";

TEST(ShippedPlatforms, NvswitchBoxRoutesThroughTheSwitch) {
  Simulation sim(kPlatforms + "nvswitch-8gpu.xml");
  const Platform& p = sim.platform();
  ASSERT_EQ(p.size(), 8);
  EXPECT_EQ(p.devices[7].name, "gpu7");
  EXPECT_DOUBLE_EQ(p.devices[0].memory, 80.0 * (1ull << 30));
  EXPECT_EQ(p.path(0, 7).hops, 2);
  EXPECT_DOUBLE_EQ(p.path(0, 7).bandwidth, 300e9);
  EXPECT_NEAR(p.path(0, 7).latency, 2e-6, 1e-15);
}

TEST(ShippedPlatforms, TwoBoxesCrossOneInfinibandLink) {
  Simulation sim(kPlatforms + "two-nvswitch-8gpu-infiniband.xml");
  const Platform& p = sim.platform();
  ASSERT_EQ(p.size(), 16);
  EXPECT_EQ(p.devices[8].name, "box1-gpu0");
  EXPECT_EQ(p.path(0, 8).hops, 3);
  EXPECT_DOUBLE_EQ(p.path(0, 8).bandwidth, 25e9);
  EXPECT_NEAR(p.path(0, 8).latency, 4e-6, 1e-15);
  EXPECT_EQ(p.path(0, 1).hops, 2);
}

TEST(ShippedPlatforms, CompleteGraphHasADirectLinkPerPair) {
  Simulation sim(kPlatforms + "complete-4.xml");
  const Platform& p = sim.platform();
  ASSERT_EQ(p.size(), 4);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      if (a != b) {
        EXPECT_EQ(p.path(a, b).hops, 1);
        EXPECT_DOUBLE_EQ(p.path(a, b).bandwidth, 12.5e9);
      }
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

TEST(EngineSettings, UnknownModelIsAnInputErrorNotAnAbort) {
  try {
    Simulation sim(testing::complete_platform(2), {"network/model:Bogus"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--cfg: network/model:Bogus: expected one of CM02, LV08, IB, SMPI, Constant");
  }
}

TEST(EngineSettings, UnknownKeyGivesOneLine) {
  try {
    Simulation sim(testing::complete_platform(2), {"foo/bar:1"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(EngineSettings, ModelCanBeChosen) {
  // LV08 multiplies bandwidth by 0.97 and latency by 13.01: slower than the CM02 default.
  Simulation sim(testing::complete_platform(2, "1GBps", "1ms"), {"network/model:LV08"});
  TaskGraph g(2);
  Task t;
  t.kind = TaskKind::Transfer;
  t.device = 0;
  t.peer = 1;
  t.amount = 1e9;
  g.add(t);
  const Timeline tl = sim.run(g);
  EXPECT_GT(tl.makespan, 1.02);
  EXPECT_THROW(sim.run(g), std::logic_error);
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// Tasks that become ready at the same instant through different completions
// compete by priority on a device without an order (the master scheduler's
// greedy rule), whichever completion SimGrid reports first. One Simulation
// runs once, so the graph holds both orders side by side: on devices 0, 1 -> 2
// the low-priority task's input is added first, on 3, 4 -> 5 the high one's.
TEST(EnginePriority, SimultaneousArrivalsCompeteByPriority) {
  Simulation sim(testing::complete_platform(6, "1GBps", "0s"));
  TaskGraph g(6);
  std::vector<std::pair<TaskId, TaskId>> high_low;
  for (int flip = 0; flip < 2; ++flip) {
    const int base = 3 * flip;
    Task tx;
    tx.kind = TaskKind::Transfer;
    tx.peer = base + 2;
    tx.amount = 1e9;
    tx.device = base + flip;  // the first transfer added feeds `low` when flip is 0, `high` when 1
    const TaskId first = g.add(tx);
    tx.device = base + 1 - flip;
    const TaskId second = g.add(tx);
    Task low;
    low.kind = TaskKind::Forward;
    low.device = base + 2;
    low.amount = 1e12;
    low.priority = 5;
    Task high = low;
    high.priority = 1;
    const TaskId into_low = flip == 0 ? first : second, into_high = flip == 0 ? second : first;
    const TaskId l = g.add(low, {into_low});
    const TaskId h = g.add(high, {into_high});
    high_low.emplace_back(h, l);
  }
  const Timeline tl = sim.run(g);
  for (const auto& [h, l] : high_low) {
    EXPECT_DOUBLE_EQ(tl.start[h], 1.0);
    EXPECT_DOUBLE_EQ(tl.start[l], 2.0);
  }
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// Paths are found when first asked for (a 10,000-host platform took 22 s and
// 5 GB when every pair was computed up front) and shared by copies.
TEST(EnginePaths, FoundOnDemandSharedByCopiesAndOnlyWhileTheSimulationLives) {
  Platform copy;
  {
    Simulation sim(testing::complete_platform(3, "2GBps", "1ms"));
    const Platform& p = sim.platform();
    EXPECT_TRUE(p.paths.empty());
    ASSERT_NE(p.path_source, nullptr);
    const Path& first = p.path(0, 2);
    EXPECT_EQ(&p.path(0, 2), &first);  // found once, then kept
    EXPECT_DOUBLE_EQ(first.bandwidth, 2e9);
    EXPECT_EQ(p.path(1, 1).hops, 0);
    EXPECT_TRUE(p.path(1, 1).exists);
    copy = p;
    EXPECT_EQ(&copy.path(0, 2), &first);
  }
  EXPECT_DOUBLE_EQ(copy.path(0, 2).latency, 1e-3);        // found before: still there
  EXPECT_THROW((void)copy.path(2, 1), std::logic_error);  // SimGrid is gone
}

// The pattern model and the analytic engine need each route's links and how
// SimGrid shares them: a split-duplex link is two Shared directions.
TEST(EnginePaths, RoutesNameTheirLinksWithTheirSharing) {
  // Three sharing policies and a router: the link table's names, sharing and directions are the point.
  const std::string xml = testing::PlatformXml("Floyd", "box")
                              .host("gpu0", "1Tf", {{"memory", "1GiB"}})
                              .host("gpu1", "1Tf", {{"memory", "1GiB"}})
                              .router("switch")
                              .link("a", "2GBps", "1us", "SPLITDUPLEX")
                              .link("b", "3GBps", "2us", "FATPIPE")
                              .route("gpu0", "switch", {{"a", "UP"}})
                              .route("gpu1", "switch", {{"b", ""}})
                              .xml();
  Simulation sim(write_file("links-sharing.xml", xml));
  const Platform& p = sim.platform();
  ASSERT_EQ(p.links.size(), 3u);  // by name, without SimGrid's loopback
  EXPECT_EQ(p.links[0].name, "a_DOWN");
  EXPECT_EQ(p.links[1].name, "a_UP");
  EXPECT_EQ(p.links[2].name, "b");
  EXPECT_EQ(p.links[0].sharing, LinkSharing::Shared);
  EXPECT_EQ(p.links[2].sharing, LinkSharing::FatPipe);
  EXPECT_DOUBLE_EQ(p.links[2].bandwidth, 3e9);
  EXPECT_DOUBLE_EQ(p.links[2].latency, 2e-6);
  EXPECT_EQ(p.path(0, 1).links, (std::vector<int>{1, 2}));  // a_UP then b
  EXPECT_EQ(p.path(1, 0).links, (std::vector<int>{2, 0}));  // b then a_DOWN
  EXPECT_FALSE(p.time_varying);
}

TEST(EnginePaths, ProfilesMakeThePlatformTimeVarying) {
  write_file("speed-profile.txt", "0 1.0\n10 0.5\nLOOPAFTER 10\n");  // found beside the platform
  const std::string xml =
      testing::hosts_platform_xml(1, "gpu", "1Tf", "1GiB", "availability_file=\"speed-profile.txt\"");
  Simulation sim(write_file("time-varying.xml", xml));
  EXPECT_TRUE(sim.platform().time_varying);
}

TEST(EnginePaths, TenThousandHostStarLoadsQuickly) {
  const std::string platform = write_file(
      "star10k.xml",
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform "
      "version=\"4.1\">\n"
      "  <cluster id=\"star\" prefix=\"gpu\" suffix=\"\" radical=\"0-9999\" speed=\"156Tf\" bw=\"25GBps\" lat=\"1us\""
      " sharing_policy=\"SPLITDUPLEX\">\n    <prop id=\"memory\" value=\"80GiB\"/>\n  </cluster>\n</platform>\n");
  Simulation sim(platform);
  const Platform& p = sim.platform();
  ASSERT_EQ(p.size(), 10000);
  EXPECT_EQ(p.devices[9999].name, "gpu9999");
  // Nothing tabulated up front (all pairs took 51 s and 4.3 GB here; on
  // demand the run takes about 0.5 s): only the pairs asked for are routed.
  EXPECT_TRUE(p.paths.empty());
  const auto* source = dynamic_cast<const SimGridPathSource*>(p.path_source.get());
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->found(), 0u);
  EXPECT_EQ(p.path(0, 9999).hops, 2);  // up its private link, down the other's
  EXPECT_DOUBLE_EQ(p.path(0, 9999).bandwidth, 25e9);
  EXPECT_EQ(source->found(), 1u);
}

// SimGrid keeps running past an Exec of inf flops and crashes at exit.
TEST(EngineAmounts, NonFiniteAmountIsAnInputError) {
  Simulation sim(testing::complete_platform(2));
  TaskGraph g(2);
  g.add(compute(0, std::numeric_limits<double>::infinity()));
  try {
    sim.run(g);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("task graph: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected a finite flop count >= 0, got inf"), std::string::npos) << e.what();
  }
}

TEST(EngineAmounts, TransferAbove64BitsIsAnInputError) {
  Simulation sim(testing::complete_platform(2));
  TaskGraph g(2);
  g.add(transfer(0, 1, 1e20));
  EXPECT_THROW(sim.run(g), InputError);
}

}  // namespace
}  // namespace pipesim
