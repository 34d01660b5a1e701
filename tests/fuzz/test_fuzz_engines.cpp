// The two engines on seeded workloads (docs/outputs.md#the-engine): where
// `--engine analytic` computes a run, `--engine simgrid` gives the same exit
// code and the same --json report (numbers within 1e-9 relative, only the
// "engine" line differs); where it cannot, it refuses with the contract's one
// line. Workloads are drawn valid (schedules, costs, sizes, counts, platforms)
// and a fifth of them mutated once. Case `engines-5` is seeded 18005:
//   build/pipesim_tests --gtest_filter=Fuzz/EnginesAgree.OnTheSameReport/5
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_case.hpp"
#include "tests/fuzz/report_compare.hpp"

namespace pipesim::fuzz {
namespace {

const std::vector<std::string> kSchedules = {"1f1b",
                                             "gpipe",
                                             "pipedream",
                                             "{name: kfkb, k: 2}",
                                             "1f1b-pattern",
                                             "zb-h1",
                                             "zb-h2",
                                             "{name: zb-auto, memory_limit: 2}",
                                             "zbv",
                                             "interleaved-1f1b",
                                             "looped-bfs",
                                             "interleaved-zb",
                                             "dualpipev",
                                             "{name: master, scheme: gpipe}",
                                             "{name: master, scheme: lpp}"};

const std::vector<std::string> kPlatforms = {"nvswitch-4gpu.xml", "nvswitch-8gpu.xml",
                                             "two-nvswitch-8gpu-infiniband.xml", "h100-1gpu.xml", "complete-4.xml"};

const FormatRules kRules = {{std::regex(R"re(\b[a-z_]+: *[^,{}\n#]*)re")},
                            std::regex(R"re(\b(?:schedule|name): *([^,{}\n#]+))re"),
                            {"gpipe", "1f1b", "zbv", "nosuch"},
                            ""};

// Runs WORKLOAD on PLATFORM with the analytic engine, then, where it
// computed the run, with SimGrid: "" when the contract holds and they agree.
class EngineCase : public SurfaceCase {
 protected:
  std::string compare(const std::string& workload, const std::string& platform) {
    write("workload.yaml", workload);
    write("platform.xml", source("platforms/" + platform));
    Outcome analytic;
    std::string failure =
        run(run_command("platform.xml", "workload.yaml", {"--engine"}, {"--engine", "analytic"}), &analytic);
    if (!failure.empty() || analytic.child.exit_code == 2) return failure;
    fs::rename(work() + "/out.json", work() + "/analytic.json");
    Outcome simgrid;
    failure = run(run_command("platform.xml", "workload.yaml", {}, {"--engine", "simgrid"}), &simgrid);
    std::string where;
    if (failure.empty() && simgrid.child.exit_code != analytic.child.exit_code)
      return "analytic exits " + std::to_string(analytic.child.exit_code) + ", simgrid " +
             std::to_string(simgrid.child.exit_code) + ": " + simgrid.err;
    if (failure.empty() && !pipesim::testing::same_report(pipesim::testing::without_engine(read("analytic.json")),
                                                          pipesim::testing::without_engine(read("out.json")), where))
      return "the engines disagree: analytic.json against simgrid's out.json at " + shown(where, 300);
    return failure;
  }
};

class EnginesAgree : public EngineCase {
  std::string format() const override { return "engines"; }
  std::uint64_t seed_base() const override { return 18000; }
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
  conclude(compare(workload, chose("platform", rng.pick(kPlatforms))));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, EnginesAgree, ::testing::Range(0, 32));

// Disagreements found by other seeds (PIPESIM_FUZZ_SEED_OFFSET) or by hand,
// kept as cases: {workload, platform}.
const std::vector<std::pair<std::string, std::string>> kEngineCases = {
    {edited(source("workloads/examples/tiny.yaml"), "schedule: 1f1b", "schedule: looped-bfs"), "nvswitch-4gpu.xml"},
    // engines-119 (seed 18119)
    {"microbatches: 4\nlayers:\n  - {forward: 0.5ms, backward: 1ms, activation: 1MiB, weights: 1MiB, repeat: 1}\n"
     "  - {forward: 1Tf, backward: 3ms, activation: 64MiB, weights: 0B, repeat: 3}\nschedule: zb-h1\n",
     "nvswitch-8gpu.xml"},
    // engines-803 (seed 18803)
    {"microbatches: 8\nlayers:\n  - {forward: 10us, backward: 1Tf, activation: 0B, weights: 64MiB, repeat: 1}\n"
     "  - {forward: 1Tf, backward: 2ms, activation: 64, weights: 1GiB, repeat: 1}\n"
     "  - {forward: 1Tf, backward: 1ms, activation: 64MiB, weights: 64MiB, repeat: 3}\nschedule: interleaved-1f1b\n",
     "nvswitch-8gpu.xml"},
    // Iterations that overlap: post-validated optimizer steps inserted between them.
    {"microbatches: 8\niterations: 3\noptimizer: {name: adam, post_validation: true}\nlayers:\n"
     "  - {forward: 1ms, backward: 2ms, backward_input: 1ms, backward_weight: 1ms, activation: 16MiB, weights: 64MiB, "
     "repeat: 4}\n"
     "schedule: zb-h2\n",
     "nvswitch-4gpu.xml"}};

class EngineCases : public EngineCase {
  std::string format() const override { return "engine-case"; }
  std::uint64_t seed_base() const override { return 0; }
  // Cases 0 and 1 differed in the order of a free and an allocation that
  // the two engines end a few ulps apart; memory events within SimGrid's
  // precision now make one instant, and both agree. Case 2's makespans
  // differ by 2.1e-10 s, within SimGrid's 1 ns precision but above the
  // relative 1e-9 the comparison holds the engines to.
  std::map<std::string, std::string> known_failures() const override {
    return {{"engine-case-2",
             "times differ by 1.1e-9 relative (makespan 0.196904363093333 s against "
             "0.19690436288 s), above the documented 1e-9"}};
  }
};

TEST_P(EngineCases, OnTheSameReport) {
  const auto& [workload, platform] = kEngineCases[static_cast<std::size_t>(GetParam())];
  chose("platform", platform);
  conclude(compare(workload, platform));
}

INSTANTIATE_TEST_SUITE_P(Fuzz, EngineCases, ::testing::Range(0, static_cast<int>(kEngineCases.size())));

}  // namespace
}  // namespace pipesim::fuzz
