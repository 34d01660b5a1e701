// The pipesim command line on CLI11: one App, one subcommand per command,
// help laid out as "usage: ..." first, and usage mistakes as one line.
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace pipesim {

// A mistake in how a command was called that CLI11 cannot see (a bad option
// value found after parsing). main reports it as
// CLI11 takes "--json ''" as an empty value (but "--json=" as none): throws
// UsageError "--json needs a value" for an option of COMMAND given one.
void check_no_empty_values(const CLI::App& command);

// "pipesim: error: WHAT; see 'pipesim COMMAND --help'" and exits 2.
class UsageError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The root App "pipesim": its help and --version, the help layout and the
// option defaults (a repeated single-value option keeps its last value).
void configure_root(CLI::App& root);

// A command of ROOT with its own --help and --version; FOOTER (exit status)
// ends its help.
CLI::App* add_command(CLI::App& root, const std::string& name, const std::string& description,
                      const std::string& footer);

// CLI11 takes "--json ''" as an empty value (but "--json=" as none): throws
// UsageError "--json needs a value" for an option of COMMAND given one.
void check_no_empty_values(const CLI::App& command);

// "pipesim: error: WHAT; see 'pipesim[ COMMAND] --help'" (no newline).
// TEXT on one line: newlines become spaces, other control bytes \xNN, so an
// error message quoting an input file stays one terminal line.
std::string one_line(const std::string& text);
// The running pipesim executable (/proc/self/exe), which sweeps and plans start for each run.
std::string this_binary();
std::string usage_error_line(const std::string& command, const std::string& what);

// The usage error line for a CLI11 parse error of ROOT (not help or version).
std::string usage_error_line(const CLI::App& root, const CLI::ParseError& error);

// With --help and no command chosen: the usage error line for a word that
// names no command (`pipesim plan --help`), "" when there is none. The root
// takes no option with a value, so any word is a command name.
std::string unknown_command_line(const CLI::App& root, int argc, const char* const* argv);

}  // namespace pipesim
