// Runs the pipesim binary as a user would and captures what it prints.
#pragma once

#include <sys/wait.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include "tests/support/build_paths.hpp"

#include "tests/support/fixtures.hpp"

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

// A JSON output read as JSON, so that tests assert on fields rather than on the text's layout.
inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

// The number at POINTER (e.g. "/pattern/exact_period"), or MISSING where the report has none.
inline double json_number(const nlohmann::json& j, const std::string& pointer, double missing = -1) {
  const nlohmann::json::json_pointer at(pointer);
  return j.contains(at) ? j.at(at).get<double>() : missing;
}

// The report's `collectives` entry of PURPOSE ("dp gradients", "tied embedding"), or null.
inline const nlohmann::json* find_purpose(const nlohmann::json& j, const std::string& purpose) {
  if (!j.contains("collectives")) return nullptr;
  for (const auto& c : j["collectives"])
    if (c["purpose"] == purpose) return &c;
  return nullptr;
}

// STDOUT: where standard output goes (empty: a file read into the result);
// DIR: the working directory (empty: this process's).
inline CliResult run_pipesim(const std::string& args, const std::string& stdout_path = "",
                             const std::string& dir = "") {
  const std::string out = stdout_path.empty() ? temp_path("cli.out") : stdout_path, err = temp_path("cli.err");
  const std::string command = (dir.empty() ? "" : "cd '" + dir + "' && ") + std::string(PIPESIM_BINARY) + " " + args +
                              " >" + out + " 2>" + err + " </dev/null";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, stdout_path.empty() ? read_text(out) : "", read_text(err)};
}

}  // namespace pipesim::testing
