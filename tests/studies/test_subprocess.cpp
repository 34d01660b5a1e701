// The one subprocess helper (studies/subprocess.hpp) against POSIX.1-2017's
// waitpid: an exit status and a terminating signal come back as the status
// says (WIFEXITED/WEXITSTATUS, WIFSIGNALED/WTERMSIG); a wait that a signal
// interrupts (EINTR) is waited again; a wait for no child (ECHILD, "the
// process specified by pid does not exist or is not a child of the calling
// process") is an error at once, never a retry that would spin forever.
// A program that cannot start (posix_spawnp's error) says why.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sim/input_error.hpp"
#include "studies/subprocess.hpp"
#include "studies/sweep_platforms.hpp"

namespace pipesim {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int status_of(const std::vector<std::string>& args, const ChildOutput& output = {}) {
  return wait_child(start_process(args, output)).status;
}

TEST(Subprocess, ExitStatusComesBack) {
  const int status = status_of({"sh", "-c", "exit 3"});
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_EQ(describe_exit(status), "exited with status 3");
  EXPECT_EQ(describe_exit(status_of({"true"})), "exited with status 0");
}

TEST(Subprocess, TerminatingSignalComesBack) {
  const int status = status_of({"sh", "-c", "kill -TERM $$"});
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(describe_exit(status), "killed by signal " + std::to_string(SIGTERM));
}

TEST(Subprocess, ArgumentsReachTheProgramWithoutAShellAndOutputsGoToFiles) {
  const fs::path dir = fs::temp_directory_path() / ("pipesim-subprocess-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out = (dir / "out").string(), err = (dir / "err").string();
  std::ofstream(out) << "left over from before\n";  // truncated
  const int status = status_of(
      {"sh", "-c", "printf '%s|' \"$@\"; echo oops >&2; read x || echo eof >&2", "sh", "a b", "*", "$HOME", ""},
      {out, err});
  EXPECT_EQ(describe_exit(status), "exited with status 0");
  EXPECT_EQ(read_text(out), "a b|*|$HOME||");
  EXPECT_EQ(read_text(err), "oops\neof\n");  // standard input is /dev/null
  fs::remove_all(dir);
}

TEST(Subprocess, PeakMemoryOfTheChildComesBack) {
  const ChildEnd end = wait_child(start_process({"true"}));
  EXPECT_GT(end.usage.ru_maxrss, 0);
}

TEST(Subprocess, AProgramThatCannotStartThrowsWithTheReason) {
  try {
    start_process({"/nonexistent/pipesim-program"});
    FAIL() << "started";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot start /nonexistent/pipesim-program: No such file or directory");
  }
  EXPECT_THROW(start_process({"true"}, {"/nonexistent/folder/out"}), std::runtime_error);
  EXPECT_THROW(start_process({}), std::invalid_argument);
}

TEST(Subprocess, WaitingForNoChildThrowsAtOnce) {
  const pid_t pid = start_process({"true"});
  ASSERT_EQ(wait_child(pid).pid, pid);
  try {
    wait_child(pid);  // reaped already: ECHILD
    FAIL() << "waited twice";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "waiting for a child process: No child processes");
  }
  EXPECT_THROW(wait_child(-1), std::runtime_error);  // no children at all
}

void ignore(int) {}

TEST(Subprocess, AWaitInterruptedByASignalWaitsAgain) {
  struct sigaction action {};
  action.sa_handler = ignore;  // no SA_RESTART: the wait fails with EINTR
  struct sigaction before {};
  ASSERT_EQ(::sigaction(SIGALRM, &action, &before), 0);
  const pid_t pid = start_process({"sh", "-c", "sleep 0.3; exit 7"});
  itimerval timer{};
  timer.it_value.tv_usec = 50000;
  timer.it_interval.tv_usec = 50000;  // several interruptions
  ::setitimer(ITIMER_REAL, &timer, nullptr);
  const ChildEnd end = wait_child(pid);
  timer = {};
  ::setitimer(ITIMER_REAL, &timer, nullptr);
  ::sigaction(SIGALRM, &before, nullptr);
  EXPECT_EQ(end.pid, pid);
  EXPECT_EQ(describe_exit(end.status), "exited with status 7");
}

// A sweep's platform generator that cannot start (no python3 on PATH) is
// the spec's input error, saying why, instead of a guess.
TEST(Subprocess, AGeneratorThatCannotStartIsAnInputErrorSayingWhy) {
  SweepPlan plan;
  plan.generator = "make_platform.py";
  plan.size = 1;
  plan.run = [](std::size_t) {
    SweepRun run;
    run.cluster = "--gpus 2";
    return run;
  };
  ASSERT_EQ(::setenv("PATH", "/nonexistent", 1), 0);  // one test per process: nothing else sees it
  try {
    generate_clusters(plan, "sweep.yaml");
    FAIL() << "generated";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "sweep.yaml: platform: 'cluster --gpus 2': cannot start python3: No such file or directory");
  }
}

}  // namespace
}  // namespace pipesim
