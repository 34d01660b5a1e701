// What a cluster of 512 to 8,192 GPUs costs before anything is simulated:
// `pipesim run CLUSTER tiny.yaml` (the whole command; tiny.yaml's four stages
// cost next to nothing) on a cluster description, and on the XML that
// make_platform.py writes for the same cluster where it can (at most 64 MiB:
// 512 GPUs), which is what SimGrid's own loader must read. See bench/README.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/command_run.hpp"
#include "tests/support/fixtures.hpp"

namespace {

const std::string kSource = PIPESIM_BENCH_SOURCE_DIR;

// make_platform.py cluster --boxes B --gpus 8 --network rail --nic 200Gbps -o NAME; "" if it failed.
std::string generate(int boxes, const std::string& name) {
  const std::string out = pipesim::testing::temp_path(name);
  const std::string command = "python3 " + kSource + "/scripts/make_platform.py cluster --boxes " +
                              std::to_string(boxes) + " --gpus 8 --network rail --nic 200Gbps -o " + out +
                              " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0 ? out : "";
}

void BM_ClusterPlatform(benchmark::State& state) {
  const int boxes = static_cast<int>(state.range(0));
  const std::string tag = "rail-" + std::to_string(boxes);
  const std::string description = generate(boxes, tag + ".yaml");
  const std::string xml = boxes <= 64 ? generate(boxes, tag + ".xml") : "";
  if (description.empty() || (boxes <= 64 && xml.empty())) {
    state.SkipWithError("make_platform.py failed");
    return;
  }
  const std::string tiny = kSource + "/workloads/examples/tiny.yaml";
  const std::string json = pipesim::testing::temp_path(tag + ".json");
  auto run = [&](const std::string& platform) {
    return pipesim::bench::run_command({PIPESIM_RUN_BINARY, "run", platform, tiny, "--json", json, "--quiet"},
                                       "/dev/null");
  };
  double seconds = 0, xml_seconds = 0;
  long rss = 0, xml_rss = 0;
  for (auto _ : state) {
    const pipesim::bench::CommandRun r = run(description);
    if (r.exit_code != 0) {
      state.SkipWithError("pipesim run failed on the description");
      return;
    }
    state.SetIterationTime(r.seconds);
    seconds += r.seconds;
    rss = std::max(rss, r.peak_rss_kib);
    if (!xml.empty()) {
      const pipesim::bench::CommandRun x = run(xml);
      if (x.exit_code != 0) {
        state.SkipWithError("pipesim run failed on the XML");
        return;
      }
      xml_seconds += x.seconds;
      xml_rss = std::max(xml_rss, x.peak_rss_kib);
    }
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["gpus"] = 8.0 * boxes;
  state.counters["pipesim_s"] = seconds / n;
  state.counters["rss_MiB"] = rss / 1024.0;
  state.counters["description_bytes"] = static_cast<double>(std::filesystem::file_size(description));
  if (!xml.empty()) {
    state.counters["xml_s"] = xml_seconds / n;
    state.counters["xml_rss_MiB"] = xml_rss / 1024.0;
    state.counters["xml_bytes"] = static_cast<double>(std::filesystem::file_size(xml));
  }
}

// GPT-3 175B, TP 8 inside each box, interleaved 1F1B (3 virtual stages),
// full recompute, every collective as flows, on `boxes` boxes: the whole
// command's time and peak memory; `fold` false simulates every replica.
void run_gpt3(benchmark::State& state, int boxes, int pp, int microbatches, int zero, bool dp_ring, bool fold) {
  const std::string tag = "gpt3-" + std::to_string(boxes) + "-" + std::to_string(pp) + "-" +
                          std::to_string(microbatches) + "-" + std::to_string(zero);
  const std::string platform = generate(boxes, tag + ".yaml");
  if (platform.empty()) {
    state.SkipWithError("make_platform.py failed");
    return;
  }
  const int dp = boxes * 8 / (8 * pp);
  const std::string workload = pipesim::testing::write_file(
      tag + "-workload.yaml",
      "name: gpt3-175b\n"
      "model: {preset: gpt3-175b, seq_length: 2048, vocab: 51200, microbatch_size: 1, precision: fp16,\n"
      "        flash_attention: false, dropout: true, recompute: full}\n"
      "optimizer: adam\nmicrobatches: " +
          std::to_string(microbatches) +
          "\nschedule: {name: interleaved-1f1b, virtual_stages: 3}\n"
          "parallel: {tp: 8, pp: " +
          std::to_string(pp) + ", dp: " + std::to_string(dp) + ", zero: " + std::to_string(zero) +
          (dp_ring ? ", dp_algorithm: ring" : "") + "}\n");
  const std::string json = pipesim::testing::temp_path(tag + ".json");
  double seconds = 0;
  long rss = 0;
  std::vector<std::string> command = {PIPESIM_RUN_BINARY, "run", platform, workload, "--json", json, "--quiet"};
  if (!fold) command.push_back("--no-fold");
  for (auto _ : state) {
    const pipesim::bench::CommandRun r = pipesim::bench::run_command(command, "/dev/null");
    if (r.exit_code != 0) {
      state.SkipWithError("pipesim run failed");
      return;
    }
    state.SetIterationTime(r.seconds);
    seconds += r.seconds;
    rss = std::max(rss, r.peak_rss_kib);
  }
  state.counters["gpus"] = 8.0 * boxes;
  state.counters["microbatches"] = microbatches;
  state.counters["pipesim_s"] = seconds / static_cast<double>(state.iterations());
  state.counters["rss_MiB"] = rss / 1024.0;
}

// Issue 24's job at smaller scale with the distributed optimizer (ZeRO-1,
// clipping): PP 8, DP = boxes / 8, every replica simulated (`--no-fold`):
// what the whole job's graph costs.
void BM_Gpt3Job(benchmark::State& state) {
  run_gpt3(state, static_cast<int>(state.range(0)), 8, static_cast<int>(state.range(1)), 1, false, false);
}

// The same job with ZeRO 0 and ring DP collectives (what `auto` picks up to
// DP 16; at DP 64 it would pick a tree): the replicas fold
// (docs/folding.md). boxes, pp, micro-batches per replica: 128, 8, 96 is
// issue 24's 1,024-GPU job (global batch 1,536); 1,024, 16, 24 its
// 8,192-GPU one (TP 8, PP 16, DP 64, global batch 1,536).
void BM_Gpt3Folded(benchmark::State& state) {
  run_gpt3(state, static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), static_cast<int>(state.range(2)),
           0, true, true);
}

}  // namespace

// boxes of 8 A100s on rails: 512, 1,024 and 8,192 GPUs.
BENCHMARK(BM_ClusterPlatform)
    ->ArgNames({"boxes"})
    ->Arg(64)
    ->Arg(128)
    ->Arg(1024)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// boxes (8 per replica), micro-batches per replica.
BENCHMARK(BM_Gpt3Job)
    ->ArgNames({"boxes", "M"})
    ->Args({8, 24})
    ->Args({16, 24})
    ->Args({32, 24})
    ->Args({8, 48})
    ->Args({8, 96})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

BENCHMARK(BM_Gpt3Folded)
    ->ArgNames({"boxes", "pp", "M"})
    ->Args({32, 8, 96})
    ->Args({64, 8, 96})
    ->Args({128, 8, 24})
    ->Args({128, 8, 48})
    ->Args({128, 8, 96})
    ->Args({256, 8, 96})
    ->Args({512, 8, 96})
    ->Args({1024, 16, 24})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
