// The shipped H200 trace (workloads/traces/h200-small-gpt/, SOURCE.md)
// against its ground truth, measured apart from the trace: per-part kernel
// times, the step through `pipesim run` of the imported calibration, the
// GPU-only step from the kernels' calibration, each part's saved bytes from
// the execution trace, and the peak memory.
// docs/import.md#profiler-traces.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"
#include "traces/execution_trace.hpp"
#include "traces/saved_bytes.hpp"
#include "traces/trace_calibration.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kFolder = kRoot + "workloads/traces/h200-small-gpt/";
const std::string kTrace = kFolder + "trace_single_gpu.json";

nlohmann::json ground_truth() { return read_json(kFolder + "ground_truth.json").at("single_gpu"); }

// Kernel seconds of each label's forward or backward, averaged over the micro-batches.
std::map<std::string, double> device_by_label(const StepCosts& c, bool backward) {
  std::map<std::string, double> sum;
  std::map<std::string, int> runs;
  for (const StepPiece& p : c.pieces)
    if (p.backward == backward) {
      sum[p.label] += p.device_seconds;
      ++runs[p.label];
    }
  for (auto& [label, s] : sum) s /= runs[label];
  return sum;
}

TEST(H200Trace, EachBlockAndTheHeadWithinFivePercentOfTheirMeasuredGpuTime) {
  const StepCosts c = attribute_step(read_kineto_trace(kTrace));
  EXPECT_EQ(c.step, "ProfilerStep#2");
  EXPECT_EQ(c.tokens, 2 * 1024);
  const nlohmann::json truth = ground_truth();
  const auto forward = device_by_label(c, false), backward = device_by_label(c, true);
  const auto check = [](const std::string& what, double model_s, double measured_ms) {
    const double err = model_s * 1e3 / measured_ms - 1;
    std::printf("%-18s imported %.4f ms, measured %.4f ms (%+.1f %%)\n", what.c_str(), model_s * 1e3, measured_ms,
                100 * err);
    EXPECT_LT(std::abs(err), 0.05) << what;
  };
  for (const auto& block : truth.at("blocks")) {
    const std::string label = "block" + std::to_string(block.at("block").get<int>());
    check(label + " forward", forward.at(label), block.at("fwd_ms_gpu").get<double>());
    check(label + " backward", backward.at(label), block.at("bwd_ms_gpu").get<double>());
  }
  // The head is two labelled regions, lm_head and loss; the ground truth times them together.
  const nlohmann::json& head = truth.at("lm_head_and_loss");
  check("head forward", forward.at("lm_head") + forward.at("loss"), head.at("fwd_ms_gpu").get<double>());
  check("head backward", backward.at("lm_head") + backward.at("loss"), head.at("bwd_ms_gpu").get<double>());
}

double run_makespan(const std::string& workload) {
  const std::string json = temp_path("h200-trace.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + workload + " --json " + json);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  return read_json(json).at("makespan").get<double>();
}

TEST(H200Trace, TheShippedCalibrationIsTheImportOfTheShippedTrace) {
  const std::string out = temp_path("calibration.yaml");
  const CliResult r = run_pipesim(
      "import ../traces/h200-small-gpt/trace_single_gpu.json --execution-trace "
      "../traces/h200-small-gpt/execution_trace_single_gpu.json -o " +
          out,
      "", kRoot + "workloads/examples");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "../traces/h200-small-gpt/trace_single_gpu.json: ProfilerStep#2 (4 micro-batches, 4 blocks) -> "
            "10 op times, 3 stash sizes from ../traces/h200-small-gpt/execution_trace_single_gpu.json, written to " +
                out + "\n");
  const std::string shipped = read_text(kRoot + "workloads/examples/h200-small-gpt.calibration.yaml");
  EXPECT_EQ(read_text(out), shipped);
  // docs/import.md shows it whole.
  EXPECT_NE(read_text(kRoot + "docs/import.md").find("```yaml\n" + shipped + "```"), std::string::npos);
}

TEST(H200Trace, ARunOfTheImportedCalibrationPredictsTheTracedStep) {
  const double traced = 45.47998e-3;  // ProfilerStep#2's duration in the trace
  const double makespan = run_makespan(kRoot + "workloads/examples/h200-small-gpt-traced.yaml");
  std::printf("traced step %.3f ms, simulated %.3f ms; unprofiled wall step %.3f ms\n", traced * 1e3, makespan * 1e3,
              ground_truth().at("timing").at("step_ms_wall").get<double>());
  // Every second of the step is some op's: the run adds them back up.
  EXPECT_NEAR(makespan / traced, 1, 1e-4);
}

TEST(H200Trace, ARunOfTheKernelsCalibrationPredictsTheGpuOnlyStep) {
  const std::string dir = temp_path("device-time");
  std::filesystem::create_directories(dir);
  const CliResult r = run_pipesim("import " + kTrace + " --device-time -o " + dir + "/h200-small-gpt.calibration.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string workload = dir + "/workload.yaml";
  std::ofstream(workload) << read_text(kRoot + "workloads/examples/h200-small-gpt-traced.yaml");
  const double makespan = run_makespan(workload);
  const double measured = ground_truth().at("timing").at("step_ms_gpu").get<double>() * 1e-3;
  std::printf("kernels' step %.3f ms, measured GPU-only step %.3f ms (%+.1f %%)\n", makespan * 1e3, measured * 1e3,
              100 * (makespan / measured - 1));
  EXPECT_LT(std::abs(makespan / measured - 1), 0.05);
}

TEST(H200Trace, PeakMemoryAtOrAboveTheMeasuredWithinFivePercent) {
  const std::string json = temp_path("h200-trace-memory.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + kRoot +
                                  "workloads/examples/h200-small-gpt-traced.yaml --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double peak = read_json(json).at("devices").at(0).at("peak_memory").get<double>();
  const double measured = ground_truth().at("max_memory_allocated_run").get<double>();
  std::printf("peak memory %.0f B, measured max_memory_allocated %.0f B (%+.1f %%)\n", peak, measured,
              100 * (peak / measured - 1));
  EXPECT_GE(peak, measured);
  EXPECT_LT(peak / measured - 1, 0.05);
  // The saved bytes are the execution trace's. At the peak one micro-batch is
  // in flight, holding what each part keeps for its backward, measured as the
  // allocation a grad-enabled forward leaves behind: the same to the byte.
  const nlohmann::json truth = ground_truth();
  double saved = 0;
  for (const auto& block : truth.at("blocks")) saved += block.at("fwd_delta_bytes_incl_output").get<double>();
  saved += truth.at("embedding").at("fwd_delta_bytes_incl_output").get<double>() +
           truth.at("lm_head_and_loss").at("fwd_delta_bytes_incl_output").get<double>();
  const double activations = read_json(json).at("devices").at(0).at("peak_breakdown").at("activations").get<double>();
  std::printf("activations at the peak %.0f B, measured saved bytes %.0f B (%+.4f %%)\n", activations, saved,
              100 * (activations / saved - 1));
  EXPECT_DOUBLE_EQ(activations, saved);
}

TEST(H200Trace, TheExecutionTraceGivesEachPartsSavedBytes) {
  const SavedBytes saved = saved_bytes(read_execution_trace(kFolder + "execution_trace_single_gpu.json"));
  EXPECT_EQ(saved.microbatches, 4);
  // Measured apart from the trace (each part's forward alone): a block keeps
  // its input and 63,013,888 B besides its output; the head its input (the
  // last block's output), what it saved, the logits and the loss; the
  // embedding nothing but its output, which the first block keeps.
  const nlohmann::json truth = ground_truth();
  const nlohmann::json& block = truth.at("blocks").at(0);
  EXPECT_DOUBLE_EQ(saved.stash.at(ModelPart::Block),
                   block.at("input_bytes").get<double>() + block.at("saved_bytes_excl_output").get<double>());
  EXPECT_DOUBLE_EQ(saved.stash.at(ModelPart::Head),
                   block.at("output_bytes").get<double>() +
                       truth.at("lm_head_and_loss").at("fwd_delta_bytes_incl_output").get<double>());
  EXPECT_DOUBLE_EQ(saved.stash.at(ModelPart::Embedding),
                   truth.at("embedding").at("saved_bytes_excl_output").get<double>());
}

}  // namespace
}  // namespace pipesim
