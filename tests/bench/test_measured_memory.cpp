// The memory estimate against what a run really takes: `pipesim run` as a
// child, its peak resident set from wait4, on the benchmarks' inputs (P = 64
// stages on a star, bench/bare/pipeline_inputs.hpp; the GPT-3 job of
// bench_bare_graph) at sizes that keep the test short. The estimate must
// never refuse a run that fits (it stays above the peak) nor let a run go
// far past --max-memory (within 1.5 times the peak).
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "bench/bare/pipeline_inputs.hpp"
#include "bench/command_run.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

struct MeasuredRun {
  const char* name;
  std::string schedule;  // after `schedule:`; empty: the GPT-3 175B job (1F1B)
  int microbatches;
  std::string extra;  // more arguments of `pipesim run`
};

std::string workload_text(const MeasuredRun& run) {
  if (run.schedule.empty())
    return "name: bench\nmodel: {preset: gpt3-175b}\nmicrobatches: " + std::to_string(run.microbatches) +
           "\nschedule: 1f1b\n";
  return bench::uniform_workload_yaml(run.schedule, 64, run.microbatches);
}

// The estimate the command prints when the limit is below it (2 MiB is above
// the platform's own estimate, so the run's is the one refused).
double printed_estimate(const std::string& args) {
  const CliResult r = run_pipesim(args + " --max-memory 2MiB");
  std::smatch m;
  if (!std::regex_search(r.err, m, std::regex("needs about ([0-9.]+) (MiB|GiB)"))) {
    ADD_FAILURE() << r.err;
    return 0;
  }
  return std::stod(m[1]) * (m[2] == "GiB" ? 1024.0 : 1.0);
}

TEST(MeasuredMemory, EstimateAboveThePeakAndWithinOneAndAHalfTimesIt) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine inflate the peak RSS 2-7x (scripts/sanitize.sh)";
#endif
  const std::vector<MeasuredRun> runs = {
      {"1f1b", "1f1b", 4000, ""},
      {"gpipe-simgrid", "gpipe", 2000, "--engine simgrid"},
      {"kfkb", "{name: kfkb, k: 2}", 1000, ""},
      {"pipedream", "{name: pipedream, noam: 64}", 1000, ""},
      {"master", "{name: master, scheme: lpp, G: 8, R: 8}", 250, ""},
      {"gpt3", "", 250, ""},
  };
  std::string star = bench::star_platform_xml(64);
  const std::string model_star = [star]() mutable {  // the job's passes are timed on an A100
    const std::string memory = "<prop id=\"memory\" value=\"64TiB\"/>";
    for (std::size_t at = star.find(memory); at != std::string::npos; at = star.find(memory, at + 1))
      star.insert(at + memory.size(), "<prop id=\"device\" value=\"a100-80gb\"/>");
    return star;
  }();
  const std::string platform = write_file("measured-star.xml", star);
  const std::string model_platform = write_file("measured-model-star.xml", model_star);
  for (const MeasuredRun& run : runs) {
    SCOPED_TRACE(run.name);
    const std::string workload = write_file(std::string("measured-") + run.name + ".yaml", workload_text(run));
    const std::string on = run.schedule.empty() ? model_platform : platform;
    const double estimate_mib = printed_estimate("run " + on + " " + workload + " " + run.extra);

    std::vector<std::string> args = {PIPESIM_BINARY, "run", on, workload, "--quiet", "--max-memory", "64GiB"};
    if (!run.extra.empty()) {
      args.push_back(run.extra.substr(0, run.extra.find(' ')));
      args.push_back(run.extra.substr(run.extra.find(' ') + 1));
    }
    const bench::CommandRun measured = bench::run_command(args, temp_path("measured.out"), temp_path("measured.err"));
    ASSERT_EQ(measured.exit_code, 0) << read_text(temp_path("measured.err"));
    const double peak_mib = measured.peak_rss_kib / 1024.0;
    EXPECT_GE(estimate_mib, peak_mib);
    EXPECT_LE(estimate_mib, 1.5 * peak_mib);
    std::printf("%-14s estimate %7.1f MiB  peak %7.1f MiB  ratio %.2f\n", run.name, estimate_mib, peak_mib,
                estimate_mib / peak_mib);
  }
}

}  // namespace
}  // namespace pipesim
