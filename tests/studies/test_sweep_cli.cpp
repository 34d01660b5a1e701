// pipesim sweep: grids, failed runs as rows, bad specs, shards and merge,
// resuming after a kill, the shipped specs of sweeps/.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <vector>

#include "studies/subprocess.hpp"
#include "studies/sweep_plan.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;
namespace fs = std::filesystem;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kHeader =
    "id,platform,workload,set.microbatches,set.schedule,set.schedule.k,status,exit_code,error,schedule,valid,"
    "completed,blocked_tasks,deadlock,makespan,iteration_time,steady_iteration_time,iteration_time_per_microbatch,time_"
    "per_microbatch,"
    "throughput,microbatches,iterations,devices,devices_used,worst_bubble_fraction,max_peak_memory,memory_capacity,"
    "pattern.period,pattern.exact_period,pattern.exact_time_per_microbatch,pattern.simulated_period,"
    "max_peak_largest_part,training.tokens_per_second,training.mfu,exposed_communication\n";

// A spec of 2 x 3 x 2 = 12 runs in a fresh folder; the kfkb runs with k 0 fail when they run (a
// parameter's value, which only the schedule's builder checks).
std::string write_spec(const std::string& name, const std::string& extra = "") {
  const std::string dir = temp_path(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string spec = dir + "/spec.yaml";
  std::ofstream(spec) << "workload: " << kRoot << "workloads/examples/tiny.yaml\n"
                      << "grid:\n"
                      << "  platform: [" << kRoot << "platforms/complete-4.xml, " << kRoot
                      << "platforms/nvswitch-4gpu.xml]\n"
                      << "  microbatches: [2, 4, 8]\n"
                      << "zip:\n"
                      << "  - {schedule: [1f1b, kfkb], schedule.k: ['', 0]}\n"
                      << extra;
  return spec;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string folder_of(const std::string& spec, const std::string& name) { return fs::path(spec).parent_path() / name; }

TEST(SweepCli, OneRowPerRunInGridOrderWithFailedRunsKept) {
  const std::string spec = write_spec("grid"), out = folder_of(spec, "out");
  const CliResult r = run_pipesim("sweep " + spec + " -o " + out + " -j 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "sweep spec: 12 runs (6 valid, 0 invalid, 6 failed) -> " + out + "/results.csv\n");
  const std::vector<std::string> rows = lines(read_text(out + "/results.csv"));
  ASSERT_EQ(rows.size(), 13u);
  EXPECT_EQ(rows[0] + "\n", kHeader);
  const std::string platform0 = kRoot + "platforms/complete-4.xml", tiny = kRoot + "workloads/examples/tiny.yaml";
  EXPECT_EQ(rows[1].rfind("0000," + platform0 + "," + tiny + ",2,1f1b,,valid,0,,1f1b,true,true,0,,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2], "0001," + platform0 + "," + tiny + ",2,kfkb,0,error,2,\"pipesim: error: " + tiny +
                         ": schedule.k: expected a positive integer, got '0'\"" + std::string(26, ','));
  EXPECT_EQ(rows[12].rfind("0011," + kRoot + "platforms/nvswitch-4gpu.xml," + tiny + ",8,kfkb,0,error,2,", 0), 0u);
  EXPECT_TRUE(fs::exists(out + "/runs/0011.json"));
  EXPECT_FALSE(fs::exists(out + "/runs/0011.err"));  // scratch files are removed
  // -j 1 gives the same bytes.
  const std::string out1 = folder_of(spec, "out1");
  ASSERT_EQ(run_pipesim("sweep " + spec + " -o " + out1 + " -j 1").exit_code, 0);
  EXPECT_EQ(read_text(out1 + "/results.csv"), read_text(out + "/results.csv"));
}

// On a terminal (util-linux `script` gives one), one progress line redrawn
// with a bar, the count, the failures and an ETA.
TEST(SweepCli, ProgressBarOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no util-linux 'script' to give a terminal";
  const std::string spec = write_spec("tty"), out = folder_of(spec, "out"), log = folder_of(spec, "log");
  const std::string command = "script -qec \"" + std::string(PIPESIM_BINARY) + " sweep " + spec + " -o " + out +
                              " -j 1\" /dev/null >" + log + " 2>&1 </dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << read_text(log);
  const std::string text = read_text(log);
  EXPECT_NE(text.find("\r[##                            ] 1/12 ETA "), std::string::npos) << text;
  const std::size_t second = text.find("] 2/12 ETA ");
  ASSERT_NE(second, std::string::npos) << text;
  EXPECT_EQ(text.substr(second + 16, 15), " (1 failed)\x1b[K\r") << text;  // after "ETA 0m00s"
  EXPECT_NE(text.find("\r[##############################] 12/12 ETA 0m00s (6 failed)\x1b[K\r\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("sweep: 1/12 run"), std::string::npos);  // no plain lines on a terminal
}

// "cluster ARGS" platforms are written by make_platform.py into DIR/platforms
// first; a bad one is one error line with nothing written.
TEST(SweepCli, GeneratedClustersRunLikeTheShippedFiles) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string dir = temp_path("clusters");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string body = "workload: " + kRoot + "workloads/examples/tiny.yaml\ngenerator: " + kRoot +
                           "scripts/make_platform.py\ngrid:\n  microbatches: [2, 8]\n  platform: ";
  const std::string generated = dir + "/generated.yaml", shipped = dir + "/shipped.yaml";
  std::ofstream(generated) << body << "['cluster --boxes 2 --gpus 4 --nic 100Gbps', "
                           << "'cluster --boxes 4 --gpus 2 --network ethernet --nic 25Gbps']\n";
  std::ofstream(shipped) << body << "[" << kRoot << "platforms/two-nvswitch-4gpu-infiniband-100g.xml, " << kRoot
                         << "platforms/four-nvswitch-2gpu-ethernet-25g.xml]\n";
  const CliResult a = run_pipesim("sweep " + generated + " -o " + dir + "/a -j 2");
  const CliResult b = run_pipesim("sweep " + shipped + " -o " + dir + "/b -j 2");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  // A cluster description of the shipped XML's cluster (docs/platform-format.md#cluster-descriptions).
  EXPECT_NE(read_text(dir + "/a/platforms/cluster-0.yaml").find("cluster:\n  boxes: 2\n  gpus: 4\n"),
            std::string::npos);
  // The same metrics; only the platform column differs.
  std::vector<std::string> rows_a = lines(read_text(dir + "/a/results.csv")),
                           rows_b = lines(read_text(dir + "/b/results.csv"));
  ASSERT_EQ(rows_a.size(), 5u);
  ASSERT_EQ(rows_b.size(), 5u);
  for (std::size_t i = 1; i < 5; ++i) {
    EXPECT_EQ(rows_a[i].substr(rows_a[i].find(",valid,")), rows_b[i].substr(rows_b[i].find(",valid,"))) << i;
  }
  EXPECT_EQ(rows_a[1].substr(0, 46), "0000,cluster --boxes 2 --gpus 4 --nic 100Gbps,");

  const std::string bad = dir + "/bad.yaml";
  std::ofstream(bad) << body << "['cluster --boxes 2 --gpus 4 --gpu B200']\n";
  const CliResult r = run_pipesim("sweep " + bad + " -o " + dir + "/c");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + bad +
                       ": platform: 'cluster --boxes 2 --gpus 4 --gpu B200': make_platform.py "
                       "cluster: error: argument --gpu: invalid choice: 'B200' (choose from 'A100', 'H100', 'H200', "
                       "'MI300X')\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/c"));
  const std::string nogen = dir + "/nogen.yaml";
  std::ofstream(nogen) << "workload: " << kRoot
                       << "workloads/examples/tiny.yaml\ngrid: {platform: ['cluster --gpus 2']}\n";
  EXPECT_EQ(run_pipesim("sweep " + nogen + " -o " + dir + "/d").err,
            "pipesim: error: " + nogen +
                ": generator: expected the path of make_platform.py for platform "
                "'cluster --gpus 2'\n");
}

TEST(SweepCli, TorusAndDragonflyClustersAreGridPoints) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string dir = temp_path("direct-clusters");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string spec = dir + "/spec.yaml";
  std::ofstream(spec) << "workload: " << kRoot << "workloads/examples/tiny.yaml\ngenerator: " << kRoot
                      << "scripts/make_platform.py\ngrid:\n  platform: ['cluster --network torus --torus-dims 2,2,2', "
                      << "'cluster --network dragonfly --dragonfly 2,1;2,1;2,1;2']\n";
  const CliResult r = run_pipesim("sweep " + spec + " -o " + dir + "/out -j 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(read_text(dir + "/out/platforms/cluster-0.xml").find("topology=\"TORUS\"") != std::string::npos);
  EXPECT_TRUE(read_text(dir + "/out/platforms/cluster-1.xml").find("topology=\"DRAGONFLY\"") != std::string::npos);
  const std::vector<std::string> rows = lines(read_text(dir + "/out/results.csv"));
  ASSERT_EQ(rows.size(), 3u);
  // id, platform (quoted: it holds commas), workload, status, ... devices, devices_used: 8 and 16 GPUs, 4 stages.
  EXPECT_EQ(rows[1].substr(0, 51), "0000,\"cluster --network torus --torus-dims 2,2,2\",/");
  EXPECT_NE(rows[1].find(",valid,0,,"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find(",1,8,4,"), std::string::npos) << rows[1];
  EXPECT_EQ(rows[2].substr(0, 62), "0001,\"cluster --network dragonfly --dragonfly 2,1;2,1;2,1;2\",/");
  EXPECT_NE(rows[2].find(",valid,0,,"), std::string::npos) << rows[2];
  EXPECT_NE(rows[2].find(",1,16,4,"), std::string::npos) << rows[2];
}

TEST(SweepCli, BadSpecsAreOneLineExitTwoBeforeAnythingRuns) {
  const std::string tiny = kRoot + "workloads/examples/tiny.yaml", p4 = kRoot + "platforms/complete-4.xml";
  struct Case {
    std::string text, error;  // error: after "SPEC: ", or a whole line starting with "pipesim: "
  };
  const std::string here = fs::path(temp_path("x")).parent_path().string();
  const std::vector<Case> cases = {
      {"workload: " + tiny + "\nplatform: " + p4 + "\ngrid: {microbatches: [2]}\nrepeats: 3\n",
       "line 4: repeats: unknown key 'repeats'; expected one of: name, platform, workload, generator, set, grid, zip"},
      {"workload: " + tiny + "\nplatform: " + p4 + "\n",
       "grid: expected at least one swept list in 'grid' or 'zip', got none"},
      {"workload: " + tiny + "\nplatform: " + p4 + "\ngrid: {microbatches: []}\n",
       "line 3: grid.microbatches: expected at least one value, got an empty list"},
      {"workload: " + tiny + "\ngrid: {platform: [" + p4 + ", nosuch.xml]}\n",
       "platform: '" + here + "/nosuch.xml' is not a platform file"},
      {"workload: " + tiny + "\nplatform: " + p4 + "\ngrid: {nosuch: [1]}\n",
       "pipesim: error: " + tiny +
           ": nosuch: unknown key 'nosuch'; expected one of: name, microbatches, "
           "microbatch_size, iterations, input, reference_speed, layers, model, schedule, placement, memory_saving, "
           "optimizer, memory, parallel\n"},
      {"workload: " + tiny + "\nplatform: " + p4 + "\nzip: [{microbatches: [1, 2], schedule: [gpipe]}]\n",
       "line 3: zip[0].schedule: expected 2 values like the first list, got 1"},
      // A schedule or a parameter no run could have: found before anything runs, not as a column of errors.
      {"workload: " + tiny + "\nplatform: " + p4 + "\ngrid: {schedule: [1f1b, zigzag]}\n",
       "pipesim: error: " + tiny + ": schedule: unknown schedule 'zigzag' (expected one of: "},
      {"workload: " + tiny + "\nplatform: " + p4 + "\nzip: [{schedule: [1f1b, gpipe], schedule.k: ['', 2]}]\n",
       "pipesim: error: " + tiny + ": schedule.k: unknown parameter 'k' for schedule 'gpipe' (it takes none)\n"},
      {"workload: " + tiny + "\nplatform: " + p4 + "\ngrid: {schedule: [kfkb], schedule.chunks: [2]}\n",
       "pipesim: error: " + tiny +
           ": schedule.chunks: unknown parameter 'chunks' for schedule 'kfkb' (expected: "
           "allocation, k, links, memory_policy, weights)\n"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string spec = write_file("bad" + std::to_string(i) + ".yaml", cases[i].text);
    const std::string out = temp_path("bad-out" + std::to_string(i));
    fs::remove_all(out);
    const CliResult r = run_pipesim("sweep " + spec + " -o " + out);
    EXPECT_EQ(r.exit_code, 2) << cases[i].text;
    EXPECT_EQ(r.out, "");
    const bool whole = cases[i].error.rfind("pipesim: ", 0) == 0;
    if (whole && cases[i].error.back() != '\n')  // the start of a line too long to repeat
      EXPECT_EQ(r.err.rfind(cases[i].error, 0), 0u) << r.err;
    else
      EXPECT_EQ(r.err, whole ? cases[i].error : "pipesim: error: " + spec + ": " + cases[i].error + "\n");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out)) << "nothing is written for a bad spec";
  }
  const std::string spec = write_spec("badshard");
  for (const char* shard : {"0/2", "3/2", "1/0", "x", "1/2/3"}) {
    const std::string out = folder_of(spec, "out");
    const CliResult r = run_pipesim("sweep " + spec + " -o " + out + " --shard " + shard);
    EXPECT_EQ(r.exit_code, 2) << shard;
    EXPECT_EQ(r.err, "pipesim: error: --shard: expected I/N with 1 <= I <= N, like 2/5, got '" + std::string(shard) +
                         "'; see 'pipesim sweep --help'\n");
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST(SweepCli, MergedShardsEqualTheSingleRunByteForByte) {
  const std::string spec = write_spec("shards"), single = folder_of(spec, "single");
  ASSERT_EQ(run_pipesim("sweep " + spec + " -o " + single + " -j 2").exit_code, 0);
  const std::string expected = read_text(single + "/results.csv");
  for (int n : {1, 2, 5}) {
    std::string dirs;
    for (int i = 1; i <= n; ++i) {
      const std::string dir = folder_of(spec, "n" + std::to_string(n) + "-" + std::to_string(i));
      const CliResult r =
          run_pipesim("sweep " + spec + " -o " + dir + " -j 1 --shard " + std::to_string(i) + "/" + std::to_string(n));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      dirs += " " + dir;
      if (n == 5) {  // 12 runs in 5 shards: 3, 3, 2, 2, 2 rows
        EXPECT_EQ(lines(read_text(dir + "/results.csv")).size(), (i <= 2 ? 3u : 2u) + 1) << i;
      }
    }
    const std::string merged = folder_of(spec, "merged" + std::to_string(n));
    const CliResult m = run_pipesim("sweep merge" + dirs + " -o " + merged);
    ASSERT_EQ(m.exit_code, 0) << m.err;
    EXPECT_EQ(read_text(merged + "/results.csv"), expected) << n << " shards";
  }
  // A shard missing: one error line, exit 2, no merged folder.
  const std::string partial = folder_of(spec, "merged-partial");
  const CliResult m = run_pipesim("sweep merge " + folder_of(spec, "n2-1") + " -o " + partial);
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_EQ(m.err, "pipesim: error: " + folder_of(spec, "n2-1") +
                       ": runs: run 0001 is in none of the folders (a shard missing or unfinished)\n");
  EXPECT_FALSE(fs::exists(partial));
}

// Usage mistakes in 'sweep merge' point to its own help, not to 'sweep --help'.
TEST(SweepCli, MergeUsageErrorsPointToMergeHelp) {
  const CliResult none = run_pipesim("sweep merge");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err, "pipesim: error: DIR is required; see 'pipesim sweep merge --help'\n");
  const CliResult no_output = run_pipesim("sweep merge " + temp_path("merge-in"));
  EXPECT_EQ(no_output.exit_code, 2);
  EXPECT_EQ(no_output.err, "pipesim: error: --output is required; see 'pipesim sweep merge --help'\n");
  const CliResult unknown = run_pipesim("sweep merge --bogus");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "pipesim: error: unknown option --bogus; see 'pipesim sweep merge --help'\n");
  // The sweep itself still points to 'sweep --help'.
  EXPECT_EQ(run_pipesim("sweep").err, "pipesim: error: SPEC.yaml is required; see 'pipesim sweep --help'\n");
}

TEST(SweepCli, ResumingRerunsOnlyMissingRowsAndGivesTheSameTable) {
  const std::string spec = write_spec("resume"), out = folder_of(spec, "out");
  ASSERT_EQ(run_pipesim("sweep " + spec + " -o " + out + " -j 2").exit_code, 0);
  const std::string expected = read_text(out + "/results.csv");
  // As a killed sweep leaves it: some records missing, no results.csv.
  for (const char* id : {"0002", "0005", "0011"}) fs::remove(out + "/runs/" + id + ".json");
  fs::remove(out + "/results.csv");
  const auto kept = fs::last_write_time(out + "/runs/0000.json");
  const CliResult r = run_pipesim("sweep " + spec + " -o " + out + " -j 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.err)[0], "sweep: 3 of 12 runs to do (9 done before), 2 at once");
  EXPECT_EQ(read_text(out + "/results.csv"), expected);
  EXPECT_EQ(fs::last_write_time(out + "/runs/0000.json"), kept);  // not run again
  // A run killed by a signal is run again.
  nlohmann::ordered_json record = nlohmann::ordered_json::parse(read_text(out + "/runs/0004.json"));
  ASSERT_EQ(record.at("status"), "valid");
  record["status"] = "killed by signal 9";
  std::ofstream(out + "/runs/0004.json") << record.dump(2) << "\n";
  const CliResult again = run_pipesim("sweep " + spec + " -o " + out + " -j 2");
  EXPECT_EQ(lines(again.err)[0], "sweep: 1 of 12 runs to do (11 done before), 2 at once");
  EXPECT_EQ(read_text(out + "/results.csv"), expected);
  // A record of other inputs (the spec changed) is not reused.
  const std::string other = write_spec("resume-other");
  std::string text = read_text(other);
  text.replace(text.find("[2, 4, 8]"), 9, "[2, 4, 16]");
  std::ofstream(other) << text;
  const CliResult changed = run_pipesim("sweep " + other + " -o " + out + " -j 2");
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_EQ(lines(changed.err)[0], "sweep: 4 of 12 runs to do (8 done before), 2 at once");
}

TEST(SweepCli, KilledSweepResumedGivesTheSameTable) {
  const std::string spec = write_spec("kill"), out = folder_of(spec, "out"), full = folder_of(spec, "full");
  ASSERT_EQ(run_pipesim("sweep " + spec + " -o " + full + " -j 2").exit_code, 0);
  const pid_t pid = start_process({PIPESIM_BINARY, "sweep", spec, "-o", out, "-j", "1"});
  // Killed once a few runs are recorded, before the end.
  for (int waited = 0; waited < 3000 && !fs::exists(out + "/runs/0003.json"); ++waited)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGKILL);
  const int status = wait_child(pid).status;
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep ended before it was killed";
  EXPECT_FALSE(fs::exists(out + "/results.csv"));
  std::size_t recorded = 0;
  for (int i = 0; i < 12; ++i) {
    const std::string record = out + "/runs/00" + (i < 10 ? "0" : "") + std::to_string(i) + ".json";
    if (!fs::exists(record)) continue;
    ++recorded;
    // Written through a temporary and a rename: whole, however the sweep ended.
    const std::string text = read_text(record);
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << record << ": " << text;
    EXPECT_EQ(j.value("id", ""), record.substr(record.size() - 9, 4)) << record << ": " << text;
    ASSERT_FALSE(j.empty()) << record << ": " << text;
    EXPECT_EQ(j.begin().key(), "id") << text;
    EXPECT_EQ(std::prev(j.end()).key(), "metrics") << text;  // the last field, as written
  }
  ASSERT_LT(recorded, 12u);
  const CliResult r = run_pipesim("sweep " + spec + " -o " + out + " -j 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.err)[0], "sweep: " + std::to_string(12 - recorded) + " of 12 runs to do (" +
                                 std::to_string(recorded) + " done before), 2 at once");
  EXPECT_EQ(read_text(out + "/results.csv"), read_text(full + "/results.csv"));
}

// Peak resident memory of a running process, in bytes (0 if unknown).
double peak_rss(pid_t pid) {
  std::istringstream in(read_text("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return 1024.0 * std::stod(line.substr(6));
  return 0;
}

// A sweep of a million runs says it is checking them from the start, before
// its plan is written (it once planned for 2 minutes in silence), and makes
// its runs one at a time: a second into the checks its memory is that of a
// few runs, not of a million (2.1 GB).
TEST(SweepCli, AMillionRunsAreCheckedWithProgressInBoundedMemory) {
  const std::string dir = temp_path("large-sweep");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string values;
  for (int i = 1; i <= 1000; ++i) values += (i > 1 ? ", " : "") + std::to_string(i);
  const std::string spec = dir + "/spec.yaml", out = dir + "/out", err = dir + "/err";
  std::ofstream(spec) << "platform: " << kRoot << "platforms/complete-4.xml\nworkload: " << kRoot
                      << "workloads/examples/tiny.yaml\ngrid:\n  microbatches: [" << values << "]\n  iterations: ["
                      << values << "]\n";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::freopen(err.c_str(), "w", stderr);
    ::freopen("/dev/null", "w", stdout);
    ::execl(PIPESIM_BINARY, PIPESIM_BINARY, "sweep", spec.c_str(), "-o", out.c_str(), "-j", "1", (char*)nullptr);
    ::_exit(127);
  }
  // Until the first line is whole: a read can catch it half written.
  for (int waited = 0; waited < 60000 && read_text(err).find('\n') == std::string::npos; waited += 5)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::vector<std::string> first = lines(read_text(err));
  const bool planned = fs::exists(out + "/plan.json");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const double peak = peak_rss(pid);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first[0], "sweep: checking 0/1000000 runs");
  EXPECT_FALSE(planned);
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(peak, 64.0 * (1 << 20)) << "peak resident memory while checking";
#endif
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

using namespace pipesim::testing;

// Every shipped spec runs as it is, every run valid; the results shown in
// docs/whatif.md are what the gpt2-xl spec gives.
TEST(SweepShipped, EverySpecInSweepsRunsAndTheDocumentedTableIsCurrent) {
  const std::string root = std::string(PIPESIM_SOURCE_DIR) + "/";
  std::size_t specs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root + "sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    ++specs;
    const std::string out = temp_path("shipped-" + entry.path().stem().string());
    std::filesystem::remove_all(out);
    const CliResult r = run_pipesim("sweep " + entry.path().string() + " -o " + out + " -j 2");
    ASSERT_EQ(r.exit_code, 0) << entry.path() << ": " << r.err;
    EXPECT_NE(r.out.find(" valid, 0 invalid, 0 failed) -> "), std::string::npos) << r.out;
    if (entry.path().stem() == "gpt2-xl-torus-fat-tree") {
      EXPECT_EQ(r.out,
                "sweep gpt2-xl-torus-fat-tree: 8 runs (8 valid, 0 invalid, 0 failed) -> " + out + "/results.csv\n");
    }
    // A spec whose table docs/whatif.md shows: the table is what the spec gives today.
    const std::string documented = root + "docs/whatif/" + entry.path().stem().string() + ".csv";
    if (std::filesystem::exists(documented)) {
      EXPECT_EQ(read_text(out + "/results.csv"), read_text(documented));
    }
    if (entry.path().stem() == "gpt2-xl-topologies") {
      EXPECT_EQ(r.out,
                "sweep gpt2-xl-topologies: 12 runs (12 valid, 0 invalid, 0 failed) -> " + out + "/results.csv\n");
      // The plot: written, and the same bytes twice.
      if (std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") != 0) continue;
      const std::string plot = "/usr/bin/python3 " + root + "scripts/plot_sweep.py " + out + " >/dev/null";
      ASSERT_EQ(std::system(plot.c_str()), 0);
      const std::string first = read_text(out + "/plot.svg");
      ASSERT_EQ(std::system(plot.c_str()), 0);
      EXPECT_EQ(read_text(out + "/plot.svg"), first);
      EXPECT_NE(first.find("<svg"), std::string::npos);
    }
  }
  EXPECT_GE(specs, 2u);
}

// The specs of sweeps/large/ take minutes and gigabytes a run, so the suite
// does not run them: their tables in docs/whatif/ are recorded by hand. Each
// holds one valid row per run of its spec, with the spec's platform and
// workload, in grid order.
TEST(SweepShipped, LargeSpecsKeepTheirRecordedTables) {
  const std::string root = std::string(PIPESIM_SOURCE_DIR) + "/";
  std::size_t specs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root + "sweeps/large")) {
    if (entry.path().extension() != ".yaml") continue;
    ++specs;
    const SweepPlan plan = load_sweep_plan(entry.path().string());
    std::istringstream table(read_text(root + "docs/whatif/" + entry.path().stem().string() + ".csv"));
    std::string line;
    ASSERT_TRUE(std::getline(table, line));
    EXPECT_EQ(line.rfind("id,platform,workload,status,", 0), 0u) << line;
    for (std::size_t i = 0; i < plan.size; ++i) {
      ASSERT_TRUE(std::getline(table, line)) << entry.path() << ": no row " << i;
      const SweepRun run = plan.run(i);
      EXPECT_EQ(line.rfind(run.id + "," + run.values.at(0) + "," + run.values.at(1) + ",valid,0,", 0), 0u)
          << entry.path() << ": " << line;
    }
    EXPECT_FALSE(std::getline(table, line)) << "a row beyond the spec's runs: " << line;
  }
  EXPECT_GE(specs, 1u);
}

// docs/whatif.md's table for GPT-3 175B on 1,024 GPUs is what its recorded
// CSV holds: per network, the iteration, throughput, MFU and worst bubble
// as printed.
TEST(SweepShipped, TheClusterScaleTableIsItsRecordedCsv) {
  const std::string root = std::string(PIPESIM_SOURCE_DIR) + "/";
  std::istringstream csv(read_text(root + "docs/whatif/gpt3-175b-networks.csv"));
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  std::vector<std::string> header;
  for (std::istringstream cells(line); std::getline(cells, line, ',');) header.push_back(line);
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::string doc = read_text(root + "docs/whatif.md");
  const char* networks[] = {"rail", "fat-tree 4:1", "Ethernet 100 Gb/s"};
  std::size_t rows = 0;
  for (std::string row; std::getline(csv, row); ++rows) {
    ASSERT_LT(rows, 3u) << row;
    std::vector<std::string> cells;
    for (std::istringstream in(row); std::getline(in, line, ',');) cells.push_back(line);
    ASSERT_EQ(cells.size(), header.size()) << row;
    char printed[256];
    std::snprintf(printed, sizeof printed, "| %s | %.2f s", networks[rows],
                  std::stod(cells.at(column("iteration_time"))));
    const std::size_t at = doc.find(printed);
    ASSERT_NE(at, std::string::npos) << printed;
    const std::string doc_row = doc.substr(at, doc.find('\n', at) - at);
    std::snprintf(printed, sizeof printed, "| %.1f |", std::stod(cells.at(column("throughput"))));
    EXPECT_NE(doc_row.find(printed), std::string::npos) << doc_row << " lacks " << printed;
    std::snprintf(printed, sizeof printed, "| %.1f %% | %.3f |", 100 * std::stod(cells.at(column("training.mfu"))),
                  std::stod(cells.at(column("worst_bubble_fraction"))));
    EXPECT_NE(doc_row.find(printed), std::string::npos) << doc_row << " lacks " << printed;
  }
  EXPECT_EQ(rows, 3u);
}

}  // namespace
}  // namespace pipesim
