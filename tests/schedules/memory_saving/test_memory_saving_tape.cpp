// Seed 002's programs on the workload's own sizes (issue "the seeds in
// full", item 3): a layer's `stash` gives the tape ā^l (what F_all keeps,
// beyond the input, plus the output a^l), its workspaces the overheads o_f
// and o_b (docs/memory-saving.md, "Pipelines that save memory"). Checked
// through `pipesim run` against the exhaustive search over every persistent
// sequence, on integer chains whose tapes exceed their outputs.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <random>
#include <string>

#include "schedules/memory_saving/rematerialization.hpp"
#include "tests/schedules/memory_saving/test_memory_saving_exhaustive.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim::memory_saving {
namespace {

using pipesim::testing::read_json;
using pipesim::testing::run_pipesim;
using pipesim::testing::temp_path;
using pipesim::testing::write_file;
using testing::exhaustive_optimum;
using testing::kNever;

const std::string kPlatform = std::string(PIPESIM_SOURCE_DIR) + "/platforms/h100-1gpu.xml";

// The chain as a one-stage workload: the gradient of a^i is its size, as
// the workload has it; the stash is what makes the tape (ā^l = a^l +
// stash_l − a^{l−1}); the memory grid has one slot per byte, so the program
// is exact on these integer sizes.
std::string chain_workload(const Chain& c, double limit) {
  std::string yaml = "name: tape\nmicrobatches: 1\nschedule: gpipe\ninput: " + std::to_string(int(c.input_size)) +
                     "\nmemory_saving: {policy: remat, limit: " + std::to_string(int(limit)) +
                     ", slots: " + std::to_string(int(limit)) + "}\nlayers:\n";
  for (int i = 1; i <= c.length(); ++i) {
    const ChainLayer& l = c.layers[i - 1];
    yaml += "  - {forward: " + std::to_string(int(l.forward_time)) +
            "s, backward: " + std::to_string(int(l.backward_time)) +
            "s, activation: " + std::to_string(int(l.output_size)) +
            ", stash: " + std::to_string(int(l.tape_size - l.output_size + c.a(i - 1))) +
            ", forward_workspace: " + std::to_string(int(l.forward_overhead)) +
            ", backward_workspace: " + std::to_string(int(l.backward_overhead)) + "}\n";
  }
  return yaml;
}

TEST(MemorySavingTape, RunEqualsExhaustiveSearchWhereTapesExceedOutputs) {
  std::mt19937 rng(2027);
  int runs = 0, recomputing = 0, refused = 0;
  for (int trial = 0; trial < 16; ++trial) {
    Chain chain = testing::random_integer_chain(rng, 2 + trial % 4);
    chain.input_gradient_size = chain.input_size;  // the workload's δ are its a
    bool taped = false;
    for (ChainLayer& l : chain.layers) {
      l.gradient_size = l.output_size;
      taped = taped || l.tape_size > l.output_size;
    }
    if (!taped) chain.layers[0].tape_size += 2;
    const double least = min_feasible_limit(chain);
    for (const double limit : {least - 1, least, least + 2}) {
      if (limit < 1) continue;
      SCOPED_TRACE("trial " + std::to_string(trial) + ", limit " + std::to_string(limit));
      const double optimum = exhaustive_optimum(chain, limit);
      const std::string json = temp_path("tape.json");
      const pipesim::testing::CliResult r = run_pipesim(
          "run " + kPlatform + " " + write_file("tape.yaml", chain_workload(chain, limit)) + " --quiet --json " + json);
      if (optimum == kNever) {
        EXPECT_EQ(r.exit_code, 1) << r.err;  // infeasible: names the smallest limit
        EXPECT_NE(r.err.find("pipesim: infeasible: "), std::string::npos) << r.err;
        ++refused;
        continue;
      }
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const nlohmann::json report = read_json(json);
      EXPECT_NEAR(report.at("makespan").get<double>(), optimum, 1e-9 * optimum);
      const nlohmann::json& gpu = report.at("devices").at(0);
      EXPECT_LE(gpu.at("peak_memory").get<double>(), limit);
      ++runs;
      double keep_all = 0;
      for (const ChainLayer& l : chain.layers) keep_all += l.forward_time + l.backward_time;
      if (optimum > keep_all) ++recomputing;
    }
  }
  EXPECT_GE(runs, 20);
  EXPECT_GE(recomputing, 8);  // the limits make the program recompute
  EXPECT_GE(refused, 5);
}

}  // namespace
}  // namespace pipesim::memory_saving
