// read_input_file: every input is a regular file of at most 64 MiB, or one
// error line; the workload, pattern, CSV and graph.txt readers all use it.
#include "sim/input_file.hpp"

#include <sys/stat.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "sim/input_error.hpp"
#include "tests/support/cli_runner.hpp"
#include "workloads/pipedream_profile.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

std::string error_of(const std::string& path, const std::string& kind) {
  try {
    read_input_file(path, kind);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string fifo(const std::string& name) {
  const std::string path = temp_path(name);
  std::filesystem::remove(path);
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  return path;
}

TEST(InputFile, ReadsARegularFile) {
  EXPECT_EQ(read_input_file(write_file("ok.txt", "a: 1\n"), "a YAML file"), "a: 1\n");
  EXPECT_EQ(read_input_file(write_file("empty.txt", ""), "a YAML file"), "");
}

TEST(InputFile, RefusesWhatIsNoRegularFile) {
  EXPECT_EQ(error_of("/nonexistent/w.yaml", "a YAML file"), "/nonexistent/w.yaml: cannot open: no such file");
  const std::string dir = std::filesystem::path(temp_path("x")).parent_path().string();
  EXPECT_EQ(error_of(dir, "a YAML file"), dir + ": expected a YAML file, got a directory");
  EXPECT_EQ(error_of("/dev/zero", "a CSV file"), "/dev/zero: expected a CSV file, got a character device");
  const std::string pipe = fifo("pipe.yaml");  // opening it would block
  EXPECT_EQ(error_of(pipe, "a YAML file"), pipe + ": expected a YAML file, got a FIFO");
  const std::string link = temp_path("zero-link.yaml");
  std::filesystem::remove(link);
  std::filesystem::create_symlink("/dev/zero", link);
  EXPECT_EQ(error_of(link, "a YAML file"), link + ": expected a YAML file, got a character device");
}

TEST(InputFile, RefusesFilesOver64MiB) {
  const std::string big = write_file("big.yaml", "");
  std::filesystem::resize_file(big, kMaxInputFileBytes + 1);  // sparse: nothing is written
  EXPECT_EQ(error_of(big, "a YAML file"), big + ": expected a YAML file of at most 64.0 MiB, got 64.0 MiB");
  std::filesystem::resize_file(big, 3ull << 30);
  EXPECT_EQ(error_of(big, "a YAML file"), big + ": expected a YAML file of at most 64.0 MiB, got 3.00 GiB");
  std::filesystem::resize_file(big, kMaxInputFileBytes);
  EXPECT_EQ(read_input_file(big, "a YAML file").size(), kMaxInputFileBytes);
  std::filesystem::remove(big);
}

TEST(InputFile, PipeDreamGraphs) {
  try {
    read_pipedream_graph("/dev/zero");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/zero: expected a graph.txt file, got a character device");
  }
}

// Through the command line: the workload, the pattern file it names, and
// the file `pipesim validate` checks.
TEST(InputFile, CommandLine) {
  const std::string platform = complete_platform(2);
  CliResult r = run_pipesim("run " + platform + " /dev/zero");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipesim: error: /dev/zero: expected a YAML file, got a character device\n");

  const std::string workload = write_file("zero-pattern.yaml",
                                          "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 0}\n"
                                          "  - {forward: 1ms, backward: 2ms, activation: 0}\n"
                                          "schedule: {name: pattern, file: /dev/zero}\n");
  r = run_pipesim("run " + platform + " " + workload);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: /dev/zero: expected a YAML file, got a character device\n");

  const std::string orders = fifo("orders.csv");
  r = run_pipesim("validate " + platform + " " + workload + " " + orders);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipesim: error: " + orders + ": expected a CSV file, got a FIFO\n");
}

}  // namespace
}  // namespace pipesim
