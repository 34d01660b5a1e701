// The two engines on seeded workloads (docs/outputs.md#the-engine): where
// `--engine analytic` computes a run, `--engine simgrid` gives the same exit
// code and the same --json report (numbers within 1e-9 relative, only the
// "engine" line differs); where it cannot, it refuses with the contract's one
// line. Workloads are drawn valid (schedules, costs, sizes, counts, platforms)
// and a fifth of them mutated once. Case `engines-5` is seeded 18005:
//   build/pipesim_tests --gtest_filter=Fuzz/EnginesAgree.OnTheSameReport/5
#include <string>
#include <vector>

#include "tests/fuzz_case.hpp"
#include "tests/report_compare.hpp"

namespace pipesim::fuzz {
namespace {

const std::vector<std::string> kSchedules = {
    "1f1b", "gpipe", "pipedream", "{name: kfkb, k: 2}", "1f1b-pattern", "zb-h1", "zb-h2", "zbv", "interleaved-1f1b",
    "looped-bfs", "interleaved-zb", "dualpipev", "{name: master, scheme: gpipe}", "{name: master, scheme: lpp}"};

const std::vector<std::string> kPlatforms = {"nvswitch-4gpu.xml", "nvswitch-8gpu.xml",
                                             "two-nvswitch-8gpu-infiniband.xml", "h100-1gpu.xml", "complete-4.xml"};

const FormatRules kRules = {{std::regex(R"re(\b[a-z_]+: *[^,{}\n#]*)re")},
                            std::regex(R"re(\b(?:schedule|name): *([^,{}\n#]+))re"),
                            {"gpipe", "1f1b", "zbv", "nosuch"},
                            ""};

class EnginesAgree : public SurfaceCase {
  std::string format() const override { return "engines"; }
  std::uint64_t seed_base() const override { return 18000; }
  std::map<std::string, std::string> known_failures() const override { return {}; }
};

TEST_P(EnginesAgree, OnTheSameReport) {
  Rng rng(seed_);
  static const std::vector<std::string> times = {"1ms", "2ms", "0.5ms", "3ms", "10us", "1Tf"};
  static const std::vector<std::string> sizes = {"16MiB", "1MiB", "0B", "64MiB", "1GiB"};
  std::string workload = "microbatches: " + std::to_string(1 + rng.below(8)) + "\nlayers:\n";
  for (std::size_t n = 1 + rng.below(3); n > 0; --n)
    workload += "  - {forward: " + rng.pick(times) + ", backward: " + rng.pick(times) +
                ", activation: " + rng.pick(sizes) + ", weights: " + rng.pick(sizes) +
                ", repeat: " + std::to_string(1 + rng.below(4)) + "}\n";
  if (rng.chance(30)) workload += "iterations: " + std::to_string(2 + rng.below(2)) + "\n";
  workload += "schedule: " + rng.pick(kSchedules) + "\n";
  chose("workload", workload);
  if (rng.chance(20)) workload = mutated(workload, rng, kRules);
  write("workload.yaml", workload);
  write("platform.xml", source("platforms/" + chose("platform", rng.pick(kPlatforms))));

  Outcome analytic;
  std::string failure = run(run_command("platform.xml", "workload.yaml", {"--engine"}, {"--engine", "analytic"}),
                            &analytic);
  if (failure.empty() && analytic.child.exit_code != 2) {
    fs::rename(work() + "/out.json", work() + "/analytic.json");
    Outcome simgrid;
    failure = run(run_command("platform.xml", "workload.yaml", {}, {"--engine", "simgrid"}), &simgrid);
    std::string where;
    if (failure.empty() && simgrid.child.exit_code != analytic.child.exit_code)
      failure = "analytic exits " + std::to_string(analytic.child.exit_code) + ", simgrid " +
                std::to_string(simgrid.child.exit_code) + ": " + simgrid.err;
    else if (failure.empty() &&
             !pipesim::testing::same_report(pipesim::testing::without_engine(read("analytic.json")),
                                            pipesim::testing::without_engine(read("out.json")), where))
      failure = "the engines disagree: analytic.json against simgrid's out.json at " + shown(where, 300);
  }
  conclude(failure);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, EnginesAgree, ::testing::Range(0, 40));

}  // namespace
}  // namespace pipesim::fuzz
