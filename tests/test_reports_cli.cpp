// Reports written by pipesim run, read back as a user would: the JSON report
// parsed, the diagrams and worker table as text.
#include <sstream>
#include <string>
#include "tests/build_paths.hpp"

#include <gtest/gtest.h>
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "tests/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

boost::property_tree::ptree parse_json_file(const std::string& path) {
  boost::property_tree::ptree tree;
  boost::property_tree::read_json(path, tree);
  return tree;
}

TEST(ReportsCli, JsonStartsWithTheVersionAndHasBothTimesPerMicrobatch) {
  const std::string json = temp_path("tiny.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " + kRoot +
                                  "workloads/examples/tiny.yaml --quiet --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(json).rfind(std::string("{\n  \"version\": \"") + PIPESIM_VERSION + "\",\n", 0), 0u);
  const auto tree = parse_json_file(json);
  EXPECT_EQ(tree.get<std::string>("version"), PIPESIM_VERSION);
  EXPECT_EQ(tree.get<int>("microbatches"), 8);
  // Both printed with 15 significant digits.
  EXPECT_NEAR(tree.get<double>("iteration_time_per_microbatch"), tree.get<double>("iteration_time") / 8, 1e-15);
  // 1F1B with 4 stages and 8 micro-batches: the steady state is shorter than the mean.
  EXPECT_LT(tree.get<double>("time_per_microbatch"), tree.get<double>("iteration_time_per_microbatch"));
}

}  // namespace
}  // namespace pipesim
