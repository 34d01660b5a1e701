// Bad input through the command line: one clear line naming the file and the
// field or line, exit code 2, and no output file left behind.
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kGoodWorkload =
    "microbatches: 4\n"
    "layers:\n"
    "  - {forward: 1ms, backward: 2ms, activation: 1MiB, weights: 1MiB, repeat: 4}\n"
    "schedule: 1f1b\n";

struct BadInput {
  const char* name;
  std::string platform_xml;   // empty: the 4-device complete graph
  std::string workload_yaml;  // empty: kGoodWorkload
  std::string fragment;       // the message must contain this (besides the file name)
  bool platform_at_fault = false;
};

// A 3-device Full zone whose gpu0 and gpu2 are not connected.
std::string unrouted_platform() {
  return complete_platform_builder(3, "1GBps", "0s", "1Tf", "1TiB", {}, "gpu0>gpu2").xml();
}

std::vector<BadInput> bad_inputs() {
  const std::string explicit_placement = kGoodWorkload +
                                         "placement:\n  - {layers: 0-1, host: gpu0}\n"
                                         "  - {layers: 2-3, host: gpu2}\n";
  return {
      {"yaml_syntax", "", "microbatches: [4\nlayers: x\n", "line"},
      {"missing_field", "", "layers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB}\n", "microbatches"},
      {"wrong_type", "", "microbatches: many\n" + kGoodWorkload.substr(kGoodWorkload.find('\n') + 1), "microbatches"},
      {"negative_size", "", "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: -3MiB}\n",
       "activation"},
      {"unknown_host", "", kGoodWorkload + "placement:\n  - {layers: 0-1, host: gpu0}\n  - {layers: 2-3, host: tpu7}\n",
       "tpu7"},
      // gpipe and 1f1b run several stages per device; the others refuse.
      {"more_stages_than_devices", "",
       kGoodWorkload.substr(0, kGoodWorkload.find("schedule:")) + "schedule: pipedream\nplacement: {stages: 4}\n",
       "placement.stages: 4 stages but only 3 devices; schedule 'pipedream' runs one stage per device", false},
      {"no_route", unrouted_platform(), explicit_placement, "no route"},
      {"zero_bandwidth", complete_platform_xml(3, "0Bps"), explicit_placement,
       "bandwidth: expected a positive finite bandwidth", true},
      {"unknown_schedule", "",
       "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB}\n"
       "schedule: zigzag\n",
       "zigzag"},
      {"malformed_unit", "", "microbatches: 4\nlayers:\n  - {forward: 1 fortnight, backward: 2ms, activation: 1MiB}\n",
       "forward"},
      {"empty_chain", "", "microbatches: 4\nlayers: []\n", "layers"},
      {"unknown_field", "", kGoodWorkload + "microbatchs: 3\n", "microbatchs"},
      {"bad_platform_xml", "<platform version=\"4.1\"><zone", "", "XML syntax error", true},
      {"platform_without_devices",
       "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
       "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">"
       "<host id=\"cpu\" speed=\"1Gf\"/></zone></platform>\n",
       "", "no device", true},
  };
}

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, OneClearLineExitTwoNoOutput) {
  const BadInput& bad = GetParam();
  // Three devices: "more stages than devices" asks for four.
  const std::string platform = write_file(std::string(bad.name) + ".xml",
                                          bad.platform_xml.empty() ? complete_platform_xml(3) : bad.platform_xml);
  const std::string workload =
      write_file(std::string(bad.name) + ".yaml", bad.workload_yaml.empty() ? kGoodWorkload : bad.workload_yaml);
  // The outputs go to a folder of this case alone (a temp folder named by a reused pid may hold other tests' files).
  const std::string outputs = temp_path(std::string("outputs-") + bad.name);
  std::filesystem::remove_all(outputs);
  std::filesystem::create_directories(outputs);
  const std::string json = outputs + "/out.json", trace = outputs + "/out.trace.json", csv = outputs + "/out.csv";
  const CliResult r = run_pipesim("run " + platform + " " + workload + " --json " + json + " --trace " + trace +
                                  " --memory-trace " + csv);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(bad.platform_at_fault ? platform : workload), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(bad.fragment), std::string::npos) << r.err;
  for (const auto& entry : std::filesystem::directory_iterator(outputs))
    ADD_FAILURE() << "left behind: " << entry.path();
}

INSTANTIATE_TEST_SUITE_P(Cli, CliBadInput, ::testing::ValuesIn(bad_inputs()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CliErrors, NonExistentFiles) {
  const std::string platform = write_file("ok.xml", complete_platform_xml(3));
  const std::string workload = write_file("ok.yaml", kGoodWorkload);
  CliResult r = run_pipesim("run " + platform + " /nonexistent/w.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/w.yaml"), std::string::npos) << r.err;
  r = run_pipesim("run /nonexistent/p.xml " + workload);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/p.xml"), std::string::npos) << r.err;
}

TEST(CliErrors, UsageMistakes) {
  EXPECT_EQ(run_pipesim("").exit_code, 2);
  EXPECT_EQ(run_pipesim("fly a b").exit_code, 2);
  EXPECT_EQ(run_pipesim("run onlyone.xml").exit_code, 2);
  const CliResult r = run_pipesim("run a.xml b.yaml --colour");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--colour"), std::string::npos);
  EXPECT_EQ(run_pipesim("--help").exit_code, 0);
}

TEST(CliErrors, UnwritableOutputLeavesNothing) {
  const std::string platform = write_file("ok.xml", complete_platform_xml(3));
  const std::string workload = write_file("ok.yaml", kGoodWorkload);
  const std::string json = temp_path("good.json");
  const CliResult r =
      run_pipesim("run " + platform + " " + workload + " --json " + json + " --trace /nonexistent-dir/t.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent-dir/t.json"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(json));
}

}  // namespace
}  // namespace pipesim
