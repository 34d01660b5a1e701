// pipesim import and pipesim study through the binary: files written,
// determinism, usage and input errors. Skipped while main.cpp does not
// dispatch the commands yet.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_runner.hpp"
#include "workloads/pipedream_profile.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kResNet18 = kRoot + "workloads/profiles/resnet18/graph.txt";

// Two layers solved at once by the ILP; tests add layers after it.
const std::string kTwoLayerChain =
    "microbatches: 8\nreference_speed: 1Tf\ninput: 1MB\nlayers:\n"
    "  - {forward: 1ms, backward: 2ms, activation: 1MB, weights: 1MB}\n"
    "  - {forward: 2ms, backward: 3ms, activation: 1MB, weights: 1MB}\n";

#define SKIP_UNLESS_WIRED(command)                                                 \
  do {                                                                             \
    const CliResult probe = run_pipesim(command " --help");                        \
    if (probe.err.find("unknown command") != std::string::npos)                    \
      GTEST_SKIP() << "pipesim " command " is not dispatched by sim/cli/main.cpp"; \
  } while (0)

TEST(StudyCli, ImportWritesTheWorkload) {
  SKIP_UNLESS_WIRED("import");
  const std::string out = temp_path("r18.yaml");
  const CliResult r = run_pipesim("import " + kResNet18 + " -o " + out + " --microbatches 32");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "resnet18: 70 operators -> 26 layers, written to " + out + "\n");
  const Workload w = load_workload(out);
  EXPECT_EQ(w.layers.size(), 26u);
  EXPECT_EQ(w.microbatches, 32);
  // Standard output without -o: the same bytes.
  const CliResult again = run_pipesim("import " + kResNet18 + " --microbatches 32");
  EXPECT_EQ(again.out, read_text(out));
}

TEST(StudyCli, ImportErrors) {
  SKIP_UNLESS_WIRED("import");
  const std::string bad = write_file("bad.txt", "node1 -- A -- forward_compute_time=1\n");
  const CliResult r = run_pipesim("import " + bad + " -o " + temp_path("never.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find(": line")), "pipesim: error: " + bad);
  EXPECT_FALSE(std::filesystem::exists(temp_path("never.yaml")));
  const CliResult usage = run_pipesim("import " + kResNet18 + " --microbatches 0");
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(usage.err,
            "pipesim: error: --microbatches needs a whole number >= 1, got '0'; see 'pipesim import --help'\n");
}

TEST(StudyCli, StudyWritesPointsTableAndPlot) {
  SKIP_UNLESS_WIRED("study");
  const std::string dir = temp_path("study");
  const std::string args = "study " + kRoot + "platforms/complete-4.xml " + kResNet18 +
                           " --memory 8GiB,16GiB --no-ilp --microbatches 64 -o " + dir;
  const CliResult r = run_pipesim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = read_text(dir + "/points.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "source,memory_limit,peak_memory,period,predicted_peak,predicted_period,status,config,analytic_peak,gap");
  std::istringstream lines(csv);
  int rows = 0;
  for (std::string line; std::getline(lines, line);) rows += line.rfind("pipedream,", 0) == 0;
  EXPECT_GE(rows, 4);  // at least one partition with NOAM 1..4
  EXPECT_NE(read_text(dir + "/table.md").find("| 8.00 GiB |"), std::string::npos);
  EXPECT_EQ(read_text(dir + "/plot.svg").rfind("<svg ", 0), 0u);
  EXPECT_EQ(read_text(dir + "/workload.yaml"), imported_workload_yaml(import_pipedream(kResNet18)));
  EXPECT_NE(r.out.find("resnet18 on 4 devices: 26 layers"), std::string::npos) << r.out;
  // Deterministic: the same points again.
  ASSERT_EQ(run_pipesim(args).exit_code, 0);
  EXPECT_EQ(read_text(dir + "/points.csv"), csv);
}

// --export-patterns: one file per point that has a pattern, named by its
// row in points.csv, that `pipesim validate` accepts.
TEST(StudyCli, StudyExportsEveryPointsPattern) {
  SKIP_UNLESS_WIRED("study");
  const std::string platform = complete_platform(2, "1GBps", "0s", "1Tf", "1TiB");
  const std::string workload = write_file("export-chain.yaml", kTwoLayerChain);
  const std::string dir = temp_path("study-export"), patterns = temp_path("study-patterns");
  std::filesystem::remove_all(patterns);
  const CliResult r = run_pipesim("study " + platform + " " + workload + " --memory 1GiB --ilp-time-limit 30 -o " +
                                  dir + " --export-patterns " + patterns);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(read_text(dir + "/points.csv"));
  std::string line;
  std::getline(lines, line);  // header
  int row = 0, exported = 0;
  for (; std::getline(lines, line); ++row) {
    char name[32];
    std::snprintf(name, sizeof(name), "/%03d-", row);
    const std::string source = line.substr(0, line.find(','));
    const std::string file = patterns + name + source + ".yaml";
    if (source == "ilp") {
      EXPECT_TRUE(std::filesystem::exists(file)) << file;  // the solver's answer always has one
    }
    if (!std::filesystem::exists(file)) continue;
    ++exported;
    const CliResult v = run_pipesim("validate " + platform + " " + workload + " " + file);
    EXPECT_EQ(v.exit_code, 0) << file << ": " << v.out << v.err;
  }
  EXPECT_GE(exported, 2);  // the ILP's and at least one PipeDream steady state
}

// A small chain where the ILP solves at once: its point is simulated like
// PipeDream's and reaches the solver's period within the limit.
TEST(StudyCli, StudyWithIlpPoints) {
  SKIP_UNLESS_WIRED("study");
  const std::string platform = complete_platform(2, "1GBps", "0s", "1Tf", "1TiB");
  const std::string workload =
      write_file("chain.yaml", kTwoLayerChain + "  - {forward: 1ms, backward: 1ms, activation: 1MB, weights: 1MB}\n");
  // Default weights (stashing, as PipeDream's runs), 2BW, and time limit 0 (the warm start, CBC not run).
  for (const auto& [weights, status] : std::vector<std::pair<std::string, std::string>>{
           {"", "optimal"}, {" --ilp-weights 2bw", "optimal"}, {" --ilp-time-limit 0", "heuristic"}}) {
    const std::string dir = temp_path("study-ilp" + std::to_string(weights.size()));
    const CliResult r =
        run_pipesim("study " + platform + " " + workload + " --memory 1GiB --ilp-time-limit 30 -o " + dir + weights);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(read_text(dir + "/points.csv"));
    int ilp_rows = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("ilp,", 0) != 0) continue;
      ++ilp_rows;
      std::vector<std::string> f;
      std::stringstream fields(line);
      for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
      ASSERT_GE(f.size(), 8u) << line;
      EXPECT_EQ(f[1], "1073741824");
      EXPECT_LE(std::stod(f[2]), 1073741824.0) << line;             // simulated peak within the limit
      EXPECT_NEAR(std::stod(f[3]), std::stod(f[5]), 1e-9) << line;  // simulated period = the pattern's
      EXPECT_EQ(f[6], status) << line;
    }
    EXPECT_EQ(ilp_rows, 1);
    EXPECT_NE(read_text(dir + "/table.md").find("| 1.00 GiB |"), std::string::npos);
  }
}

// --name names the imported workload, in the file and in the message.
TEST(StudyCli, ImportNameNamesTheWorkload) {
  SKIP_UNLESS_WIRED("import");
  const std::string out = temp_path("named.yaml");
  const CliResult r = run_pipesim("import " + kResNet18 + " --name my-net -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "my-net: 70 operators -> 26 layers, written to " + out + "\n");
  EXPECT_EQ(load_workload(out).name, "my-net");
}

// The row of the ILP's point in points.csv, as fields.
std::vector<std::string> ilp_row(const std::string& csv) {
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("ilp,", 0) != 0) continue;
    std::vector<std::string> fields;
    std::stringstream row(line);
    for (std::string x; std::getline(row, x, ',');) fields.push_back(x);
    return fields;
  }
  return {};
}

// --ilp-threads: one CBC thread finds the same optimum as the default two;
// --ilp-log: the solver's progress on standard error, absent without it;
// --title: the plot's title (escaped) and the summary line's.
TEST(StudyCli, StudyIlpThreadsLogAndTitle) {
  SKIP_UNLESS_WIRED("study");
  const std::string platform = complete_platform(2, "1GBps", "0s", "1Tf", "1TiB");
  const std::string workload = write_file("options-chain.yaml", kTwoLayerChain);
  const std::string base = "study " + platform + " " + workload + " --memory 1GiB --ilp-time-limit 30 -o ";
  const std::string one = temp_path("study-one-thread"), two = temp_path("study-two-threads");
  const CliResult logged = run_pipesim(base + one + " --ilp-threads 1 --ilp-log --title 'Two <layers>'");
  ASSERT_EQ(logged.exit_code, 0) << logged.err;
  EXPECT_NE(logged.err.find("\n  ilp: "), std::string::npos) << logged.err;
  EXPECT_NE(logged.err.find("warm start: period"), std::string::npos) << logged.err;
  EXPECT_EQ(logged.out.rfind("Two <layers>: 2 layers, ", 0), 0u) << logged.out;
  EXPECT_NE(read_text(one + "/plot.svg").find(">Two &lt;layers&gt;</text>"), std::string::npos);

  const CliResult quiet = run_pipesim(base + two);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("  ilp: "), std::string::npos) << quiet.err;
  EXPECT_NE(quiet.out.find(" on 2 devices: 2 layers, "), std::string::npos) << quiet.out;
  const std::vector<std::string> a = ilp_row(read_text(one + "/points.csv")),
                                 b = ilp_row(read_text(two + "/points.csv"));
  ASSERT_GE(a.size(), 7u);
  ASSERT_GE(b.size(), 7u);
  EXPECT_EQ(a[6], "optimal");
  EXPECT_EQ(a[6], b[6]);
  EXPECT_EQ(a[5], b[5]);  // the pattern's period

  const CliResult zero = run_pipesim(base + temp_path("never") + " --ilp-threads 0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_EQ(zero.err, "pipesim: error: --ilp-threads needs a whole number >= 1, got '0'; see 'pipesim study --help'\n");
}

TEST(StudyCli, StudyUsageErrors) {
  SKIP_UNLESS_WIRED("study");
  const CliResult no_dir = run_pipesim("study " + kRoot + "platforms/complete-4.xml " + kResNet18);
  EXPECT_EQ(no_dir.exit_code, 2);
  EXPECT_EQ(no_dir.err, "pipesim: error: --output is required; see 'pipesim study --help'\n");
  const CliResult bad_memory =
      run_pipesim("study " + kRoot + "platforms/complete-4.xml " + kResNet18 + " --memory 8GB,lots -o x");
  EXPECT_EQ(bad_memory.exit_code, 2);
  EXPECT_EQ(bad_memory.err.rfind("pipesim: error: --memory: 'lots': ", 0), 0u) << bad_memory.err;
  EXPECT_EQ(std::count(bad_memory.err.begin(), bad_memory.err.end(), '\n'), 1) << bad_memory.err;
  const CliResult bad_weights =
      run_pipesim("study " + kRoot + "platforms/complete-4.xml " + kResNet18 + " --ilp-weights 3bw -o x");
  EXPECT_EQ(bad_weights.exit_code, 2);
  EXPECT_EQ(bad_weights.err,
            "pipesim: error: --ilp-weights needs flush, 2bw or stashing, got '3bw'; see 'pipesim study --help'\n");
  const CliResult bad_share =
      run_pipesim("study " + kRoot + "platforms/complete-4.xml " + kResNet18 + " --ilp-allocation-search 1.5 -o x");
  EXPECT_EQ(bad_share.exit_code, 2);
  EXPECT_EQ(bad_share.err,
            "pipesim: error: --ilp-allocation-search needs a number from 0 to 1, got '1.5'; see 'pipesim study "
            "--help'\n");
}

}  // namespace
}  // namespace pipesim
