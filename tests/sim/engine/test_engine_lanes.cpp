// Tasks on several resources and lanes of one device, with shares of a
// resource's speed (Task::resource, lane, share), and the platform format
// for devices with several compute resources. One process per test.
#include <gtest/gtest.h>

#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

using testing::complete_platform;
using testing::error_message;
using testing::write_file;

Task compute(int device, double flops, int lane = 0, double share = 1, int resource = 0) {
  Task t;
  t.kind = TaskKind::Forward;
  t.device = device;
  t.amount = flops;
  t.lane = lane;
  t.share = share;
  t.resource = resource;
  return t;
}

// A laptop: its CPU is the device host, its GPU a resource host joined by a
// local link; a second device, a Raspberry Pi, linked to the laptop.
std::string laptop_xml(const std::vector<testing::Prop>& gpu_extra = {}, const std::string& gpu_owner = "laptop",
                       const std::string& gpu_type = "gpu") {
  std::vector<testing::Prop> gpu = {{"resource_of", gpu_owner}, {"resource", gpu_type}};
  gpu.insert(gpu.end(), gpu_extra.begin(), gpu_extra.end());
  return testing::PlatformXml()
      .host("laptop", "1Tf", {{"memory", "16GiB"}, {"resource", "cpu"}, {"backward_speed", "0.5Tf"}})
      .host("laptop-gpu", "4Tf", gpu)
      .host("pi", "10Gf", {{"memory", "4GiB"}, {"kind", "mobile"}})
      .link("local", "100GBps", "0s")
      .link("wifi", "10MBps", "2ms", "SPLITDUPLEX")
      .route("laptop", "laptop-gpu", {{"local", ""}})
      .route("laptop", "pi", {{"wifi", "UP"}})
      .xml();
}

TEST(EngineLanes, LanesOfOneResourceShareItsSpeed) {
  Simulation sim(
      complete_platform(1, "1GBps", "0s", "1Tf"));  // cpu/optim:Lazy, the default: TI cannot bound an execution
  TaskGraph g(1);
  const TaskId f = g.add(compute(0, 1e12, 0, 0.25));
  const TaskId b = g.add(compute(0, 1e12, 1, 0.75));
  const Timeline tl = sim.run(g);
  EXPECT_DOUBLE_EQ(tl.start[b], 0.0);
  EXPECT_NEAR(tl.finish[b], 4.0 / 3.0, 1e-9);  // 0.75 Tf while both run
  EXPECT_NEAR(tl.finish[f], 4.0, 1e-9);        // bounded at 0.25 Tf even once alone
}

TEST(EngineLanes, EachLaneRunsItsOrderOneTaskAtATime) {
  Simulation sim(complete_platform(1, "1GBps", "0s", "1Tf"));
  TaskGraph g(1);
  const TaskId f0 = g.add(compute(0, 1e12, 0, 0.5));
  const TaskId b0 = g.add(compute(0, 1e12, 1, 0.5));
  const TaskId f1 = g.add(compute(0, 1e12, 0, 0.5));
  const TaskId b1 = g.add(compute(0, 1e12, 1, 0.5));
  for (TaskId t : {f1, b1, f0, b0}) g.append_to_order(t);  // per lane: f1 then f0, b1 then b0
  const Timeline tl = sim.run(g);
  EXPECT_DOUBLE_EQ(tl.start[f1], 0.0);
  EXPECT_DOUBLE_EQ(tl.start[b1], 0.0);
  EXPECT_NEAR(tl.start[f0], 2.0, 1e-9);
  EXPECT_NEAR(tl.finish[b0], 4.0, 1e-9);
}

// Lanes without a share (DualPipeV's overlapped F and B) split the resource
// fairly while both run, and a lone one gets all of it: the pair ends when
// their work at full speed would, under the default TI model too.
TEST(EngineLanes, UnboundedLanesShareTheResourceFairly) {
  Simulation sim(complete_platform(1, "1GBps", "0s", "1Tf"));
  TaskGraph g(1);
  const TaskId f = g.add(compute(0, 1e12, 0));
  const TaskId b = g.add(compute(0, 2e12, 1));
  const Timeline tl = sim.run(g);
  EXPECT_NEAR(tl.finish[f], 2.0, 1e-9);  // half of 1 Tf while both run
  EXPECT_NEAR(tl.finish[b], 3.0, 1e-9);  // then all of it
}

// A task appended beside the previous one (DualPipeV's pair) starts after
// what precedes the pair, and the task after the pair waits for both.
TEST(EngineLanes, APairSideBySideIsOneStepOfTheOrder) {
  Simulation sim(complete_platform(1, "1GBps", "0s", "1Tf"));
  TaskGraph g(1);
  const TaskId x = g.add(compute(0, 1e12));
  const TaskId f = g.add(compute(0, 1e12));
  const TaskId b = g.add(compute(0, 2e12, 1));
  const TaskId y = g.add(compute(0, 1e12));
  g.append_to_order(x);
  g.append_to_order(f);
  g.append_beside_previous(b);
  g.append_to_order(y);
  EXPECT_TRUE(g.beside_previous(b));
  EXPECT_FALSE(g.beside_previous(f));
  const Timeline tl = sim.run(g);
  EXPECT_DOUBLE_EQ(tl.start[b], 1.0);  // after x, not beside it
  EXPECT_NEAR(tl.finish[f], 3.0, 1e-9);
  EXPECT_NEAR(tl.finish[b], 4.0, 1e-9);
  EXPECT_NEAR(tl.start[y], 4.0, 1e-9);  // after both
  TaskGraph same_lane(1);
  same_lane.append_to_order(same_lane.add(compute(0, 1)));
  EXPECT_THROW(same_lane.append_beside_previous(same_lane.add(compute(0, 1))), std::invalid_argument);
}

TEST(EngineLanes, ALaneDeadlockNamesTheDeviceOrder) {
  Simulation sim(complete_platform(1));
  TaskGraph g(1);
  const TaskId b = g.add(compute(0, 1e12, 1));
  const TaskId f = g.add(compute(0, 1e12, 0), {b});
  const TaskId b2 = g.add(compute(0, 1e12, 1), {f});
  for (TaskId t : {b2, f, b}) g.append_to_order(t);  // lane 1 wants b2 before b, which f needs
  const Timeline tl = sim.run(g);
  EXPECT_EQ(tl.blocked.size(), 3u);
  EXPECT_NE(tl.deadlock.find("waits (device order) for"), std::string::npos) << tl.deadlock;
}

TEST(EngineLanes, ReadsResourcesWhichAreNotDevices) {
  Simulation sim(write_file("laptop.xml", laptop_xml({{"backward_speed", "2Tf"}})));
  const Platform& p = sim.platform();
  ASSERT_EQ(p.size(), 2);  // the GPU host is a resource, not a device
  EXPECT_EQ(p.devices[0].name, "laptop");
  ASSERT_EQ(p.devices[0].resources.size(), 2u);
  const ComputeResource& cpu = p.devices[0].resources[0];
  EXPECT_EQ(cpu.type, "cpu");
  EXPECT_EQ(cpu.host, "laptop");
  EXPECT_DOUBLE_EQ(cpu.forward_speed, 1e12);
  EXPECT_DOUBLE_EQ(cpu.backward_speed, 0.5e12);
  const ComputeResource& gpu = p.devices[0].resources[1];
  EXPECT_EQ(gpu.type, "gpu");
  EXPECT_EQ(gpu.host, "laptop-gpu");
  EXPECT_DOUBLE_EQ(gpu.speed, 4e12);
  EXPECT_DOUBLE_EQ(gpu.forward_speed, 4e12);
  EXPECT_DOUBLE_EQ(gpu.backward_speed, 2e12);
  ASSERT_EQ(p.devices[1].resources.size(), 1u);
  EXPECT_EQ(p.devices[1].resources[0].type, "mobile");  // default: the device's kind
  EXPECT_DOUBLE_EQ(p.devices[1].resources[0].backward_speed, 1e10);
}

TEST(EngineLanes, TaskOnAResourceRunsOnItsHostBesideTheDevice) {
  Simulation sim(write_file("laptop.xml", laptop_xml()));
  TaskGraph g(2);
  const TaskId cpu = g.add(compute(0, 1e12));
  const TaskId gpu = g.add(compute(0, 4e12, 0, 0.5, 1));  // 2 Tf: half the GPU
  const Timeline tl = sim.run(g);
  EXPECT_NEAR(tl.finish[cpu], 1.0, 1e-9);
  EXPECT_NEAR(tl.finish[gpu], 2.0, 1e-9);
}

TEST(EngineLanes, ResourceOutOfRangeIsAnInputError) {
  Simulation sim(complete_platform(1));
  TaskGraph g(1);
  g.add(compute(0, 1e12, 0, 1, 1));
  EXPECT_EQ(error_message<InputError>([&] { sim.run(g); }),
            "task graph: forward (dev 0): resource 1 out of range: the device has 1 compute resources");
}

TEST(EngineLanes, SharesUnderTheTiCpuModelAreAnInputError) {
  Simulation sim(complete_platform(1), {"cpu/optim:TI"});
  TaskGraph g(1);
  g.add(compute(0, 1e12, 0, 0.5));
  EXPECT_EQ(error_message<InputError>([&] { sim.run(g); }),
            "--cfg: cpu/optim:TI: shares of a resource's speed (forward (dev 0)) need cpu/optim:Lazy or Full: the "
            "TI model cannot bound an execution");
}

TEST(EngineLanes, ShareOutsideItsRangeIsAnInputError) {
  Simulation sim(complete_platform(1));
  TaskGraph g(1);
  g.add(compute(0, 1e12, 0, 0));
  EXPECT_EQ(error_message<InputError>([&] { sim.run(g); }),
            "task graph: forward (dev 0): expected lane >= 0 and share in (0, 1]");
}

std::string platform_error(const std::string& xml) {
  const std::string path = write_file("resources.xml", xml);
  const std::string message = error_message<InputError>([&] { Simulation sim(path); });
  return message.substr(0, path.size()) == path ? message.substr(path.size()) : message;
}

TEST(EngineLanes, ResourceOfNamingNoDevice) {
  EXPECT_EQ(platform_error(laptop_xml({}, "desktop")),
            ": host 'laptop-gpu' property resource_of: expected the name of a device (a host with a memory "
            "property), got 'desktop'");
}

TEST(EngineLanes, ResourceHostWithMemory) {
  EXPECT_EQ(platform_error(laptop_xml({{"memory", "4GiB"}})),
            ": host 'laptop-gpu' property resource_of: a resource host has no memory of its own: remove its "
            "memory property");
}

TEST(EngineLanes, BadBackwardSpeed) {
  EXPECT_EQ(platform_error(laptop_xml({{"backward_speed", "-1Gf"}})),
            ": host 'laptop-gpu' property backward_speed: expected a flop count like '2Tf' or '150Gflops' (not "
            "negative), got '-1Gf'");
}

TEST(EngineLanes, TwoResourcesOfOneType) {
  EXPECT_EQ(platform_error(laptop_xml({}, "laptop", "cpu")),
            ": host 'laptop-gpu' property resource: device 'laptop' already has a resource of type 'cpu' (one "
            "per type)");
}

}  // namespace
}  // namespace pipesim
