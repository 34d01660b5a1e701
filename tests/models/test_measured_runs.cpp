// The measured one-GPU GPipe steps (H200, H100; PyTorch 2.11) against
// pipesim's run of the same model job: makespan and peak memory.
// docs/devices.md ("Chains") and docs/model-to-workload.md.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

struct MeasuredStep {
  const char* gpu;
  const char* platform;
  const char* workload;
  double step_ms;  // gpipe_one_device_run.json: step_ms
};

// tests/data/measured/{h200,h100}-transformer-block/gpipe_one_device_run.json
// (8 blocks h = 2048, 16 heads, s = 1024, b = 2, V = 50304; 4 stages on one
// GPU, 8 micro-batches in GPipe order; no optimizer step).
const MeasuredStep kSteps[] = {
    {"h200", "platforms/h200-1gpu.xml", "workloads/examples/h200-gpipe-one-gpu.yaml", 116.3635119999995},
    {"h100", "platforms/h100-1gpu.xml", "workloads/examples/h100-gpipe-one-gpu.yaml", 125.54779699999585},
};

// The same files, both GPUs: allocated_before 2,505,129,984 B +
// peak_above_before 14,514,593,792 B.
constexpr double kMeasuredPeakBytes = 2505129984.0 + 14514593792.0;

nlohmann::json run_json(const MeasuredStep& m) {
  const std::string json = temp_path(std::string("measured-") + m.gpu + ".json");
  const CliResult r = run_pipesim("run " + kRoot + m.platform + " " + kRoot + m.workload + " --json " + json);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  return nlohmann::json::parse(read_text(json));
}

TEST(MeasuredRuns, OneGpuGpipeStepWithinFivePercent) {
  for (const MeasuredStep& m : kSteps) {
    const nlohmann::json report = run_json(m);
    const double makespan_ms = report["makespan"].get<double>() * 1e3;
    const double err = makespan_ms / m.step_ms - 1;
    std::printf("%s one-GPU GPipe step: model %.2f ms, measured %.2f ms (%+.1f %%)\n", m.gpu, makespan_ms, m.step_ms,
                100 * err);
    EXPECT_LT(std::abs(err), 0.05) << m.gpu << ": " << makespan_ms << " ms against " << m.step_ms << " ms";
  }
}

TEST(MeasuredRuns, OneGpuGpipePeakMemoryAtOrAboveMeasuredWithinFivePercent) {
  for (const MeasuredStep& m : kSteps) {
    const nlohmann::json report = run_json(m);
    double peak = -1;
    for (const auto& d : report["devices"])
      if (d["name"] == "gpu0") peak = d["peak_memory"].get<double>();
    ASSERT_GT(peak, 0) << m.gpu << ": no gpu0 in the report";
    std::printf("%s one-GPU GPipe peak memory: model %.0f B, measured %.0f B (%+.2f %%)\n", m.gpu, peak,
                kMeasuredPeakBytes, 100 * (peak / kMeasuredPeakBytes - 1));
    EXPECT_GE(peak, kMeasuredPeakBytes) << m.gpu;
    EXPECT_LE(peak, 1.05 * kMeasuredPeakBytes) << m.gpu;
  }
}

}  // namespace
}  // namespace pipesim
