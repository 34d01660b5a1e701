// `pipesim run` with the split schedule: its report, and the error contract
// (one line, exit 2, no output file) for its bad inputs.
#include <filesystem>
#include <string>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "tests/schedules/split/split_test_support.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

std::string workload(const std::string& schedule) {
  return write_file("split.yaml",
                    "name: e\nmicrobatches: 8\nlayers:\n"
                    "  - {name: a, forward: 1Gf, backward: 2Gf, activation: 1KiB, weights: 1KiB, repeat: 4}\n"
                    "schedule: " +
                        schedule + "\n");
}

// Runs with --json and checks the contract: exit 2, exactly `line` on stderr, nothing else.
void expect_error(const std::string& platform, const std::string& workload_file, const std::string& line) {
  const std::string json = temp_path("split-error.json");
  std::filesystem::remove(json);
  const CliResult r = run_pipesim("run " + platform + " " + workload_file + " --json " + json);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + line + "\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(json));
}

TEST(SplitCli, BetaOutsideZeroOne) {
  const std::string w = workload("{name: split, allocation: none, beta: 1.5}");
  expect_error(kRoot + "platforms/mobile-4.xml", w, w + ": schedule.beta: expected a number in [0, 1], got '1.5'");
}

TEST(SplitCli, BetaLeavingAPassNoSpeed) {
  const std::string w = workload("{name: split, allocation: none, beta: 1}");
  expect_error(kRoot + "platforms/mobile-4.xml", w,
               w + ": schedule.beta: beta 1 on host 'laptop-i7-0': allocation: beta gives the backward pass no speed");
}

TEST(SplitCli, MoreWorkersThanDevices) {
  const std::string w = workload("{name: split, workers: 5}");
  expect_error(kRoot + "platforms/mobile-4.xml", w,
               w + ": schedule.workers: 5 workers for 4 devices: each worker is one device");
}

TEST(SplitCli, ExplicitPlacement) {
  const std::string w = write_file("split-placed.yaml", read_text(workload("split")) +
                                                            "placement:\n  - {layers: 0-1, host: laptop-i7-0}\n"
                                                            "  - {layers: 2-3, host: laptop-i7-1}\n");
  expect_error(kRoot + "platforms/mobile-4.xml", w,
               w + ": placement: schedule 'split' cuts the chain itself (eq. 1); give placement: auto or {stages: N} "
                   "(or schedule.workers), not a list of hosts");
}

TEST(SplitCli, PlacementStagesSetTheWorkers) {
  const std::string json = temp_path("split-stages.json");
  const std::string w = write_file("split-stages.yaml", read_text(workload("split")) + "placement: {stages: 2}\n");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/mobile-4.xml " + w + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("devices               4 (2 used)"), std::string::npos) << r.out;
}

TEST(SplitCli, ResourceOfNamingNoDevice) {
  std::string xml = split_platform_xml(2, {1e11, 1e11, 1e12, 1e12});
  xml.replace(xml.find("value=\"w1\""), 10, "value=\"w9\"");
  const std::string p = write_file("split-bad-owner.xml", xml);
  expect_error(p, workload("split"),
               p + ": host 'w1-gpu' property resource_of: expected the name of a device (a host with a memory "
                   "property), got 'w9'");
}

TEST(SplitCli, UnknownResourceType) {
  std::string xml = split_platform_xml(2, {1e11, 1e11, 1e12, 1e12});
  const std::string gpu = "<prop id=\"resource\" value=\"gpu\"/>";
  xml.replace(xml.find(gpu), gpu.size(), "<prop id=\"resource\" value=\"gpux\"/>");
  const std::string p = write_file("split-bad-type.xml", xml);
  expect_error(p, workload("split"),
               p + ": host 'w0-gpu' property resource: unknown resource type 'gpux' (expected one of: cpu, gpu, npu, "
                   "dsp, tpu, fpga)");
}

TEST(SplitCli, NoResourceForThePassItMustRun) {
  std::string xml = split_platform_xml(2, {1e11, 0, 1e12, 0});  // no backward anywhere on w0 and w1
  const std::string p = write_file("split-no-backward.xml", xml);
  expect_error(p, workload("split"), p + ": host 'w0' resources: no resource can run the backward pass (zero speed)");
}

TEST(SplitCli, AlgorithmOneNeedsIdenticalWorkers) {
  const std::string w = workload("{name: split, partition: algorithm1}");
  expect_error(kRoot + "platforms/mobile-laptops-wifi.xml", w,
               w + ": schedule.partition: algorithm1 needs identical workers (same resources, speeds and bandwidth); "
                   "use exact");
}

TEST(SplitCli, ForcedTiCpuModel) {
  const std::string w = workload("split");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/mobile-4.xml " + w + " --cfg cpu/optim:TI");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "pipesim: error: --cfg: cpu/optim:TI: shares of a resource's speed (forward stage 0 mb 0 (dev 0)) "
            "need cpu/optim:Lazy or Full: the TI model cannot bound an execution\n");
}

// Seed 004's time table (layers' `times`): its errors name the field.
std::string table_workload(const std::string& first_times, const std::string& second_times) {
  return write_file("split-table.yaml",
                    "name: t\nmicrobatches: 8\nschedule: split\nlayers:\n"
                    "  - {forward: 1Gf, backward: 2Gf, activation: 1KiB, times: " +
                        first_times +
                        "}\n"
                        "  - {forward: 1Gf, backward: 2Gf, activation: 1KiB, times: " +
                        second_times + "}\n");
}

TEST(SplitCli, TimeTableErrors) {
  const std::string laptops = kRoot + "platforms/mobile-laptops-wifi.xml";
  const std::string both = "{cpu: {forward: 40ms, backward: 80ms}, gpu: {forward: 4ms, backward: 8ms}}";
  std::string w = table_workload("{cpu: {forward: 40ms, backward: 80ms}}", "{cpu: {forward: 40ms, backward: 80ms}}");
  expect_error(laptops, w,
               w + ": layers[0].times: no time for resource type 'gpu' of host 'laptop-i5-0' (the table has cpu)");
  w = table_workload(both, "{cpu: {forward: 40ms, backward: 80ms}}");
  expect_error(laptops, w,
               w + ": line 6: layers[1].times: expected times for the resource types of layers[0] (cpu, gpu), got cpu "
                   "(every layer or none has a time table)");
  w = table_workload(both, "{cpu: {forward: 2Gf, backward: 80ms}, gpu: {forward: 4ms, backward: 8ms}}");
  expect_error(laptops, w, w + ": line 6: layers[1].times.cpu.forward: expected a duration > 0 like '40ms', got '2Gf'");
  w = table_workload(both, "{cpu: {}, gpu: {forward: 4ms, backward: 8ms}}");
  expect_error(laptops, w,
               w + ": line 6: layers[1].times.cpu: expected forward, backward or both (a pass left out cannot run "
                   "there)");
  w = table_workload(both, "{cpu: {forward: 40ms}, gpu: {forward: 4ms}}");
  expect_error(laptops, w,
               w + ": layers[0].times: device 'laptop-i5-0': no resource can run the backward pass (no type of it has "
                   "that pass in the table)");
}

// The table drives the report: with the GPU 10x the CPU on the convolutions
// and 2x on the last layer, the shipped example runs and its eq. 1 period
// is the one the table gives, not the speeds'.
TEST(SplitCli, TimeTableExampleRuns) {
  const std::string json = temp_path("split-table.json"), speeds_json = temp_path("split-speeds.json");
  const std::string laptops = kRoot + "platforms/mobile-laptops-wifi.xml ";
  CliResult r =
      run_pipesim("run " + laptops + kRoot + "workloads/examples/mobile-cnn-table.yaml --quiet --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_pipesim("run " + laptops + kRoot + "workloads/examples/mobile-cnn.yaml --quiet --json " + speeds_json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json table = read_json(json), speeds = read_json(speeds_json);
  EXPECT_NE(table.at("split").at("period"), speeds.at("split").at("period"));
  for (const nlohmann::json& stage : table.at("split").at("stages")) EXPECT_EQ(stage.at("sends"), "sum") << stage;
}

// One truth: where the steady state is not eq. 1's period, the line says
// why. mobile-4.xml with mobile-cnn.yaml is bound by the second worker's
// sends (docs/mobile.md, "When the simulation matches eq. 1"); the
// compute-bound laptops run says nothing more.
TEST(SplitCli, EquationOneLineSaysWhyTheSteadyStateDiffers) {
  CliResult r = run_pipesim("run " + kRoot + "platforms/mobile-4.xml " + kRoot + "workloads/examples/mobile-cnn.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("allocation); the steady state is "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" % above: the sends bind, and the transfers in flight share their links\n"), std::string::npos)
      << r.out;
  r = run_pipesim("run " + kRoot + "platforms/mobile-laptops-wifi.xml " + kRoot + "workloads/examples/mobile-cnn.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(exact partition, optimal allocation)\n"), std::string::npos) << r.out;
}

// The report: eq. 1's period, the stages and every resource's beta and utilization.
TEST(SplitCli, ReportGivesBetaUtilizationAndPeriod) {
  const std::string json = temp_path("split.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/mobile-4.xml " +
                                  workload("{name: split, partition: algorithm1, epsilon: 0.001}") + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("eq. 1 period"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(algorithm1 partition, optimal allocation)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("split stages"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  laptop-i7-0       cpu  0.3333"), std::string::npos)
      << r.out;  // 1Gf forward, 2Gf backward: c = 1/2
  const nlohmann::json report = read_json(json);
  ASSERT_TRUE(report.contains("split")) << report;
  const nlohmann::json& beta = report["split"].at("stages").at(0).at("beta");
  EXPECT_EQ(beta.size(), 2u) << beta;
  EXPECT_EQ(beta.at("cpu"), 0.333333333333333) << beta;
  EXPECT_EQ(beta.at("gpu"), 0.333333333333333) << beta;
  const nlohmann::json& cpu = report.at("devices").at(0).at("resources").at(0);
  EXPECT_EQ(cpu.at("type"), "cpu") << cpu;
  EXPECT_TRUE(cpu.at("busy_time").is_number()) << cpu;
}

// The diagram has a row per device and lane: forward (lane 0) and backward
// (lane 1) side by side; the CPU and GPU parts of a pass share their row.
TEST(SplitCli, DiagramHasARowPerLane) {
  const std::string txt = temp_path("split-diagram.txt");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/mobile-laptops-wifi.xml " + kRoot +
                                  "workloads/examples/mobile-cnn.yaml --quiet --diagram " + txt);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_text(txt);
  std::vector<std::string> lines;
  for (std::size_t at = 0, next; (next = text.find('\n', at)) != std::string::npos; at = next + 1)
    lines.push_back(text.substr(at, next - at));
  ASSERT_EQ(lines.size(), 6u) << text;
  const auto name = [&](int i) { return lines[i].substr(0, lines[i].find('\t')); };
  EXPECT_EQ(name(2), "laptop-i5-0 lane 0");
  EXPECT_EQ(name(3), "laptop-i5-0 lane 1");
  EXPECT_EQ(name(4), "laptop-i7-0 lane 0");
  EXPECT_EQ(name(5), "laptop-i7-0 lane 1");
  for (int i : {2, 4}) EXPECT_EQ(lines[i].find("\tB"), std::string::npos) << name(i);  // forwards only
  for (int i : {3, 5}) EXPECT_EQ(lines[i].find("\tF"), std::string::npos) << name(i);  // backwards only
  EXPECT_NE(lines[2].find("\tF0b0\t"), std::string::npos);
  EXPECT_NE(lines[5].find("\tB1b0\t"), std::string::npos);
}

// Grouping (docs/mobile.md): an unknown method, more groups than devices.
TEST(SplitCli, UnknownGroupingMethod) {
  const std::string w = workload("{name: split, grouping: greedy, workers: 2}");
  expect_error(kRoot + "platforms/mobile-4.xml", w,
               w + ": schedule.grouping: expected none, algorithm2, brute-force or sorting, got 'greedy'");
}

TEST(SplitCli, MoreGroupsThanDevices) {
  const std::string w = workload("{name: split, grouping: algorithm2, workers: 5}");
  expect_error(kRoot + "platforms/mobile-4.xml", w,
               w + ": schedule.workers: 5 workers for 4 devices: each group needs at least one device");
}

TEST(SplitCli, BruteForceGroupingBeyondSixteenDevices) {
  const std::string platform =
      write_file("split-17.xml", split_mixed_platform_xml(std::vector<SplitResourceSpeeds>(17, {1e11, 1e11, 0, 0})));
  const std::string w = workload("{name: split, grouping: brute-force, workers: 4}");
  expect_error(platform, w, w + ": schedule.grouping: brute force handles at most 16 devices, got 17");
}

// The report of a grouped run: the grouping line, the groups table, each
// stage's devices, every device's beta, and the same in the JSON.
TEST(SplitCli, GroupedReportListsTheGroups) {
  const std::string json = temp_path("split-grouped.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/mobile-mixed-lte.xml " +
                                  workload("{name: split, grouping: algorithm2, workers: 2}") + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("grouping              algorithm2: 2 workers of 4 devices, slowest "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("groups (algorithm2)\n  worker  stage                devices\n"
                       "  0           0            laptop-i7-0\n"
                       "  1           1  laptop-i5-0+pi-0+pi-1\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  pi-1              cpu  0.3333"), std::string::npos) << r.out;
  const nlohmann::json split = read_json(json).at("split");
  EXPECT_EQ(split.at("grouping").at("method"), "algorithm2") << split;
  EXPECT_EQ(split.at("stages").at(1).at("devices"), nlohmann::json({"laptop-i5-0", "pi-0", "pi-1"})) << split;
}

}  // namespace
}  // namespace pipesim
