// Inputs at the edges of what the formats allow: documented-valid extremes
// run, everything beyond them is one error line with exit code 2.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

// Four identical layers on the 4-device complete graph (1 Tf/s, 1 GB/s).
std::string chain(const std::string& forward, const std::string& backward, const std::string& activation = "0",
                  const std::string& extra = "") {
  return "microbatches: 8\n" + extra + "layers:\n  - {forward: " + forward + ", backward: " + backward +
         ", activation: " + activation + ", repeat: 4}\n";
}

// The summary's line for a metric, e.g. "makespan              11.00 ms".
std::string summary_line(const std::string& out, const std::string& metric) {
  const auto at = out.find("\n" + metric + " ");
  if (at == std::string::npos) return "";
  const auto end = out.find('\n', at + 1);
  std::string line = out.substr(at + 1, end - at - 1);
  return metric + " " + line.substr(line.find_first_not_of(' ', metric.size()));
}

CliResult run_workload(const std::string& name, const std::string& yaml, const std::string& options = "") {
  return run_pipesim("run " + complete_platform(4) + " " + write_file(name, yaml) + " " + options);
}

void expect_error(const CliResult& r, const std::string& line) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipesim: error: " + line + "\n");
}

// 1F1B, 4 stages, 8 micro-batches of 1 ms forwards and free backwards: the
// last stage ends its last forward after (8 + 4 - 1) ms.
TEST(InputLimits, ZeroCostBackwardsRun) {
  const CliResult r = run_workload("zero-backward.yaml", chain("1ms", "0"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(summary_line(r.out, "makespan"), "makespan 11.00 ms");
  EXPECT_EQ(summary_line(r.out, "iteration time"), "iteration time 11.00 ms");
  EXPECT_EQ(summary_line(r.out, "exact period"), "");  // a flush schedule's period is the run itself
  EXPECT_EQ(summary_line(r.out, "verdict"), "verdict VALID");
}

TEST(InputLimits, ZeroCostForwardsRun) {
  const CliResult r = run_workload("zero-forward.yaml", chain("0", "1ms"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(summary_line(r.out, "makespan"), "makespan 11.00 ms");
  EXPECT_EQ(summary_line(r.out, "verdict"), "verdict VALID");
}

TEST(InputLimits, AllFreeRuns) {
  const CliResult r = run_workload("all-free.yaml", chain("0", "0"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(summary_line(r.out, "makespan"), "makespan 0.00 s");
  EXPECT_EQ(summary_line(r.out, "verdict"), "verdict VALID");
}

// Forwards of 1e13 s: the 2 ms backwards vanish in the round-off of such
// times (the last one starts where the iteration ends); 11 forwards in a row.
TEST(InputLimits, HugeCostsRun) {
  for (const std::string forward : {"1e13", "1e13s", "1e13Tf", "1e100"}) {
    const CliResult r = run_workload("huge.yaml", chain(forward, "2ms", "16MiB"));
    EXPECT_EQ(r.exit_code, 0) << forward << ": " << r.err;
    const std::string line = summary_line(r.out, "makespan");  // "makespan 110000000000000.25 s"
    ASSERT_EQ(line.substr(line.size() - 2), " s") << line;
    const double expected = forward == "1e100" ? 11e100 : 11e13;
    EXPECT_NEAR(std::stod(line.substr(9)), expected, expected * 1e-12) << line;
    EXPECT_EQ(summary_line(r.out, "verdict"), "verdict VALID") << forward;
  }
}

// Second-valued costs measured on a 1e-300 flop/s device are next to free;
// flop counts are not.
TEST(InputLimits, TinyReferenceSpeedRuns) {
  const CliResult r = run_workload("tiny-ref.yaml", chain("1Gf", "2ms", "0", "reference_speed: 1e-300f\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(summary_line(r.out, "makespan"), "makespan 11.00 ms");
  EXPECT_EQ(summary_line(r.out, "verdict"), "verdict VALID");
}

TEST(InputLimits, CostsThatOverflowAreRefused) {
  std::string file = temp_path("overflow.yaml");
  expect_error(run_workload("overflow.yaml", chain("1ms", "1e300")),
               file +
                   ": line 3: layers[0].backward: expected a cost of at most 1e100 s or 1e100 flops (larger ones "
                   "overflow the simulated times), got '1e300'");
  expect_error(run_workload("overflow.yaml", chain("1e300f", "1ms")),
               file +
                   ": line 3: layers[0].forward: expected a cost of at most 1e100 s or 1e100 flops (larger ones "
                   "overflow the simulated times), got '1e300f'");
  // Within range, but 1e100 flops last 1e88 s on a 1 Tf/s device, and
  // 1e90 s at 1e30 flop/s last 1e108 s there.
  expect_error(run_workload("overflow.yaml", chain("1ms", "1e90", "0", "reference_speed: 1e30f\n")),
               file +
                   ": layers: the backward of layer 'layer0' (layer 0) lasts 1e+108 s on gpu0, the slowest "
                   "device; a task may last at most 1e+100 s");
}

// The exported pattern of such runs runs again at the same exact period:
// a zero-length op ties with the op after it, which the pattern's period
// order (task number on equal offsets) must not put first.
TEST(InputLimits, ExportedPatternsOfExtremeCostsRunAgain) {
  for (const auto& [forward, backward] : std::vector<std::pair<std::string, std::string>>{
           {"1ms", "0"}, {"0", "1ms"}, {"0", "0"}, {"1e13", "2ms"}, {"1e100", "2ms"}}) {
    for (const std::string schedule : {"1f1b", "gpipe"}) {
      const std::string pattern = temp_path("extreme.pattern.yaml");
      const std::string yaml = chain(forward, backward, "16MiB");
      const CliResult first =
          run_workload("extreme.yaml", yaml + "schedule: " + schedule + "\n", "--export-pattern " + pattern);
      ASSERT_EQ(first.exit_code, 0) << forward << " " << backward << " " << schedule << ": " << first.err;
      const CliResult again = run_workload("again.yaml", yaml + "schedule: {name: pattern, file: " + pattern + "}\n");
      EXPECT_EQ(again.exit_code, 0) << forward << " " << backward << " " << schedule << ": " << again.err;
      // The flush run prints no pattern figures; its exported iteration,
      // run as a pattern, has the period it was laid out with.
      EXPECT_EQ(summary_line(first.out, "exact period"), "");
      const std::string period = summary_line(again.out, "pattern period");
      ASSERT_EQ(period.rfind("pattern period ", 0), 0u) << again.out;
      const std::string exact = summary_line(again.out, "exact period");
      ASSERT_EQ(exact.rfind("exact period ", 0), 0u) << again.out;
      const double T = std::stod(period.substr(15)), lambda = std::stod(exact.substr(13));
      EXPECT_NEAR(lambda, T, 1e-9 * T) << forward << " " << backward << " " << schedule;
      EXPECT_EQ(summary_line(again.out, "verdict"), "verdict VALID");
    }
  }
}

// A pattern file whose shift would overflow an int once a lag is added.
TEST(InputLimits, PatternShiftsOutOfRangeAreRefused) {
  const std::string pattern = write_file(
      "huge-shift.pattern.yaml",
      "period: 4\ntasks:\n  - {task: F1, device: gpu0, start: 0, shift: 2147483647}\n"
      "  - {task: B1, device: gpu0, start: 1, shift: 0}\n  - {task: F2, device: gpu1, start: 1.5, shift: 1}\n"
      "  - {task: B2, device: gpu1, start: 2.5, shift: 1}\n");
  const CliResult r = run_workload("huge-shift.yaml",
                                   "microbatches: 4\nlayers:\n  - {forward: 1s, backward: 2s, "
                                   "activation: 0, repeat: 2}\nschedule: {name: pattern, file: " +
                                       pattern + "}\n");
  expect_error(r, pattern +
                      ": line 3: tasks[0].shift: expected an integer in -1000000000..1000000000, got "
                      "'2147483647'");
}

}  // namespace
}  // namespace pipesim
