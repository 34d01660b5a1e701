// The bare SimGrid reference of the benchmarks (bench/bare/bare_pipeline.cpp)
// must simulate exactly what `pipesim run` does on the same inputs, or the
// whole-command comparison of bench_whole_command.cpp means nothing.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <cstdlib>
#include <string>

#include "bench/bare/pipeline_inputs.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim::testing {
namespace {

double bare_makespan(const std::string& platform, const std::string& schedule, int P, int M) {
  const std::string out = temp_path("bare.out");
  const std::string command = std::string(PIPESIM_BARE_BINARY) + " " + platform + " " + schedule + " " +
                              std::to_string(P) + " " + std::to_string(M) + " 1e12 2e12 1e9 >" + out;
  EXPECT_EQ(std::system(command.c_str()), 0);
  return std::stod(read_text(out));
}

double pipesim_makespan(const std::string& platform, const std::string& workload) {
  const std::string json = temp_path("bare-pipesim.json");
  const CliResult r = run_pipesim("run " + platform + " " + workload + " --json " + json + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return read_json(json).at("makespan").get<double>();
}

void expect_same(const std::string& schedule, int P, int M) {
  const std::string platform = write_file("bare-star.xml", bench::star_platform_xml(P));
  const std::string workload = write_file("bare-w.yaml", bench::uniform_workload_yaml(schedule, P, M));
  const double bare = bare_makespan(platform, schedule, P, M);
  // Transfers (40 us each) share the GPUs' uplinks, so this is not (M+P-1)(F+B).
  EXPECT_GT(bare, (M + P - 1) * 3.0 + 1e-3);
  EXPECT_NEAR(pipesim_makespan(platform, workload), bare, 1e-9 * bare);
}

TEST(BarePipeline, OneFOneBMatchesPipesimRun) { expect_same("1f1b", 8, 40); }
TEST(BarePipeline, GPipeMatchesPipesimRun) { expect_same("gpipe", 4, 16); }

}  // namespace
}  // namespace pipesim::testing
