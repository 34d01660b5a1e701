// Reports written by pipesim run, read back as a user would: the JSON report
// parsed, the diagrams and worker table as text.
#include <sstream>
#include <string>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

TEST(ReportsCli, JsonStartsWithTheVersionAndHasBothTimesPerMicrobatch) {
  const std::string json = temp_path("tiny.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " + kRoot +
                                  "workloads/examples/tiny.yaml --quiet --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto tree = nlohmann::ordered_json::parse(read_text(json));
  EXPECT_EQ(tree.begin().key(), "version");
  EXPECT_EQ(tree.at("version"), PIPESIM_VERSION);
  EXPECT_EQ(tree.at("microbatches"), 8);
  // Both printed with 15 significant digits.
  EXPECT_NEAR(tree.at("iteration_time_per_microbatch").get<double>(), tree.at("iteration_time").get<double>() / 8,
              1e-15);
  // 1F1B with 4 stages and 8 micro-batches: the steady state is shorter than the mean.
  EXPECT_LT(tree.at("time_per_microbatch").get<double>(), tree.at("iteration_time_per_microbatch").get<double>());
}

}  // namespace
}  // namespace pipesim
