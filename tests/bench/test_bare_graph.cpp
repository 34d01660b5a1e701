// The bare SimGrid program for any task graph (bench/bare/bare_graph.cpp)
// must simulate exactly what `pipesim run` does on the graph pipesim's own
// generator builds, or bench_bare_graph.cpp's comparison means nothing.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <sys/wait.h>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "bench/bare/graph_dump.hpp"
#include "bench/bare/pipeline_inputs.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/platform_table.hpp"

namespace pipesim::testing {
namespace {

CliResult run_bare(const std::string& dump, const std::string& platform, const std::string& extra = "") {
  const std::string out = temp_path("bare-graph.out"), err = temp_path("bare-graph.err");
  const std::string command = std::string(PIPESIM_BARE_GRAPH_BINARY) + " " + dump + " " + platform + " " + extra +
                              " >" + out + " 2>" + err + " </dev/null";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
}

double pipesim_makespan(const std::string& platform, const std::string& workload, const std::string& extra = "") {
  const std::string json = temp_path("bare-graph-pipesim.json");
  const CliResult r = run_pipesim("run " + platform + " " + workload + " --json " + json + " --quiet " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return read_json(json).at("makespan").get<double>();
}

// The dump of WORKLOAD on PLATFORM, run bare, against `pipesim run`.
void expect_same_files(const std::string& platform, const std::string& workload, std::size_t min_tasks) {
  const std::string dump = temp_path("graph.bin");
  EXPECT_GE(bench::dump_workload_graph(platform, workload, dump), min_tasks);
  const CliResult bare = run_bare(dump, platform);
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_EQ(bare.err.rfind("read_seconds ", 0), 0u) << bare.err;
  const double makespan = std::stod(bare.out);
  EXPECT_GT(makespan, 0);
  EXPECT_NEAR(pipesim_makespan(platform, workload), makespan, 1e-9 * makespan);
}

// SCHEDULE as written after `schedule:` in the workload; P uniform stages on the star.
void expect_same(const std::string& schedule, int P, int M) {
  const std::string platform = write_file("bare-graph-star.xml", bench::star_platform_xml(P));
  const std::string workload = write_file("bare-graph-w.yaml", bench::uniform_workload_yaml(schedule, P, M));
  expect_same_files(platform, workload, 2u * P * M);  // at least a forward and a backward per stage and micro-batch
}

TEST(BareGraph, OneFOneBMatchesPipesimRun) { expect_same("1f1b", 8, 40); }
TEST(BareGraph, GPipeMatchesPipesimRun) { expect_same("gpipe", 4, 16); }
TEST(BareGraph, KFkBMatchesPipesimRun) { expect_same("{name: kfkb, k: 2}", 8, 24); }
TEST(BareGraph, PipeDreamMatchesPipesimRun) { expect_same("{name: pipedream, noam: 8}", 8, 32); }
// Greedy workers: no device order, dispatch by priority after a tick.
TEST(BareGraph, MasterLoopedMatchesPipesimRun) { expect_same("{name: master, scheme: lpp, G: 2, R: 4}", 8, 16); }
TEST(BareGraph, MasterBreadthFirstMatchesPipesimRun) {
  expect_same("{name: master, scheme: lpp, G: 2, R: 4, priority: breadth-first}", 8, 16);
}
// Weight fetches of 0 bytes: transfers that complete at once.
TEST(BareGraph, MasterFullyShardedMatchesPipesimRun) {
  expect_same("{name: master, scheme: fslpp, G: 2, R: 4}", 8, 16);
}
TEST(BareGraph, MasterGPipeMatchesPipesimRun) { expect_same("{name: master, scheme: gpipe}", 4, 16); }

// A shipped example: uneven stages on an NVSwitch box.
TEST(BareGraph, ExampleMatchesPipesimRun) {
  const std::string dir = PIPESIM_SOURCE_DIR;
  expect_same_files(dir + "/platforms/nvswitch-8gpu.xml", dir + "/workloads/examples/gpt2-xl-layers.yaml", 100);
}

// A model job: passes timed by the A100's compute model, Adam's update tasks
// after each device's backwards (the benchmark's `model` family).
TEST(BareGraph, ModelJobMatchesPipesimRun) {
  const std::string dir = PIPESIM_SOURCE_DIR;
  expect_same_files(dir + "/platforms/nvswitch-8gpu.xml", dir + "/workloads/examples/gpt2-xl.yaml", 100);
}

// DualPipeV runs forwards and backwards side by side on two lanes: no field for that.
TEST(BareGraph, RefusesLanes) {
  const std::string platform = write_file("bare-graph-star.xml", bench::star_platform_xml(4));
  const std::string workload = write_file("bare-graph-w.yaml", bench::uniform_workload_yaml("dualpipev", 4, 8));
  try {
    bench::dump_workload_graph(platform, workload, temp_path("lanes.bin"));
    FAIL() << "dumped a graph with lanes";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("uses lanes, resources or shares, which the bare program does not run"),
              std::string::npos)
        << e.what();
  }
}

// SimGrid settings after the files apply after pipesim's defaults, as pipesim's --cfg.
TEST(BareGraph, TakesSimGridSettingsAsPipesimDoes) {
  const std::string platform = write_file("bare-graph-star.xml", bench::star_platform_xml(8));
  const std::string workload = write_file("bare-graph-w.yaml", bench::uniform_workload_yaml("1f1b", 8, 16));
  const std::string dump = temp_path("graph.bin");
  bench::dump_workload_graph(platform, workload, dump);
  const CliResult cm02 = run_bare(dump, platform), lv08 = run_bare(dump, platform, "--cfg=network/model:LV08");
  ASSERT_EQ(lv08.exit_code, 0) << lv08.err;
  const double makespan = std::stod(lv08.out);
  EXPECT_GT(makespan, std::stod(cm02.out) + 1e-3);  // LV08's latency and bandwidth factors slow every transfer
  EXPECT_NEAR(pipesim_makespan(platform, workload, "--cfg network/model:LV08"), makespan, 1e-9 * makespan);
}

Platform one_device_platform(const std::string& name = "gpu0") {
  testing::TableSpec spec;
  spec.memory = 1e12;
  spec.self_paths = false;
  spec.file = "";
  Platform platform = testing::table_platform(1, spec);
  platform.devices[0].name = name;
  return platform;
}

// One device running one task of 1e12 flops.
TaskGraph one_second_graph() {
  TaskGraph graph(1);
  Task compute;
  compute.device = 0;
  compute.amount = 1e12;
  graph.add(compute);
  return graph;
}

// b needs a's output but comes first in the device's order: nothing can run.
TEST(BareGraph, ReportsADeadlock) {
  TaskGraph graph(1);
  Task compute;
  compute.device = 0;
  compute.amount = 1e12;
  const TaskId a = graph.add(compute);
  const TaskId b = graph.add(compute, {a});
  graph.append_to_order(b);
  graph.append_to_order(a);
  const std::string dump = temp_path("deadlock.bin");
  bench::write_graph_dump(graph, one_device_platform(), dump);
  const CliResult bare = run_bare(dump, write_file("bare-graph-star.xml", bench::star_platform_xml(1)));
  EXPECT_EQ(bare.exit_code, 1);
  EXPECT_EQ(bare.out, "");
  EXPECT_EQ(bare.err, "pipesim_bare_graph: deadlock: 0 of 2 tasks completed\n");
}

TEST(BareGraph, RefusesATruncatedDump) {
  const TaskGraph graph = one_second_graph();
  const std::string dump = temp_path("truncated.bin");
  bench::write_graph_dump(graph, one_device_platform(), dump);
  const std::string bytes = read_text(dump);
  write_file("truncated.bin", bytes.substr(0, bytes.size() - 1));
  const CliResult bare = run_bare(dump, write_file("bare-graph-star.xml", bench::star_platform_xml(1)));
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_EQ(bare.out, "");
  EXPECT_EQ(bare.err, "pipesim_bare_graph: error: " + dump + ": truncated graph dump\n");
}

TEST(BareGraph, RefusesAHostThePlatformLacks) {
  const TaskGraph graph = one_second_graph();
  const std::string dump = temp_path("nohost.bin");
  bench::write_graph_dump(graph, one_device_platform("tpu7"), dump);
  const std::string platform = write_file("bare-graph-star.xml", bench::star_platform_xml(1));
  const CliResult bare = run_bare(dump, platform);
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_EQ(bare.out, "");
  EXPECT_EQ(bare.err, "pipesim_bare_graph: error: " + platform + ": no host 'tpu7' (named by the graph dump)\n");
}

}  // namespace
}  // namespace pipesim::testing
