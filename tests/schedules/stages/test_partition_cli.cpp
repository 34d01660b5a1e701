// placement.partition through `pipesim run`: a model whose head weighs two
// blocks (Llama-3 8B's 128,256-token vocabulary) trains faster with the
// balanced partition under every schedule that takes it
// (docs/workload-format.md#placement).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/build_paths.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

const std::string kLlama3 =
    "model: {preset: llama3-8b, seq_length: 8192, microbatch_size: 1, precision: bf16, recompute: selective}\n"
    "optimizer: adam\nmicrobatches: 32\nparallel: {tp: 2, pp: 4, dp: 1}\n";

struct Measured {
  double iteration = 0, busiest = 0;  // seconds: the iteration, the busiest GPU's busy time
};

Measured run(const std::string& schedule, const std::string& partition) {
  const std::string workload = write_file("llama3-8b.yaml", kLlama3 + "schedule: " + schedule + "\n"),
                    json = temp_path("partition.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + workload +
                                  " --set placement.partition=" + partition + " --json " + json + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = read_json(json);
  Measured out{json_number(j, "/iteration_time"), 0};
  for (const auto& d : j["devices"]) out.busiest = std::max(out.busiest, d["busy_time"].get<double>());
  return out;
}

// Even: 8 blocks a stage and the head (about 2 blocks of work) on the last;
// balanced: fewer blocks beside the head. 5 to 8 % faster on every schedule.
TEST(PartitionCli, TheBalancedPartitionWeighsTheHead) {
  for (const char* schedule : {"1f1b", "interleaved-1f1b", "zb-h1", "zbv", "dualpipev"}) {
    const Measured even = run(schedule, "even"), balanced = run(schedule, "balanced");
    EXPECT_LT(balanced.iteration, 0.95 * even.iteration) << schedule;
    EXPECT_LT(balanced.busiest, even.busiest) << schedule;
    EXPECT_GT(balanced.iteration, 0.90 * even.iteration) << schedule;
  }
  // auto: balanced for 1f1b, even for PyTorch's schedules.
  EXPECT_EQ(run("1f1b", "auto").iteration, run("1f1b", "balanced").iteration);
  EXPECT_EQ(run("zbv", "auto").iteration, run("zbv", "even").iteration);
}

// placement.layers names each stage's layer count: Megatron's even split
// written out (the embedding and 8 blocks, 8, 8, 8 and the head) is the
// even partition's run, byte for byte, on one stage per rank and on V's two.
TEST(PartitionCli, LayerCountsGiveTheStagesTheyName) {
  const auto json_of = [&](const std::string& schedule, const std::string& placement) {
    const std::string workload = write_file("llama3-8b.yaml", kLlama3 + "schedule: " + schedule + "\n"),
                      json = temp_path("layers.json");
    const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + workload + " --set " + placement +
                                    " --json " + json + " --quiet");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_text(json);
  };
  EXPECT_EQ(json_of("1f1b", "placement.partition=even"), json_of("1f1b", "'placement.layers=[9, 8, 8, 9]'"));
  EXPECT_EQ(json_of("zbv", "placement.partition=even"), json_of("zbv", "'placement.layers=[5, 4, 4, 4, 4, 4, 4, 5]'"));
  // Uneven: fewer blocks on the first stage, which holds the most micro-batches under 1F1B.
  EXPECT_NE(json_of("1f1b", "'placement.layers=[7, 9, 9, 9]'"), json_of("1f1b", "placement.partition=even"));
  // A count per stage: zbv has two stages per rank.
  const std::string workload = write_file("llama3-8b.yaml", kLlama3 + "schedule: zbv\n");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + workload +
                                  " --set 'placement.layers=[9, 8, 8, 9]'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("placement.layers"), std::string::npos) << r.err;
}

TEST(PartitionCli, SchedulesThatCutTheChainThemselvesRefuseIt) {
  const std::string workload = write_file("master.yaml",
                                          "layers:\n  - {forward: 1ms, backward: 2ms, activation: 1MB, repeat: 4}\n"
                                          "microbatches: 2\nschedule: {name: master, scheme: ddp}\n"
                                          "placement: {partition: balanced}\n");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/complete-4.xml " + workload);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + workload +
                       ": placement.partition: schedule 'master' balances its stages' flops itself (the min-max "
                       "partition); leave it out\n");
}

}  // namespace
}  // namespace pipesim
