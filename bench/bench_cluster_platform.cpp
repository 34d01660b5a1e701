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
