// Every pattern schedule on the shipped platforms (all SPLITDUPLEX; the
// nvswitch ones route over two or more links, through switches): the run's
// exact period (event graph, on the platform's links) is its simulated
// period, 1e-6 relative: the pattern model and the engine share one
// model of the links. The workload's 1 GB activations
// take 80 ms per direction on complete-4's 12.5 GB/s links against 150 ms
// of work per device (one layer each): seed 000's pair (160 ms both ways)
// would be the bottleneck there, the platform's directions are not.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <cctype>
#include <string>
#include <tuple>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kHeavy =
    "microbatches: 64\nreference_speed: 100Tf\n"
    "layers:\n  - {forward: 50ms, backward: 100ms, activation: 1GB, weights: 1MB, repeat: 4}\n";

// Runs the schedule; returns the exact period after checking it against the simulated one.
double exact_equals_simulated(const std::string& platform, const std::string& schedule) {
  const std::string workload = write_file("links-cli.yaml", kHeavy + "schedule: {" + schedule + "}\n");
  const std::string json = temp_path("links-cli.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/" + platform + ".xml " + workload + " --json " + json);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = read_json(json);
  const double exact = json_number(report, "/pattern/exact_period");
  EXPECT_GT(exact, 0) << report;
  EXPECT_NEAR(json_number(report, "/pattern/simulated_period") / exact, 1.0, 1e-6) << platform << " " << schedule;
  return exact;
}

class ShippedPlatforms : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ShippedPlatforms, ExactPeriodIsSimulated) {
  exact_equals_simulated(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(
    PatternLinks, ShippedPlatforms,
    ::testing::Combine(::testing::Values("complete-4", "nvswitch-4gpu", "two-nvswitch-4gpu-infiniband-100g",
                                         "four-nvswitch-2gpu-ethernet-25g"),
                       ::testing::Values("name: 1f1b-pattern", "name: kfkb, k: 2", "name: pipedream, noam: 2")),
    [](const auto& info) {
      std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

// On complete-4 the 1F1B pattern reaches the devices' 150 ms because its
// transfers overlap in opposite directions; under links: pair the same
// schedule waits for the pair (160 ms), and the simulation, whose unrolled
// graph then serializes each pair, agrees with both.
TEST(PatternLinksCli, OppositeDirectionsOnCompleteFour) {
  EXPECT_NEAR(exact_equals_simulated("complete-4", "name: 1f1b-pattern"), 0.15, 1e-9);
  EXPECT_NEAR(exact_equals_simulated("complete-4", "name: 1f1b-pattern, links: pair"), 0.16, 1e-9);
}

// A pattern file (schedule pattern) keeps its link model: the exported
// 1F1B pattern runs again at the same period; with links: pair written in
// it, validate reports the opposite-direction overlaps.
TEST(PatternLinksCli, PatternFileKeepsItsLinks) {
  const std::string platform = kRoot + "platforms/complete-4.xml";
  const std::string workload = write_file("links-export.yaml", kHeavy + "schedule: {name: 1f1b-pattern}\n");
  const std::string exported = temp_path("links-export.pattern.yaml");
  CliResult r = run_pipesim("run " + platform + " " + workload + " --export-pattern " + exported);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_text(exported);
  EXPECT_EQ(text.find("links:"), std::string::npos);  // the default is not written
  EXPECT_NEAR(exact_equals_simulated("complete-4", "name: pattern, file: " + exported), 0.15, 1e-9);
  r = run_pipesim("validate " + platform + " " + workload + " " + exported);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::size_t tasks = text.find("tasks:");
  ASSERT_NE(tasks, std::string::npos);
  const std::string pair =
      write_file("links-pair.pattern.yaml", text.substr(0, tasks) + "links: pair\n" + text.substr(tasks));
  r = run_pipesim("validate " + platform + " " + workload + " " + pair);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("overlap: link gpu"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("memory:"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pipesim
