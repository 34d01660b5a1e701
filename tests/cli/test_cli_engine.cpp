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

// Every shipped example on the platform(s) it is written for. The last five
// share links (split sends micro-batches back to back over one LTE uplink
// direction; under fsdp every worker fetches gpu0's weights at once over its
// NVLink; tiny's activations meet on a slow link of complete-4.xml and on
// the Ethernet of four-nvswitch-2gpu-ethernet-25g.xml), which the analytic
// engine shares as SimGrid's max-min does.
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
      {"platforms/mobile-mixed-lte.xml", "workloads/examples/mobile-cnn.yaml", ""},
      {"platforms/nvswitch-8gpu.xml", "workloads/examples/transformer-8.yaml",
       "--schedule-param scheme=fsdp --schedule-param G= --schedule-param R="},
      {"platforms/complete-4.xml", "workloads/examples/tiny.yaml", ""},
      {"platforms/four-nvswitch-2gpu-ethernet-25g.xml", "workloads/examples/tiny.yaml", ""},
      {"platforms/four-nvswitch-2gpu-ethernet-25g.xml", "workloads/examples/gpt2-xl-layers.yaml", ""},
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

// DualPipeV overlaps a forward and a backward on one GPU, which SimGrid's
// TI CPU model shares in its own way: the analytic engine stops, naming
// both tasks; auto runs SimGrid. (Under the default cpu/optim:Lazy it
// shares them as SimGrid does.)
TEST(CliEngine, WhatItCannotComputeStopsTheAnalyticEngineAndAutoFallsBackToSimGrid) {
  const Case c{"platforms/nvswitch-4gpu.xml", "workloads/examples/tiny.yaml",
               "--set schedule=dualpipev --cfg cpu/optim:TI"};
  const std::string json = temp_path("refused.json");
  const std::string args = "run " + kRoot + c.platform + " " + kRoot + c.workload + " " + c.extra;
  const CliResult refused = run_pipesim(args + " --engine analytic --json " + json);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.out, "");
  const std::string why =
      "tasks 'forward stage 0 mb 3 (dev 0)' and 'backward stage 3 mb 1 (dev 0)' run on one resource of gpu0 with "
      "shares 1 and 1 at t = 0.00711584810666667 s (more than its whole speed: cpu/optim:TI would share it)";
  EXPECT_EQ(refused.err,
            "pipesim: error: --engine: analytic: not exact for this run: " + why + "; run it with --engine simgrid\n");
  EXPECT_FALSE(std::filesystem::exists(json));

  const std::string simgrid = run_json(c, "simgrid"), fallback = run_json(c, "auto");
  EXPECT_EQ(fallback, simgrid);  // SimGrid ran, from the start
  EXPECT_NE(run_pipesim(args).out.find("\nengine                simgrid (auto: " + why + ")\n"), std::string::npos);
}

TEST(CliEngine, SummarySaysWhichEngineRan) {
  const std::string args = "run " + kRoot + "platforms/nvswitch-4gpu.xml " + kRoot + "workloads/examples/tiny.yaml";
  EXPECT_NE(run_pipesim(args).out.find("schedule              1f1b\nengine                analytic (exact: "
                                       "nothing shared)\n"),
            std::string::npos);
  const std::string shared =
      "run " + kRoot + "platforms/complete-4.xml " + kRoot + "workloads/examples/tiny.yaml";  // a slow link, shared
  EXPECT_NE(run_pipesim(shared).out.find("\nengine                analytic (exact: links shared as SimGrid's "
                                         "max-min)\n"),
            std::string::npos);
  EXPECT_NE(run_pipesim(args + " --set schedule=dualpipev")
                .out.find("\nengine                analytic (exact: overlapped executions sharing a device as "
                          "SimGrid's CPU model)\n"),
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
