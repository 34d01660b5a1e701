// Runs the pipesim binary as a user would and captures what it prints.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "tests/fixtures.hpp"

namespace pipesim::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline CliResult run_pipesim(const std::string& args) {
  const std::string out = temp_path("cli.out"), err = temp_path("cli.err");
  const std::string command = std::string(PIPESIM_BINARY) + " " + args + " >" + out + " 2>" + err + " </dev/null";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
}

}  // namespace pipesim::testing
