// The command line as a new user meets it: --help and --version everywhere,
// --opt=value, usage mistakes as one stderr line (exit 2), and the output
// contract: all outputs or none, never over an input, devices written in
// place, write errors reported. Also make_platform.py's own command line.
#include <algorithm>
#include <filesystem>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "cli/output_files.hpp"
#include "sim/input_error.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;
namespace fs = std::filesystem;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kResNet18 = kRoot + "workloads/profiles/resnet18/graph.txt";
const std::string kWorkload =
    "microbatches: 4\n"
    "layers:\n"
    "  - {forward: 1ms, backward: 2ms, activation: 1MiB, weights: 1MiB, repeat: 4}\n";

// A fresh empty directory for one test's files.
std::string fresh_dir(const std::string& name) {
  const std::string dir = temp_path(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Inputs p.xml and w.yaml in DIR.
void write_inputs(const std::string& dir) {
  std::ofstream(dir + "/p.xml") << complete_platform_xml(2);
  std::ofstream(dir + "/w.yaml") << kWorkload;
}

void expect_one_error_line(const CliResult& r, const std::string& line) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, line + "\n");
}

TEST(CliFrontDoor, HelpOnEveryCommand) {
  for (const std::string command : {"", "run", "validate", "import", "study"})
    for (const std::string flag : {"--help", "-h"}) {
      const CliResult r = run_pipesim(command + " " + flag);
      EXPECT_EQ(r.exit_code, 0) << command << r.err;
      EXPECT_EQ(r.err, "");
      const std::string usage = "usage: pipesim " + (command.empty() ? "" : command + " ") + "[options] ";
      EXPECT_EQ(r.out.rfind(usage, 0), 0u) << r.out;
      EXPECT_NE(r.out.find("Exit status: "), std::string::npos) << r.out;
    }
  // Every option of run is listed.
  const std::string run = run_pipesim("run --help").out;
  for (const char* option :
       {"--json FILE", "--trace FILE", "--memory-trace FILE", "--export-pattern FILE", "--diagram FILE",
        "--workers FILE", "--schedule-param KEY=VALUE", "--cfg KEY:VALUE", "--quiet", "--version"})
    EXPECT_NE(run.find(option), std::string::npos) << option;
  EXPECT_EQ(run.rfind("usage: pipesim run [options] PLATFORM.xml WORKLOAD.yaml\n", 0), 0u) << run;
  // Help wins over missing arguments.
  EXPECT_EQ(run_pipesim("study -h").exit_code, 0);
}

TEST(CliFrontDoor, VersionOnEveryCommand) {
  for (const std::string command : {"", "run", "validate", "import", "study", "run a.xml b.yaml"}) {
    const CliResult r = run_pipesim(command + " --version");
    EXPECT_EQ(r.exit_code, 0) << command << r.err;
    EXPECT_EQ(r.out, std::string("pipesim ") + PIPESIM_VERSION + "\n");
    EXPECT_EQ(r.err, "");
  }
  EXPECT_EQ(std::string(PIPESIM_VERSION), "0.9.0");
}

TEST(CliFrontDoor, OptionEqualsValue) {
  const std::string dir = fresh_dir("equals");
  write_inputs(dir);
  const CliResult r = run_pipesim(
      "run p.xml w.yaml --quiet --json=r.json --cfg=network/model:CM02 "
      "--schedule-param=k= --memory-trace=m.csv",
      "", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(dir + "/r.json").at("schedule"), "1f1b");
  // The value after the first '=' is the schedule parameter's.
  expect_one_error_line(
      run_pipesim("run p.xml w.yaml --schedule-param=k=2", "", dir),
      "pipesim: error: w.yaml: schedule.k: unknown parameter 'k' for schedule '1f1b' (it takes none)");
  EXPECT_EQ(read_text(dir + "/m.csv").rfind("time,device,category,bytes\n", 0), 0u);
  const CliResult i = run_pipesim("import " + kResNet18 + " --output=" + dir + "/r18.yaml --microbatches=32");
  EXPECT_EQ(i.exit_code, 0) << i.err;
  EXPECT_NE(read_text(dir + "/r18.yaml").find("microbatches: 32\n"), std::string::npos);
}

struct Mistake {
  const char* name;
  std::string args;  // in a directory with p.xml and w.yaml
  std::string line;  // the whole of stderr, without its newline
};

std::vector<Mistake> mistakes() {
  const std::string see_root = "; see 'pipesim --help'", see_run = "; see 'pipesim run --help'";
  const std::string commands = " (expected run, validate, import, study, sweep or plan)";
  return {
      {"nothing", "", "pipesim: error: no command given" + commands + see_root},
      {"unknown_command", "fly a b", "pipesim: error: unknown command 'fly'" + commands + see_root},
      // Help for a command that does not exist is a usage error, not the general help with exit 0.
      {"unknown_command_help", "fly --help", "pipesim: error: unknown command 'fly'" + commands + see_root},
      {"help_then_unknown_command", "-h fly", "pipesim: error: unknown command 'fly'" + commands + see_root},
      {"unknown_root_option", "--colour run", "pipesim: error: unknown option --colour" + see_root},
      {"unknown_option", "run p.xml w.yaml --json out.json --colour",
       "pipesim: error: unknown option --colour" + see_run},
      {"unknown_option_first", "run --colour", "pipesim: error: unknown option --colour" + see_run},
      {"missing_argument", "run p.xml --json out.json", "pipesim: error: WORKLOAD.yaml is required" + see_run},
      {"missing_value", "run p.xml w.yaml --json", "pipesim: error: --json needs a value" + see_run},
      {"empty_value", "run p.xml w.yaml --trace=", "pipesim: error: --trace needs a value" + see_run},
      {"empty_string_value", "run p.xml w.yaml --json ''", "pipesim: error: --json needs a value" + see_run},
      {"empty_output", "import g.txt -o ''", "pipesim: error: --output needs a value; see 'pipesim import --help'"},
      {"bad_key_value", "run p.xml w.yaml --json out.json --schedule-param k",
       "pipesim: error: --schedule-param needs KEY=VALUE, got 'k'" + see_run},
      {"empty_key", "run p.xml w.yaml --schedule-param =3",
       "pipesim: error: --schedule-param needs KEY=VALUE, got '=3'" + see_run},
      {"too_many_positionals", "run p.xml w.yaml extra.yaml --json out.json",
       "pipesim: error: unexpected argument 'extra.yaml' (run takes PLATFORM.xml WORKLOAD.yaml)" + see_run},
      {"validate_too_many", "validate p.xml w.yaml s.yaml t.yaml",
       "pipesim: error: unexpected argument 't.yaml' (validate takes PLATFORM.xml WORKLOAD.yaml SCHEDULE); "
       "see 'pipesim validate --help'"},
      {"validate_missing_value", "validate p.xml w.yaml s.yaml --cfg",
       "pipesim: error: --cfg needs a value; see 'pipesim validate --help'"},
      {"import_nothing", "import", "pipesim: error: PROFILE is required; see 'pipesim import --help'"},
      {"import_trace_option_on_graph", "import g.txt --block 'b[0-9]+'",
       "pipesim: error: --block is for a profiler trace (.json), not a graph.txt; see 'pipesim import --help'"},
      {"import_device_time_on_graph", "import g.txt --device-time",
       "pipesim: error: --device-time is for a profiler trace (.json), not a graph.txt; see 'pipesim import --help'"},
      {"import_graph_option_on_trace", "import t.json --microbatches 4",
       "pipesim: error: --microbatches is for a PipeDream graph.txt, not a trace; see 'pipesim import --help'"},
      {"import_bad_label_regex", "import t.json --head '(lm'",
       "pipesim: error: --head needs a regular expression, got '(lm'; see 'pipesim import --help'"},
      {"import_bad_number", "import g.txt -o out.yaml --microbatch-size=none",
       "pipesim: error: --microbatch-size needs a whole number >= 1, got 'none'; see 'pipesim import --help'"},
      {"study_no_output", "study p.xml w.yaml", "pipesim: error: --output is required; see 'pipesim study --help'"},
      {"study_bad_noam", "study p.xml w.yaml -o out --noam 1,x",
       "pipesim: error: --noam needs a whole number >= 1, got 'x'; see 'pipesim study --help'"},
      {"study_bad_time", "study p.xml w.yaml -o out --ilp-time-limit soon",
       "pipesim: error: --ilp-time-limit: expected a duration like '3ms' or '2.5s', got 'soon'; see 'pipesim study "
       "--help'"},
  };
}

void PrintTo(const Mistake& m, std::ostream* os) { *os << "pipesim " << m.args; }

class CliUsageMistake : public ::testing::TestWithParam<Mistake> {};

TEST_P(CliUsageMistake, OneLineExitTwoNothingWritten) {
  const Mistake& m = GetParam();
  const std::string dir = fresh_dir(std::string("mistake-") + m.name);
  write_inputs(dir);
  const CliResult r = run_pipesim(m.args, "", dir);
  expect_one_error_line(r, m.line);
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"p.xml", "w.yaml"}));
}

INSTANTIATE_TEST_SUITE_P(Cli, CliUsageMistake, ::testing::ValuesIn(mistakes()),
                         [](const auto& info) { return std::string(info.param.name); });

// A run too large to simulate is refused before anything is built, with
// the estimate and the limit; --max-memory raises (or lowers) the limit.
TEST(CliFrontDoor, MaxMemoryRefusesOrAllowsARun) {
  const std::string dir = fresh_dir("maxmem");
  write_inputs(dir);
  std::ofstream(dir + "/huge.yaml")
      << "microbatches: 1000000000\n"
         "layers:\n"
         "  - {forward: 1ms, backward: 2ms, activation: 1MiB, weights: 1MiB, repeat: 4}\n";
  const CliResult huge = run_pipesim("run p.xml huge.yaml --json r.json", "", dir);
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_EQ(huge.err.rfind("pipesim: error: huge.yaml: microbatches: this run needs about ", 0), 0u) << huge.err;
  EXPECT_NE(huge.err.find("(raise it with --max-memory)\n"), std::string::npos) << huge.err;
  expect_one_error_line(run_pipesim("run p.xml w.yaml --max-memory 1MiB --json r.json", "", dir),
                        "pipesim: error: w.yaml: microbatches: this run needs about 52.0 MiB of memory to simulate "
                        "(4 micro-batches x 2 stages); the limit is 1.00 MiB (raise it with --max-memory)");
  expect_one_error_line(run_pipesim("run p.xml w.yaml --max-memory=lots", "", dir),
                        "pipesim: error: --max-memory: 'lots': expected a byte size like '16MiB' or '1.5GB', got "
                        "'lots'; see 'pipesim run --help'");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"huge.yaml", "p.xml", "w.yaml"}));
  EXPECT_EQ(run_pipesim("run p.xml w.yaml --max-memory 1GiB --quiet", "", dir).exit_code, 0);
}

TEST(CliOutputs, ExistingDirectoryAsOutputLeavesNothing) {
  const std::string dir = fresh_dir("outdir");
  write_inputs(dir);
  fs::create_directory(dir + "/traces");
  expect_one_error_line(run_pipesim("run p.xml w.yaml --json ok.json --trace traces", "", dir),
                        "pipesim: error: traces: --trace: is a directory");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"p.xml", "traces", "w.yaml"}));
  EXPECT_TRUE(fs::is_empty(dir + "/traces"));
}

TEST(CliOutputs, TwoOutputsOnOnePath) {
  const std::string dir = fresh_dir("twice");
  write_inputs(dir);
  expect_one_error_line(run_pipesim("run p.xml w.yaml --json f --trace ./f", "", dir),
                        "pipesim: error: ./f: --trace: is also the output of --json");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"p.xml", "w.yaml"}));
}

TEST(CliOutputs, MissingOrUnwritableDirectory) {
  const std::string dir = fresh_dir("nodir");
  write_inputs(dir);
  expect_one_error_line(run_pipesim("run p.xml w.yaml --json ok.json --workers none/w.txt", "", dir),
                        "pipesim: error: none/w.txt: --workers: no such directory 'none'");
  expect_one_error_line(run_pipesim("run p.xml w.yaml --json w.yaml/x.json", "", dir),
                        "pipesim: error: w.yaml/x.json: --json: 'w.yaml' is not a directory");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"p.xml", "w.yaml"}));
}

TEST(CliOutputs, OutputThatIsAnInputIsRefused) {
  const std::string dir = fresh_dir("input");
  write_inputs(dir);
  const std::string workload = read_text(dir + "/w.yaml"), platform = read_text(dir + "/p.xml");
  expect_one_error_line(run_pipesim("run p.xml w.yaml --json ./w.yaml", "", dir),
                        "pipesim: error: ./w.yaml: --json: is the workload, an input; choose another output file");
  expect_one_error_line(run_pipesim("run p.xml ./w.yaml --diagram " + dir + "/p.xml", "", dir),
                        "pipesim: error: " + dir +
                            "/p.xml: --diagram: is the platform, an input; choose another "
                            "output file");
  // A hard link is the same file.
  fs::create_hard_link(dir + "/w.yaml", dir + "/same.yaml");
  expect_one_error_line(run_pipesim("run p.xml w.yaml --quiet --export-pattern same.yaml", "", dir),
                        "pipesim: error: same.yaml: --export-pattern: is the workload, an input; choose another "
                        "output file");
  EXPECT_EQ(read_text(dir + "/w.yaml"), workload);
  EXPECT_EQ(read_text(dir + "/p.xml"), platform);

  std::ofstream(dir + "/s.yaml") << "period: 1s\n";
  const std::string schedule = read_text(dir + "/s.yaml");
  expect_one_error_line(run_pipesim("validate p.xml w.yaml s.yaml --json s.yaml", "", dir),
                        "pipesim: error: s.yaml: --json: is the schedule, an input; choose another output file");
  EXPECT_EQ(read_text(dir + "/s.yaml"), schedule);

  fs::copy_file(kResNet18, dir + "/graph.txt");
  expect_one_error_line(run_pipesim("import graph.txt -o ./graph.txt", "", dir),
                        "pipesim: error: ./graph.txt: -o: is the profile, an input; choose another output file");
  EXPECT_EQ(read_text(dir + "/graph.txt"), read_text(kResNet18));

  std::ofstream(dir + "/trace.json") << "{\"traceEvents\": []}";
  expect_one_error_line(run_pipesim("import trace.json -o trace.json", "", dir),
                        "pipesim: error: trace.json: -o: is the trace, an input; choose another output file");
  EXPECT_EQ(read_text(dir + "/trace.json"), "{\"traceEvents\": []}");
}

// The file a workload's schedule reads (schedule csv, pattern) is an input
// too: relative to the workload's folder, named directly or by another path.
TEST(CliOutputs, TheScheduleFileIsAnInput) {
  const std::string dir = fresh_dir("schedule-file");
  write_inputs(dir);
  fs::create_directory(dir + "/w");
  const std::string orders = "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n";
  std::ofstream(dir + "/w/o.csv") << orders;
  std::ofstream(dir + "/w/csv.yaml") << "layers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB, repeat: "
                                        "2}\nschedule: {name: csv, file: o.csv}\n";
  expect_one_error_line(run_pipesim("run p.xml w/csv.yaml --json w/o.csv", "", dir),
                        "pipesim: error: w/o.csv: --json: is the schedule file, an input; choose another output file");
  expect_one_error_line(run_pipesim("run p.xml w/csv.yaml --quiet --export-orders ./w/../w/o.csv", "", dir),
                        "pipesim: error: ./w/../w/o.csv: --export-orders: is the schedule file, an input; choose "
                        "another output file");
  EXPECT_EQ(read_text(dir + "/w/o.csv"), orders);
  // A pattern file, exported over itself; and a file given with --schedule-param.
  ASSERT_EQ(run_pipesim("run p.xml w.yaml --quiet --export-pattern w/pat.yaml", "", dir).exit_code, 0);
  const std::string pattern = read_text(dir + "/w/pat.yaml");
  std::ofstream(dir + "/w/pat-run.yaml")
      << "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB, repeat: 2}\n"
         "schedule: {name: pattern, file: pat.yaml}\n";
  expect_one_error_line(run_pipesim("run p.xml w/pat-run.yaml --quiet --export-pattern w/pat.yaml", "", dir),
                        "pipesim: error: w/pat.yaml: --export-pattern: is the schedule file, an input; choose "
                        "another output file");
  expect_one_error_line(run_pipesim("run p.xml w/csv.yaml --schedule-param file=pat.yaml --trace w/pat.yaml", "", dir),
                        "pipesim: error: w/pat.yaml: --trace: is the schedule file, an input; choose another output "
                        "file");
  EXPECT_EQ(read_text(dir + "/w/pat.yaml"), pattern);
}

TEST(CliOutputs, DeviceIsWrittenInPlaceAndItsWriteErrorReported) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string dir = fresh_dir("devfull");
  write_inputs(dir);
  expect_one_error_line(run_pipesim("run p.xml w.yaml --quiet --trace t.json --json /dev/full", "", dir),
                        "pipesim: error: /dev/full: --json: write error: No space left on device");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"p.xml", "w.yaml"}));  // all outputs or none
}

TEST(CliOutputs, DevNullStaysADevice) {
  if (!fs::exists("/dev/null")) GTEST_SKIP() << "no /dev/null";
  const std::string dir = fresh_dir("devnull");
  write_inputs(dir);
  const CliResult r = run_pipesim("run p.xml w.yaml --quiet --json /dev/null --trace t.json", "", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"p.xml", "t.json", "w.yaml"}));
}

// /dev/stdout (here a regular file) gets the JSON, then the summary, in order.
TEST(CliOutputs, DevStdoutIsStandardOutputInOrder) {
  const std::string dir = fresh_dir("devstdout");
  write_inputs(dir);
  const CliResult r = run_pipesim("run p.xml w.yaml --json /dev/stdout", "", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string out = r.out;
  EXPECT_EQ(out.rfind("{\n", 0), 0u) << out;
  const std::size_t summary = out.find("\nschedule ");
  ASSERT_NE(summary, std::string::npos) << out;
  EXPECT_EQ(out.substr(summary - 1, 2), "}\n");
}

TEST(CliOutputs, StdoutWriteErrorIsExitTwo) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string line = "pipesim: error: <stdout>: write error: No space left on device";
  expect_one_error_line(run_pipesim("import " + kResNet18, "/dev/full"), line);
  const std::string dir = fresh_dir("stdoutfull");
  write_inputs(dir);
  expect_one_error_line(run_pipesim("run p.xml w.yaml", "/dev/full", dir), line);
  expect_one_error_line(run_pipesim("--help", "/dev/full"), line);
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(CliOutputs, ReplacedFileKeepsItsPermissions) {
  const std::string dir = fresh_dir("mode");
  write_inputs(dir);
  std::ofstream(dir + "/r.json") << "old";
  fs::permissions(dir + "/r.json", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const CliResult r = run_pipesim("run p.xml w.yaml --quiet --json r.json", "", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(read_json(dir + "/r.json").contains("makespan"));  // the report replaced "old"
  EXPECT_EQ(fs::status(dir + "/r.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"p.xml", "r.json", "w.yaml"}));
}

TEST(CliOutputs, StudyOutputThatIsAFile) {
  const std::string dir = fresh_dir("studyfile");
  write_inputs(dir);
  std::ofstream(dir + "/results") << "not a directory";
  expect_one_error_line(run_pipesim("study p.xml w.yaml --no-ilp -o results", "", dir),
                        "pipesim: error: results: -o: exists and is not a directory");
  expect_one_error_line(run_pipesim("study p.xml w.yaml --no-ilp --output=results/sub", "", dir),
                        "pipesim: error: results/sub: -o: '" + dir + "/results' is not a directory");
  EXPECT_EQ(read_text(dir + "/results"), "not a directory");
}

// OutputFiles directly: a failure in commit's last step (a rename) puts
// back what it already replaced and leaves no temporary.
TEST(OutputFilesCommit, FailedRenameRestoresEverything) {
  const std::string dir = fresh_dir("rollback");
  std::ofstream(dir + "/a.txt") << "old a";
  OutputFiles files;
  files.declare("--a", dir + "/a.txt");
  files.declare("--b", dir + "/b.txt");
  files.declare("--c", dir + "/c.txt");
  files.set(dir + "/a.txt", "new a");
  files.set(dir + "/b.txt", "new b");
  files.set(dir + "/c.txt", "new c");
  // The world changes after the checks: c.txt becomes a directory that is not empty.
  fs::create_directories(dir + "/c.txt/inside");
  try {
    files.commit();
    FAIL() << "commit succeeded";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir + "/c.txt: --c: cannot replace it: ", 0), 0u) << e.what();
  }
  EXPECT_EQ(read_text(dir + "/a.txt"), "old a");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"a.txt", "c.txt"}));
}

TEST(OutputFilesCommit, FailedDeviceWriteLeavesNoFileNorDirectory) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string dir = fresh_dir("rollback-dir");
  OutputFiles files;
  files.declare("-o", dir + "/new/sub/points.csv", OutputFiles::Parent::Create);
  files.declare("--full", "/dev/full");
  files.set(dir + "/new/sub/points.csv", "x\n");
  files.set("/dev/full", "y\n");
  EXPECT_THROW(files.commit(), InputError);
  EXPECT_TRUE(entries(dir).empty());
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(OutputFilesCommit, CreatesTheDirectory) {
  const std::string dir = fresh_dir("create");
  OutputFiles files;
  files.declare("-o", dir + "/new/sub/points.csv", OutputFiles::Parent::Create);
  files.set(dir + "/new/sub/points.csv", "x\n");
  files.commit();
  EXPECT_EQ(read_text(dir + "/new/sub/points.csv"), "x\n");
  EXPECT_EQ(entries(dir + "/new/sub"), std::vector<std::string>{"points.csv"});
}

// scripts/make_platform.py: --help only prints; --write-shipped DIR writes
// the shipped platforms byte for byte.
TEST(MakePlatformScript, HelpWritesNothingAndShippedPlatformsAreReproduced) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  // A copy of the script beside a copy of platforms/, where it would write by default.
  const std::string copy = fresh_dir("script");
  fs::create_directories(copy + "/scripts");
  fs::copy_file(kRoot + "scripts/make_platform.py", copy + "/scripts/make_platform.py");
  fs::copy(kRoot + "platforms", copy + "/platforms");
  std::ofstream(copy + "/platforms/complete-4.xml") << "stale";
  const auto before = fs::last_write_time(copy + "/platforms/complete-8.xml");
  const std::string out = temp_path("script.out");
  const std::string script = "python3 " + copy + "/scripts/make_platform.py";
  ASSERT_EQ(std::system((script + " --help >" + out + " 2>&1").c_str()), 0);
  EXPECT_EQ(read_text(out).rfind("usage: make_platform.py", 0), 0u) << read_text(out);
  EXPECT_EQ(read_text(copy + "/platforms/complete-4.xml"), "stale");
  EXPECT_EQ(fs::last_write_time(copy + "/platforms/complete-8.xml"), before);
  // No argument: an error, nothing written.
  EXPECT_NE(std::system((script + " >" + out + " 2>&1").c_str()), 0);
  EXPECT_EQ(read_text(copy + "/platforms/complete-4.xml"), "stale");

  const std::string written = fresh_dir("shipped");
  ASSERT_EQ(std::system((script + " --write-shipped " + written + " >" + out + " 2>&1").c_str()), 0) << read_text(out);
  std::vector<std::string> shipped = entries(kRoot + "platforms");
  EXPECT_EQ(entries(written), shipped);
  for (const std::string& name : shipped)
    EXPECT_EQ(read_text(written + "/" + name), read_text(kRoot + "platforms/" + name)) << name;
}

}  // namespace
}  // namespace pipesim
