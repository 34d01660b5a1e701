// Issue 22, "Nothing lost, nothing misreported": no command writes over its
// inputs, two sweeps never share a folder, a failed write (out of memory
// included) leaves nothing and exit 2, outputs are checked before any work,
// and every error line names its file and field and stays short.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <new>

#include "cli/output_files.hpp"
#include "sim/input_error.hpp"
#include "studies/sweep_results.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;
namespace fs = std::filesystem;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kPlatform = kRoot + "platforms/complete-4.xml", kTiny = kRoot + "workloads/examples/tiny.yaml";

std::string fresh_dir(const std::string& name) {
  const std::string dir = temp_path("lost-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
  return path;
}

// Exit 2, exactly the one line LINE on stderr, nothing on stdout.
void expect_error(const CliResult& r, const std::string& line) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, line + "\n");
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Item 1: a sweep refuses a folder whose files it would write are its inputs:
// the spec, a workload, a platform; the input is left as it was.
TEST(SweepOverInputs, SpecWorkloadAndPlatformInTheOutputFolderAreRefused) {
  const std::string dir = fresh_dir("over-inputs");
  const std::string spec_text = "workload: " + kTiny + "\nplatform: " + kPlatform + "\ngrid: {microbatches: [2]}\n";
  const std::string spec = write(dir + "/a/results.csv", spec_text);
  expect_error(
      run_pipesim("sweep " + spec + " -o " + dir + "/a"),
      "pipesim: error: " + dir + "/a/results.csv: -o: is the sweep spec, an input; choose another output folder");
  EXPECT_EQ(read_text(spec), spec_text);
  EXPECT_EQ(entries(dir + "/a"), std::vector<std::string>{"results.csv"});

  // JSON is YAML: a workload may be named like a run's record.
  const std::string workload_text =
      "{\"microbatches\": 2, \"layers\": [{\"forward\": \"1ms\", \"backward\": \"2ms\", \"activation\": \"1MiB\", "
      "\"repeat\": 4}], \"schedule\": \"1f1b\"}\n";
  const std::string workload = write(dir + "/b/runs/0001.json", workload_text);
  const std::string spec_b =
      write(dir + "/b.yaml", "workload: " + workload + "\nplatform: " + kPlatform + "\ngrid: {microbatches: [2, 4]}\n");
  expect_error(run_pipesim("sweep " + spec_b + " -o " + dir + "/b"),
               "pipesim: error: " + dir +
                   "/b/runs/0001.json: -o: is a workload of the sweep, an input; choose "
                   "another output folder");
  EXPECT_EQ(read_text(workload), workload_text);
  EXPECT_EQ(entries(dir + "/b"), std::vector<std::string>{"runs"});

  // A user's platform where the generated clusters go, reached through another spelling of the folder.
  const std::string platform = dir + "/c/platforms/cluster-0.xml";
  fs::create_directories(dir + "/c/platforms");
  fs::copy_file(kPlatform, platform);
  const std::string spec_c =
      write(dir + "/c.yaml", "workload: " + kTiny + "\nplatform: " + platform + "\ngrid: {microbatches: [2]}\n");
  expect_error(run_pipesim("sweep " + spec_c + " -o " + dir + "/c/../c"),
               "pipesim: error: " + dir +
                   "/c/../c/platforms/cluster-0.xml: -o: is a platform of the sweep, an input; "
                   "choose another output folder");
  EXPECT_EQ(read_text(platform), read_text(kPlatform));
}

// Item 1: sweep merge into one of the folders it reads.
TEST(SweepOverInputs, MergeIntoAnInputFolderIsRefused) {
  const std::string dir = fresh_dir("merge-over");
  const std::string spec =
      write(dir + "/s.yaml", "workload: " + kTiny + "\nplatform: " + kPlatform + "\ngrid: {microbatches: [2]}\n");
  ASSERT_EQ(run_pipesim("sweep " + spec + " -o " + dir + "/shard").exit_code, 0);
  const std::string plan = read_text(dir + "/shard/plan.json"), results = read_text(dir + "/shard/results.csv");
  expect_error(run_pipesim("sweep merge " + dir + "/shard -o " + dir + "/shard"),
               "pipesim: error: " + dir + "/shard/plan.json: -o: is the plan of '" + dir +
                   "/shard', an input; choose another output folder");
  EXPECT_EQ(read_text(dir + "/shard/plan.json"), plan);
  EXPECT_EQ(read_text(dir + "/shard/results.csv"), results);
}

// Item 2: a second sweep into a folder another one is writing is refused
// (the lock is held here as a running sweep holds it), and writes nothing.
TEST(SweepLock, ASecondSweepIntoTheSameFolderIsRefused) {
  const std::string dir = fresh_dir("lock");
  const std::string spec =
      write(dir + "/s.yaml", "workload: " + kTiny + "\nplatform: " + kPlatform + "\ngrid: {microbatches: [2, 4]}\n");
  fs::create_directories(dir + "/out");
  const int fd = ::open((dir + "/out/.lock").c_str(), O_RDWR | O_CREAT, 0666);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  expect_error(run_pipesim("sweep " + spec + " -o " + dir + "/out"),
               "pipesim: error: " + dir +
                   "/out: -o: another sweep is writing this folder (it holds .lock); wait for "
                   "it to end, or choose another folder");
  EXPECT_EQ(entries(dir + "/out"), std::vector<std::string>{".lock"});
  ::close(fd);  // the sweep ended: the folder is free again
  const CliResult r = run_pipesim("sweep " + spec + " -o " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/out/runs/0001.json"));
}

// Item 2: two sweeps started at once: one runs, the other is refused; no
// row says valid without its metrics.
TEST(SweepLock, TwoSweepsAtOnceLoseNoRow) {
  const std::string dir = fresh_dir("twice");
  const std::string spec = write(dir + "/s.yaml", "workload: " + kTiny + "\nplatform: " + kPlatform +
                                                      "\ngrid: {microbatches: [2, 4, 8, 16, 32, 64]}\n");
  const std::string command = std::string(PIPESIM_BINARY) + " sweep " + spec + " -o " + dir + "/out -j 2";
  const int status = std::system(("(" + command + " >" + dir + "/1.out 2>" + dir + "/1.err & " + command + " >" + dir +
                                  "/2.out 2>" + dir + "/2.err; e2=$?; wait $!; e1=$?; exit $((e1 * 10 + e2)))")
                                     .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  const int codes = WEXITSTATUS(status);
  EXPECT_TRUE(codes == 2 || codes == 20 || codes == 0) << codes;  // 0: they happened not to overlap
  for (const std::string& row : [&] {
         std::vector<std::string> rows;
         std::istringstream in(read_text(dir + "/out/results.csv"));
         for (std::string l; std::getline(in, l);) rows.push_back(l);
         return rows;
       }()) {
    if (row.rfind("id,", 0) != 0 && row.find(",valid,") != std::string::npos) {
      EXPECT_NE(row.find(",1f1b,true,"), std::string::npos) << row;
    }
  }
  // Run again: every row was done, none lost.
  const CliResult again = run_pipesim("sweep " + spec + " -o " + dir + "/out");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.rfind("sweep: 0 of 6 runs to do (6 done before)", 0), 0u) << again.err;
}

// Item 2: a run that exits 0 without its report is an error row, never
// "valid" with every metric empty; such a record (an older version's) is
// run again on resume.
TEST(SweepLock, ARowIsNeverValidWithoutItsMetrics) {
  SweepRun run;
  run.id = "0003";
  const RunRecord r = make_record(run, 0, "", "");
  EXPECT_EQ(r.status, "error");
  EXPECT_EQ(r.exit_code, "0");
  EXPECT_EQ(r.error,
            "pipesim: error: 0003.report.json: --json: the run exited 0 but its report is missing or unreadable");
  EXPECT_TRUE(record_complete(r));
  RunRecord old = r;
  old.status = "valid";
  EXPECT_FALSE(record_complete(old));
  old.metrics[std::find(sweep_metric_columns().begin(), sweep_metric_columns().end(), "valid") -
              sweep_metric_columns().begin()] = "true";
  EXPECT_TRUE(record_complete(old));
}

// Item 3: an output that cannot be built (out of memory: a stream in memory
// fails silently) is an error naming it, and nothing is written.
TEST(OutputFailure, AnOutputThatCannotBeBuiltIsAnErrorAndNothingIsWritten) {
  const std::string dir = fresh_dir("build-fails");
  OutputFiles files;
  files.declare("--json", dir + "/r.json");
  files.declare("--trace", dir + "/t.json");
  files.set(dir + "/r.json", [](std::ostream& out) { out << "{}\n"; });
  try {
    files.set(dir + "/t.json", [](std::ostream& out) {
      out << "[{\"name\": ";
      throw std::bad_alloc();
    });
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/t.json: --trace: out of memory while building it");
  }
  EXPECT_TRUE(entries(dir).empty());
}

// Item 3 through the binary, as reported: a trace too large for the
// address space is one error line and no file, not a torn file and exit 0.
TEST(OutputFailure, OutOfMemoryWhileWritingATraceLeavesNothing) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer cannot reserve its shadow memory under ulimit -v (scripts/sanitize.sh)";
#endif
  const std::string dir = fresh_dir("oom");
  for (const char* option : {"--trace t.json"}) {  // 256 MiB when it stopped growing, as reported
    const std::string command =
        "cd " + dir + " && (ulimit -v 1048576; " + PIPESIM_BINARY + " run " + kRoot + "platforms/nvswitch-8gpu.xml " +
        kRoot + "workloads/examples/gpt2-xl.yaml --set microbatches=20000 --quiet " + option + ") >out.txt 2>err.txt";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    const std::string err = read_text(dir + "/err.txt");
    fs::remove(dir + "/out.txt");
    fs::remove(dir + "/err.txt");
    if (WEXITSTATUS(status) == 0) {  // enough memory after all: then the file is whole
      EXPECT_TRUE(entries(dir).size() == 1) << option;
      fs::remove_all(dir);
      fs::create_directories(dir);
      continue;
    }
    EXPECT_EQ(WEXITSTATUS(status), 2) << option << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(err.rfind("pipesim: error: ", 0), 0u) << err;
    EXPECT_TRUE(entries(dir).empty()) << option << ": " << err;
  }
}

// Item 13: outputs are checked before any work: a loop of symbolic links
// as study's -o or run's --json is refused first (here, before a workload
// that does not exist is even read).
TEST(OutputsFirst, SymbolicLinkLoopsAreRefusedBeforeAnythingRuns) {
  const std::string dir = fresh_dir("loop");
  fs::create_symlink("loop", dir + "/loop");
  expect_error(run_pipesim("study " + kPlatform + " nosuch.yaml --no-ilp -o loop", "", dir),
               "pipesim: error: loop: -o: cannot use it: Too many levels of symbolic links");
  expect_error(run_pipesim("study " + kPlatform + " nosuch.yaml --no-ilp -o loop/sub", "", dir),
               "pipesim: error: loop/sub: -o: cannot use it: Too many levels of symbolic links");
  expect_error(run_pipesim("run " + kPlatform + " nosuch.yaml --json loop", "", dir),
               "pipesim: error: loop: --json: cannot use it: Too many levels of symbolic links");
  write(dir + "/s.yaml", "workload: " + kTiny + "\nplatform: " + kPlatform + "\ngrid: {microbatches: [2]}\n");
  expect_error(run_pipesim("sweep s.yaml -o loop", "", dir),
               "pipesim: error: loop: -o: cannot use it: Too many levels of symbolic links");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"loop", "s.yaml"}));
}

// Item 11: more CSV rows than devices, as run's schedule csv: the file and
// the first row too many, not a library's internal text.
TEST(ErrorLines, MoreCsvRowsThanDevicesNamesTheRow) {
  const std::string dir = fresh_dir("csv-rows");
  write(dir + "/o.csv", "0F0,0B0\n1F0,1B0\n2F0,2B0\n3F0,3B0\n4F0,4B0\n");
  write(dir + "/w.yaml",
        "microbatches: 1\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB, repeat: 5}\n"
        "schedule: {name: csv, file: o.csv}\n");
  expect_error(run_pipesim("run " + kPlatform + " w.yaml", "", dir),
               "pipesim: error: o.csv: line 5 (rank 4): 5 rows (ranks), but the platform has 4 devices");
}

// Item 12: refusals deep in a schedule or the engine name the workload and its field.
TEST(ErrorLines, ScheduleRefusalsNameTheWorkloadAndField) {
  const std::string dir = fresh_dir("fields");
  write(dir + "/zb.yaml",
        "microbatches: 9\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB, repeat: 4}\nschedule: zb-h1\n");
  const CliResult zb = run_pipesim("run " + kPlatform + " zb.yaml", "", dir);
  EXPECT_EQ(zb.exit_code, 2);
  EXPECT_EQ(zb.err.rfind("pipesim: error: zb.yaml: microbatches: the micro-batch count must be a multiple of", 0), 0u)
      << zb.err;
  write(dir + "/slots.yaml",
        "microbatches: 2\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB, repeat: 4}\nschedule: gpipe\n"
        "memory_saving: {policy: remat, slots: 100000000}\n");
  const CliResult slots = run_pipesim("run " + kPlatform + " slots.yaml", "", dir);
  EXPECT_EQ(slots.exit_code, 2);
  EXPECT_EQ(slots.err.rfind("pipesim: error: slots.yaml: memory_saving.slots: ", 0), 0u) << slots.err;
  EXPECT_NE(slots.err.find("table cells, at most 100000000 supported; use fewer slots"), std::string::npos);
  write(dir + "/big.yaml",
        "microbatches: 2\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 1e18MiB, repeat: 4}\n");
  expect_error(run_pipesim("run " + kPlatform + " big.yaml", "", dir),
               "pipesim: error: big.yaml: line 3: layers[0].activation: expected at most 8 EiB (a transfer's byte "
               "count must fit 63 bits), got '1e18MiB'");
}

// Item 14: a message quoting a huge input stays one short line.
TEST(ErrorLines, QuotedValuesAreCut) {
  const std::string cell(4 << 20, 'x');
  const std::string what =
      InputError("o.csv", "line 1 (rank 0), column 1", "expected an op, got '" + cell + "'").what();
  EXPECT_EQ(what, "o.csv: line 1 (rank 0), column 1: expected an op, got '" + std::string(157, 'x') + "...'");
  // An apostrophe is no quote, and short quotes stay whole.
  EXPECT_EQ(std::string(InputError("w.yaml", "placement", "the workload's 'gpu0' is 'fine'").what()),
            "w.yaml: placement: the workload's 'gpu0' is 'fine'");
  EXPECT_LE(bounded_message(std::string(10000, 'y')).size(), 2000u);
  // A NUL quoted from an input is shown, and what follows it is kept.
  EXPECT_EQ(std::string(InputError("s.yaml", "platform", std::string("'cluster --\0boxes 2': bad", 25)).what()),
            "s.yaml: platform: 'cluster --\\x00boxes 2': bad");
  // Through the binary: a 4 MB CSV of one repeated bad cell.
  const std::string dir = fresh_dir("huge-cell");
  std::string csv = "0F0,";
  csv.append(4 << 20, 'Z');
  write(dir + "/o.csv", csv + "\n");
  write(dir + "/w.yaml",
        "microbatches: 1\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB, repeat: 2}\n"
        "schedule: {name: csv, file: o.csv}\n");
  const CliResult r = run_pipesim("run " + kPlatform + " w.yaml", "", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_LT(r.err.size(), 600u) << r.err.substr(0, 600);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_EQ(r.err.rfind("pipesim: error: o.csv: line 1 (rank 0), column 2: ", 0), 0u) << r.err.substr(0, 300);
  // A million valid cells, one op repeated: a message listing every place, cut.
  std::string repeated = "0F0";
  for (int i = 1; i < 1000000; ++i) repeated += ",0F0";
  write(dir + "/o.csv", repeated + "\n");
  const CliResult many = run_pipesim("run " + kPlatform + " w.yaml", "", dir);
  EXPECT_EQ(many.exit_code, 2);
  EXPECT_LT(many.err.size(), 2100u);
  EXPECT_EQ(std::count(many.err.begin(), many.err.end(), '\n'), 1);
  EXPECT_EQ(many.err.rfind("pipesim: error: o.csv: rows: 0F0 appears 1000000 times", 0), 0u) << many.err.substr(0, 300);
}

}  // namespace
}  // namespace pipesim
