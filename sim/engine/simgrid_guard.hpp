// Turns SimGrid's fatal errors into pipesim's one error line. SimGrid 3.32
// ends some platform and setting mistakes with xbt_die (abort, after a
// backtrace on stderr) or a segfault instead of an exception. While a guard
// is alive, stderr goes to an anonymous memory file and fatal signals print
//   pipesim: error: FILE: SimGrid rejected the platform: <SimGrid's message>
// on the real stderr and end the process with exit code 2.
#pragma once

#include <string>

namespace pipesim {

class SimGridGuard {
 public:
  explicit SimGridGuard(const std::string& platform_file);
  ~SimGridGuard();  // restores stderr (dropping what SimGrid wrote) and the previous handlers
  SimGridGuard(const SimGridGuard&) = delete;
  SimGridGuard& operator=(const SimGridGuard&) = delete;

  // Installs the handlers again: SimGrid's engine installs its own SIGSEGV handler.
  void rearm();
};

}  // namespace pipesim
