// The test program's main: every test runs in a process of its own, forked
// from this one before any test has run.
//
// Why: SimGrid allows one engine per process (a second one keeps the old
// clock), so two tests that simulate cannot share a process. Starting the
// program anew for each test costs about 0.08 s (dynamic linking and the
// libraries' start-up: most of a fast test's time); a fork costs about a
// millisecond. ctest runs one suite per program (tests/register_suites.cmake);
// run by hand, the program runs what --gtest_filter selects, each test forked.
#include <fnmatch.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

// True if NAME matches one of the ':'-separated glob patterns (gtest's * and ?).
bool matches_one_of(const std::string& name, const std::string& patterns) {
  std::istringstream list(patterns);
  for (std::string pattern; std::getline(list, pattern, ':');)
    if (!pattern.empty() && fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

// gtest's filter: POSITIVE[-NEGATIVE], an empty POSITIVE meaning every test.
bool selected_by(const std::string& filter, const std::string& name) {
  const auto dash = filter.find('-');
  std::string positive = filter.substr(0, dash);
  const std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
  if (positive.empty()) positive = "*";
  return matches_one_of(name, positive) && !matches_one_of(name, negative);
}

std::vector<std::string> selected_tests() {
  const std::string filter = GTEST_FLAG_GET(filter);
  const bool disabled_too = GTEST_FLAG_GET(also_run_disabled_tests);
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  std::vector<std::string> names;
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const std::string name = std::string(suite.name()) + "." + suite.GetTestInfo(t)->name();
      const bool disabled = name.find("DISABLED_") != std::string::npos;
      if (selected_by(filter, name) && (disabled_too || !disabled)) names.push_back(name);
    }
  }
  return names;
}

// A child's printer: what failed (file, line, message) and why a test skipped.
class FailuresOnly : public testing::EmptyTestEventListener {
  void OnTestPartResult(const testing::TestPartResult& part) override {
    if (part.passed()) return;
    const char* file = part.file_name() != nullptr ? part.file_name() : "unknown file";
    std::printf("%s:%d: %s\n%s\n", file, part.line_number(), part.skipped() ? "Skipped" : "Failure", part.message());
  }
};

// Runs one test in a child forked from this process; "" if it passed, else why not.
std::string run_forked(const std::string& name) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = fork();
  if (child < 0) return "fork failed";
  if (child == 0) {
    GTEST_FLAG_SET(filter, name);
    testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnly);
    const int failed = RUN_ALL_TESTS();
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(failed);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return "lost its process";
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WEXITSTATUS(status) != 0) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const std::vector<std::string> tests = selected_tests();
  // Listing, or one test (ctest's per-test runs, a developer's filter): as gtest does.
  if (GTEST_FLAG_GET(list_tests) || tests.size() <= 1) return RUN_ALL_TESTS();
  if (!GTEST_FLAG_GET(output).empty()) {
    std::fprintf(stderr, "pipesim_tests: --gtest_output needs one test per run (ctest --output-junit gives a report)\n");
    return 2;
  }
  // The children report their failures only; this process says what ran.
  std::vector<std::string> failures;
  for (const std::string& name : tests) {
    const auto start = std::chrono::steady_clock::now();
    const std::string outcome = run_forked(name);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ %s ] %s (%lld ms)%s\n", outcome.empty() ? "      OK" : " FAILED ", name.c_str(),
                static_cast<long long>(ms), outcome.empty() ? "" : (": " + outcome).c_str());
    if (!outcome.empty()) failures.push_back(name);
  }
  std::printf("[==========] %zu tests, each in its own process: %zu failed\n", tests.size(), failures.size());
  for (const std::string& name : failures) std::printf("[  FAILED  ] %s\n", name.c_str());
  return failures.empty() ? 0 : 1;
}
