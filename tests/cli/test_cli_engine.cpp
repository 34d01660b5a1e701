// pipesim run --engine simgrid|analytic|auto: the same JSON from both engines
// on the shipped examples (times within 1e-9, everything else equal, only
// "engine" differs), the analytic engine's refusal, auto's fallback.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "tests/fuzz/report_compare.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

struct Case {
  std::string platform, workload, extra;
};

std::string run_json(const Case& c, const std::string& engine, int expected_exit = 0) {
  const std::string json = temp_path("engine-" + engine + ".json");
  const CliResult r = run_pipesim("run " + kRoot + c.platform + " " + kRoot + c.workload + " " + c.extra +
                                  " --quiet --engine " + engine + " --json " + json);
  EXPECT_EQ(r.exit_code, expected_exit) << c.workload << " on " << c.platform << ": " << r.err;
  return read_text(json);
}

// Every shipped example on the platform(s) it is written for, where the
// analytic engine applies. It does not apply to mobile-cnn on
// mobile-mixed-lte.xml (split sends micro-batches back to back over one LTE
// uplink direction) nor to transformer-8 under fsdp (every worker fetches
// gpu0's weights at once over its NVLink): see the next test.
TEST(CliEngine, ShippedExamplesGiveTheSameJsonWithEitherEngine) {
  const Case cases[] = {
      {"platforms/nvswitch-8gpu.xml", "workloads/examples/gpt2-xl-layers.yaml", ""},
      {"platforms/two-nvswitch-8gpu-infiniband.xml", "workloads/examples/gpt2-xl-layers.yaml", ""},
      {"platforms/nvswitch-4gpu.xml", "workloads/examples/tiny.yaml", ""},
      {"platforms/mobile-laptops-wifi.xml", "workloads/examples/mobile-cnn.yaml", ""},
      {"platforms/nvswitch-8gpu.xml", "workloads/examples/transformer-8.yaml", ""},
      {"platforms/nvswitch-8gpu.xml", "workloads/examples/transformer-8.yaml",
       "--schedule-param scheme=ddp --schedule-param G= --schedule-param R="},
      {"platforms/nvswitch-8gpu.xml", "workloads/examples/transformer-8.yaml",
       "--schedule-param scheme=gpipe --schedule-param G= --schedule-param R="},
      {"platforms/complete-4.xml", "workloads/examples/two-f-two-b.yaml", ""},
      {"platforms/nvswitch-8gpu.xml", "workloads/examples/gpt2-xl-layers.yaml",
       "--set schedule=kfkb --set schedule.k=2"},
      {"platforms/nvswitch-8gpu.xml", "workloads/examples/gpt2-xl-layers.yaml", "--set schedule=pipedream"},
      {"platforms/nvswitch-8gpu.xml", "workloads/examples/gpt2-xl-layers.yaml", "--set schedule=interleaved-zb"},
  };
  for (const Case& c : cases) {
    const std::string analytic = run_json(c, "analytic"), simgrid = run_json(c, "simgrid");
    EXPECT_EQ(nlohmann::json::parse(analytic).at("engine"), "analytic") << c.workload;
    EXPECT_EQ(nlohmann::json::parse(simgrid).at("engine"), "simgrid") << c.workload;
    std::string where;
    EXPECT_TRUE(same_report(without_engine(analytic), without_engine(simgrid), where))
        << c.workload << " on " << c.platform << " " << c.extra << ": " << where;
    EXPECT_EQ(run_json(c, "auto"), analytic) << c.workload;  // auto picks the analytic engine
  }
}

TEST(CliEngine, ContentionStopsTheAnalyticEngineAndAutoFallsBackToSimGrid) {
  const Case c{"platforms/mobile-mixed-lte.xml", "workloads/examples/mobile-cnn.yaml", ""};
  const std::string json = temp_path("refused.json");
  const CliResult refused =
      run_pipesim("run " + kRoot + c.platform + " " + kRoot + c.workload + " --engine analytic --json " + json);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(refused.err,
            "pipesim: error: --engine: analytic: not exact for this run: transfers 'transfer stage 0 mb 0 (dev 0->1)' "
            "and 'transfer stage 0 mb 1 (dev 0->1)' both use link laptop-i5-0-lte_UP at t = 0.366122448979592 s "
            "(they would share its bandwidth); run it with --engine simgrid\n");
  EXPECT_FALSE(std::filesystem::exists(json));

  const std::string simgrid = run_json(c, "simgrid"), fallback = run_json(c, "auto");
  EXPECT_EQ(fallback, simgrid);  // SimGrid ran, from the start
  const CliResult summary = run_pipesim("run " + kRoot + c.platform + " " + kRoot + c.workload);
  EXPECT_NE(summary.out.find("\nengine                simgrid (auto: transfers 'transfer stage 0 mb 0 (dev 0->1)' "
                             "and 'transfer stage 0 mb 1 (dev 0->1)' both use link laptop-i5-0-lte_UP at t = "
                             "0.366122448979592 s (they would share its bandwidth))\n"),
            std::string::npos)
      << summary.out;
}

TEST(CliEngine, SummarySaysWhichEngineRan) {
  const std::string args = "run " + kRoot + "platforms/nvswitch-4gpu.xml " + kRoot + "workloads/examples/tiny.yaml";
  EXPECT_NE(run_pipesim(args).out.find("schedule              1f1b\nengine                analytic (exact: "
                                       "nothing shared)\n"),
            std::string::npos);
  EXPECT_NE(run_pipesim(args + " --engine simgrid").out.find("\nengine                simgrid\n"), std::string::npos);
  // A setting that changes times hands auto over to SimGrid and stops the analytic engine.
  EXPECT_NE(run_pipesim(args + " --cfg network/model:LV08")
                .out.find("\nengine                simgrid (auto: --cfg network/model:LV08 changes transfer times)\n"),
            std::string::npos);
  const CliResult refused = run_pipesim(args + " --engine analytic --cfg network/model:LV08");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            "pipesim: error: --engine: analytic: not exact for this run: --cfg network/model:LV08 changes transfer "
            "times; run it with --engine simgrid\n");
  const CliResult bad = run_pipesim(args + " --engine fast");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "pipesim: error: --engine: fast not in {simgrid,analytic,auto}; see 'pipesim run --help'\n");
}

}  // namespace
}  // namespace pipesim
