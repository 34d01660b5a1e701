// Child processes for the sweep (a `pipesim run` per run, the platform
// generator), the forked studies and the benchmarks: started without a
// shell, so arguments reach the program as they are, and waited for in one
// place, so that every caller handles an interrupted or failed wait alike.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace pipesim {

// Where a child's standard output and error go. Its standard input is
// always /dev/null: a child never waits on the terminal.
struct ChildOutput {
  std::string out = "/dev/null";
  std::string err = "/dev/null";  // both created or truncated
};

// Starts ARGS (ARGS[0] searched in PATH when it holds no '/', as execvp
// does) by posix_spawnp. Throws std::runtime_error naming the program and
// the reason when it cannot start: not found, not executable, an output
// file that cannot be opened, no process left.
pid_t start_process(const std::vector<std::string>& args, const ChildOutput& output = {});

// How a child ended: which one, its waitpid status, its resource usage
// (ru_maxrss: its peak resident memory in KiB).
struct ChildEnd {
  pid_t pid = -1;
  int status = 0;
  rusage usage{};
};

// Waits for the child PID (-1: any child) and reaps it, again when a signal
// interrupts the wait. Any other failure throws std::runtime_error: with
// ECHILD (no such child) a retry would fail the same way forever.
ChildEnd wait_child(pid_t pid = -1);

// "exited with status N" or "killed by signal N", from a waitpid status.
std::string describe_exit(int status);

}  // namespace pipesim
