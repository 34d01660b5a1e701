// schedule: {name: ilp, ...}: the solver's pattern, run. What the run prints
// beside the simulation (exact period, analytic peak) is what it simulated.
#include <regex>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using testing::read_json;
using testing::run_pipesim;
using testing::temp_path;
using testing::write_file;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

std::string workload(const std::string& schedule) {
  return write_file("ilp.yaml",
                    "name: ilp\nmicrobatches: 60\nlayers:\n"
                    "  - {name: a, forward: 1ms, backward: 2ms, activation: 16MiB, weights: 64MiB}\n"
                    "  - {name: b, forward: 2ms, backward: 4ms, activation: 16MiB, weights: 64MiB}\n"
                    "  - {name: c, forward: 1ms, backward: 2ms, activation: 16MiB, weights: 64MiB}\n"
                    "  - {name: d, forward: 1ms, backward: 1ms, activation: 16MiB, weights: 64MiB}\n"
                    "schedule: " +
                        schedule + "\n");
}

// The load bound is (1+2 + 2+4 + 1+2 + 1+1) / 4 = 3.5 ms per micro-batch with
// layers split freely over 4 GPUs: the ILP reaches it with k = 2, and the
// simulated period and peak memory are the pattern's.
TEST(IlpSchedule, RunsTheSolversPatternAtItsExactPeriod) {
  const std::string json = temp_path("ilp.json");
  const auto r = run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " +
                             workload("{name: ilp, k: 2, memory: 2GiB, time_limit: 30s}") + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = read_json(json);
  const nlohmann::json& pattern = report.at("pattern");
  EXPECT_EQ(pattern.at("copies"), 2);
  const double exact = pattern.at("exact_period").get<double>(),
               simulated = pattern.at("simulated_period").get<double>();
  EXPECT_NEAR(simulated, exact, 1e-6 * exact);
  EXPECT_GE(exact, 2 * 3.5e-3 * (1 - 1e-9));  // no pattern beats the load bound
  // Analytic peak = simulated peak, device by device.
  const nlohmann::json& devices = report.at("devices");
  const nlohmann::json& analytic = pattern.at("analytic_peak_memory");
  ASSERT_EQ(devices.size(), 4u);
  ASSERT_EQ(analytic.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(analytic[i].at("device"), devices[i].at("name")) << "gpu" << i;
    EXPECT_DOUBLE_EQ(devices[i].at("peak_memory").get<double>(), analytic[i].at("bytes").get<double>()) << "gpu" << i;
  }
}

TEST(IlpSchedule, NoPatternWithinTheMemoryIsOneErrorLine) {
  const std::string file = workload("{name: ilp, memory: 1MiB, time_limit: 30s}");
  const auto r = run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("pipesim: error: " + file + ": schedule: the ILP found no pattern \\(infeasible\\): [^\n]+\n")))
      << r.err;
}

// time_limit: 0 runs the heuristic's pattern (CBC not run, no model built):
// still a valid pattern at its exact period.
TEST(IlpSchedule, TimeLimitZeroRunsTheHeuristicsPattern) {
  const std::string json = temp_path("ilp0.json");
  const auto r = run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " +
                             workload("{name: ilp, k: 2, time_limit: 0}") + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = read_json(json);
  const double exact = testing::json_number(report, "/pattern/exact_period"),
               simulated = testing::json_number(report, "/pattern/simulated_period");
  EXPECT_GT(exact, 0);
  EXPECT_NEAR(simulated, exact, 1e-6 * exact);
}

// A model too large to build is refused before any work, naming k and the figures.
TEST(IlpSchedule, ModelTooLargeIsRefusedWithItsSize) {
  const std::string file = workload("{name: ilp, k: 100, time_limit: 0.01s}");
  const auto r = run_pipesim("run " + kRoot + "platforms/complete-4.xml " + file + " --max-memory 1GiB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("pipesim: error: " + file +
                        ": schedule\\.k: the ILP model \\(k = 100 copies of 4 layers, free allocation: about "
                        "[0-9.e+]+ nonzeros; time_limit: 0 runs the heuristic's pattern without it\\) needs about "
                        "[0-9.]+ GiB of memory to build; the limit is 1\\.00 GiB \\(raise it with --max-memory\\)\n")))
      << r.err;
  // The same model is not built at all with time_limit: 0.
  const auto zero = run_pipesim("run " + kRoot + "platforms/complete-4.xml " +
                                workload("{name: ilp, k: 100, time_limit: 0}") + " --max-memory 1GiB --quiet");
  EXPECT_EQ(zero.exit_code, 0) << zero.err;
}

TEST(IlpSchedule, BadParametersNameTheirField) {
  const std::string file = workload("{name: ilp, memory: lots}");
  auto r = run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("pipesim: error: " + file + ": schedule.memory: ", 0), 0u) << r.err;
  const std::string other = workload("{name: ilp, time_limit: -1s}");
  r = run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " + other);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + other +
                       ": schedule.time_limit: expected a duration like '3ms' or '2.5s' (not negative), got '-1s'\n");
}

}  // namespace
}  // namespace pipesim
