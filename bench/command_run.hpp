// Runs a command as a child process (studies/subprocess.hpp: no shell) and
// measures what a user waits for: its wall time, and its peak RSS from
// wait4's rusage (the benchmarks, and the test of the memory estimate).
#pragma once

#include <sys/wait.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "studies/subprocess.hpp"

namespace pipesim::bench {

struct CommandRun {
  int exit_code = -1;  // -1: did not start or died of a signal
  double seconds = 0;
  long peak_rss_kib = 0;
};

// ARGS[0] is the program; standard output goes to OUT_PATH, errors to ERR_PATH.
inline CommandRun run_command(const std::vector<std::string>& args, const std::string& out_path,
                              const std::string& err_path = "/dev/null") {
  CommandRun run;
  const auto t0 = std::chrono::steady_clock::now();
  ChildEnd end;
  try {
    end = wait_child(start_process(args, {out_path, err_path}));
  } catch (const std::runtime_error&) {
    return run;
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.peak_rss_kib = end.usage.ru_maxrss;
  run.exit_code = WIFEXITED(end.status) ? WEXITSTATUS(end.status) : -1;
  return run;
}

}  // namespace pipesim::bench
