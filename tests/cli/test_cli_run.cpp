// Good runs through the command line: the shipped example, outputs, determinism.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

TEST(CliRun, ShippedGpt2ExampleIsValidOnEightGpus) {
  const std::string json = temp_path("gpt2.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + kRoot +
                                  "workloads/examples/gpt2-xl-layers.yaml --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("VALID"), std::string::npos) << r.out;
  const nlohmann::json report = read_json(json);
  for (const char* key : {"iteration_time", "time_per_microbatch", "throughput"})
    EXPECT_TRUE(report.at(key).is_number()) << key;
  ASSERT_EQ(report.at("devices").size(), 8u);
  for (const nlohmann::json& device : report.at("devices"))
    for (const char* key : {"busy_time", "bubble_fraction", "peak_memory"})
      EXPECT_TRUE(device.at(key).is_number()) << key;
  EXPECT_EQ(report["devices"][7]["name"], "gpu7");
}

TEST(CliRun, SameInputsGiveByteIdenticalOutputs) {
  const std::string args = "run " + kRoot + "platforms/two-nvswitch-8gpu-infiniband.xml " + kRoot +
                           "workloads/examples/gpt2-xl-layers.yaml --quiet";
  std::string outputs[2][3];
  for (int i = 0; i < 2; ++i) {
    const std::string n = std::to_string(i);
    const std::string json = temp_path("r" + n + ".json"), trace = temp_path("r" + n + ".trace"),
                      csv = temp_path("r" + n + ".csv");
    const CliResult r = run_pipesim(args + " --json " + json + " --trace " + trace + " --memory-trace " + csv);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");  // --quiet
    outputs[i][0] = read_text(json);
    outputs[i][1] = read_text(trace);
    outputs[i][2] = read_text(csv);
  }
  for (int k = 0; k < 3; ++k) {
    EXPECT_FALSE(outputs[0][k].empty());
    EXPECT_TRUE(outputs[0][k] == outputs[1][k]) << "output " << k << " differs between runs";
  }
  EXPECT_EQ(outputs[0][2].rfind("time,device,category,bytes\n", 0), 0u);
  EXPECT_FALSE(nlohmann::json::parse(outputs[0][1]).at("traceEvents").empty());
}

TEST(CliRun, MemoryOverflowIsInvalidWithExitOne) {
  const std::string platform = write_file("small.xml", complete_platform_xml(2, "1GBps", "0s", "1Tf", "100MiB"));
  const std::string workload = write_file("big.yaml",
                                          "microbatches: 4\nlayers:\n"
                                          "  - {forward: 1ms, backward: 2ms, activation: 30MiB, weights: 10MiB, "
                                          "repeat: 2}\nschedule: gpipe\n");
  const std::string json = temp_path("overflow.json");
  const CliResult r = run_pipesim("run " + platform + " " + workload + " --json " + json);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("INVALID"), std::string::npos) << r.out;
  const nlohmann::json report = read_json(json);
  EXPECT_EQ(report.at("valid"), false) << report;
  EXPECT_FALSE(report.at("violations").empty()) << report;
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

using namespace pipesim::testing;

// 2F2B on a non-contiguous allocation: the run reports the pattern's exact
// period beside the simulated one, exports the pattern, and the exported
// pattern validates and runs again at the same period.
TEST(CliRun, PatternIsReportedExportedValidatedAndRunAgain) {
  const std::string platform = kRoot + "platforms/complete-4.xml";
  const std::string layers =
      "layers:\n"
      "  - {forward: 1ms, backward: 2ms, activation: 64MiB, weights: 100MiB}\n"
      "  - {forward: 2ms, backward: 4ms, activation: 32MiB, weights: 100MiB}\n"
      "  - {forward: 1ms, backward: 2ms, activation: 64MiB, weights: 100MiB}\n"
      "  - {forward: 1.5ms, backward: 3ms, activation: 16MiB, weights: 100MiB}\n";
  const std::string workload = write_file(
      "kfkb.yaml", "microbatches: 200\n" + layers + "schedule: {name: kfkb, k: 2, allocation: \"0,1,0,1\"}\n");
  const std::string json = temp_path("kfkb.json"), exported = temp_path("kfkb.pattern.yaml");
  CliResult r = run_pipesim("run " + platform + " " + workload + " --json " + json + " --export-pattern " + exported);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("exact period"), std::string::npos) << r.out;
  const nlohmann::json report = read_json(json);
  const double exact = json_number(report, "/pattern/exact_period");
  EXPECT_GT(exact, 0);
  EXPECT_NEAR(json_number(report, "/pattern/simulated_period") / exact, 1.0, 1e-6) << report;
  EXPECT_EQ(json_number(report, "/pattern/copies"), 2);

  r = run_pipesim("validate " + platform + " " + workload + " " + exported);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  const std::string again =
      write_file("again.yaml", "microbatches: 200\n" + layers + "schedule: {name: pattern, file: " + exported + "}\n");
  const std::string json2 = temp_path("again.json");
  r = run_pipesim("run " + platform + " " + again + " --json " + json2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_DOUBLE_EQ(json_number(read_json(json2), "/pattern/exact_period"), exact);
}

TEST(CliRun, FlushScheduleExportsItsIterationAsAPattern) {
  const std::string exported = temp_path("gpt2.pattern.yaml"), json = temp_path("gpt2p.json");
  const CliResult r =
      run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + kRoot +
                  "workloads/examples/gpt2-xl-layers.yaml --quiet --json " + json + " --export-pattern " + exported);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // A flush schedule's period is its iteration, which the run itself is: no
  // pattern figures beside it (they would repeat the run's own figures, and
  // two numbers for one thing could disagree), but the iteration
  // still exports as a pattern of 16 copies.
  EXPECT_FALSE(read_json(json).contains("pattern"));
  EXPECT_NE(read_text(exported).find("copies: 16\n"), std::string::npos);
  EXPECT_NE(read_text(exported).find("weights: flush"), std::string::npos);
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// Issue 10: ResNet-18 from its profile, 1F1B with flush, 500 micro-batches on
// seed 000's complete graph printed an exact period of 48.42 s beside 44.66 s
// simulated and analytic peaks of 96-385 GiB beside 32 GiB devices and VALID.
TEST(CliRun, Resnet18FlushRunPrintsNothingThatContradictsIt) {
  const std::string workload = temp_path("resnet18.yaml");
  ASSERT_EQ(run_pipesim("import " + kRoot + "workloads/profiles/resnet18/graph.txt -o " + workload).exit_code, 0);
  const CliResult r = run_pipesim("run " + kRoot + "platforms/complete-4.xml " + workload);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("iteration time        44.66 s\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict               VALID\n"), std::string::npos);
  for (const char* figure : {"exact period", "pattern period", "simulated period", "critical cycle", "analytic peak"})
    EXPECT_EQ(r.out.find(figure), std::string::npos) << figure << "\n" << r.out;
}

}  // namespace
}  // namespace pipesim
