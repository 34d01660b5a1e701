// pipesim COMMAND ...: one CLI11 App with a subcommand per command. Usage
// mistakes and bad input are one stderr line and exit 2 (docs/outputs.md).
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/command_line.hpp"
#include "cli/import_command.hpp"
#include "cli/plan_command.hpp"
#include "cli/run_command.hpp"
#include "cli/study_command.hpp"
#include "cli/sweep_command.hpp"
#include "cli/validate_command.hpp"
#include "sim/input_error.hpp"
#include "sim/memory_saving_summary.hpp"

namespace {

// What the command prints on standard output is kept here and written at
// the end, so that nothing reaches stdout when the command fails, and a
// write error (a full disk, /dev/full, EIO) is an error (exit 2), not lost
// output.
class CapturedStdout {
 public:
  CapturedStdout() : original_(std::cout.rdbuf(text_.rdbuf())) {}
  ~CapturedStdout() { std::cout.rdbuf(original_); }  // what was not written is dropped

  // Writes what was captured and closes standard output; returns STATUS, or
  // 2 after reporting a write error.
  int finish(int status) {
    const bool whole = std::cout.good();  // out of memory fails std::cout silently: a truncated text is not printed
    std::cout.rdbuf(original_);
    if (!whole) {
      std::cerr << "pipesim: error: <stdout>: out of memory while building it\n";
      return 2;
    }
    const std::string text = text_.str();
    int error = std::fflush(stdout) != 0 ? errno : 0;
    for (std::size_t done = 0; error == 0 && done < text.size();) {
      const ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        error = n < 0 ? errno : EIO;
      else
        done += static_cast<std::size_t>(n);
    }
    if (::close(STDOUT_FILENO) != 0 && error == 0 && errno != EBADF) error = errno;
    if (error == 0) return status;
    std::cerr << "pipesim: error: <stdout>: write error: " << std::strerror(error) << "\n";
    return 2;
  }

 private:
  std::ostringstream text_;
  std::streambuf* original_;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace pipesim;
  CLI::App root("Simulates pipelined model-parallel training of a deep network on a described\ncluster (README.md).",
                "pipesim");
  configure_root(root);
  RunOptions run;
  ValidateOptions validate;
  ImportCommandOptions import;
  StudyCommandOptions study;
  SweepCommandOptions sweep;
  PlanCommandOptions plan;
  const CLI::App* run_app = add_run_command(root, run);
  const CLI::App* validate_app = add_validate_command(root, validate);
  const CLI::App* import_app = add_import_command(root, import);
  const CLI::App* study_app = add_study_command(root, study);
  const CLI::App* sweep_app = add_sweep_command(root, sweep);
  const CLI::App* plan_app = add_plan_command(root, plan);

  CapturedStdout out;
  try {
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    // `pipesim fly --help`: an unknown command is a usage error, not a request for the general help.
    if (const std::string unknown = unknown_command_line(root, argc, argv); !unknown.empty()) {
      std::cerr << unknown << "\n";
      return 2;
    }
    std::cout << root.help();  // the chosen command's help, if any
    return out.finish(0);
  } catch (const CLI::CallForVersion& version) {
    std::cout << version.what() << "\n";
    return out.finish(0);
  } catch (const CLI::ParseError& e) {
    std::cerr << usage_error_line(root, e) << "\n";
    return 2;
  }

  std::string command;
  try {
    for (const CLI::App* chosen : root.get_subcommands()) {
      command = chosen->get_name();
      check_no_empty_values(*chosen);
    }
    int status = 0;
    if (run_app->parsed()) {
      command = "run";
      status = run_command(run);
    } else if (validate_app->parsed()) {
      command = "validate";
      status = validate_command(validate);
    } else if (import_app->parsed()) {
      command = "import";
      status = import_command(import);
    } else if (study_app->parsed()) {
      command = "study";
      status = study_command(study);
    } else if (sweep_app->parsed()) {
      command = sweep.merge->parsed() ? "sweep merge" : "sweep";
      status = sweep_command(sweep);
    } else if (plan_app->parsed()) {
      command = "plan";
      status = plan_command(plan);
    }
    return out.finish(status);
  } catch (const UsageError& e) {
    std::cerr << usage_error_line(command, e.what()) << "\n";
  } catch (const InfeasibleRun& e) {  // a valid input no run satisfies: an invalid run
    std::cerr << "pipesim: infeasible: " << one_line(e.what()) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "pipesim: error: " << one_line(bounded_message(e.what())) << "\n";  // any length quoted, bounded
  }
  return 2;
}
