// The fixture of the fuzz suites beyond tests/fuzz/test_fuzz_contract.cpp's
// formats (tests/fuzz/test_fuzz_surfaces.cpp, tests/fuzz/test_fuzz_engines.cpp): one
// directory per case, seeded mutations (fuzz_support.hpp), any program run
// as a child, and the error contract checked on the whole directory, so that
// commands whose outputs are folders (sweeps), whose errors may be usage
// lines, or that answer `pipesim: infeasible:` are held to it too.
#pragma once

#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/fuzz/fuzz_support.hpp"

namespace pipesim::fuzz {

namespace fs = std::filesystem;

// As the existing suites: generous, since a hang runs forever.
#ifdef __SANITIZE_ADDRESS__
constexpr int kCaseTimeoutSeconds = 120;
#else
constexpr int kCaseTimeoutSeconds = 60;
#endif

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string source(const std::string& relative) {
  const std::string text = read_file(std::string(PIPESIM_SOURCE_DIR) + "/" + relative);
  if (text.empty()) throw std::runtime_error("cannot read " + relative);
  return text;
}

// Replaces the first `from` (which must be there) by `to`.
inline std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("fuzz base input: '" + from + "' not found");
  return text.replace(at, from.size(), to);
}

inline std::string without_comment_lines(const std::string& text) {
  std::string out;
  for (const Span& l : lines(text))
    if (text[l.pos] != '#') out += text.substr(l.pos, l.len);
  return out;
}

// TEXT as an error line quotes it: control bytes as \xNN.
inline std::string control_bytes_shown(const std::string& text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    static const char hex[] = "0123456789abcdef";
    if (u < 0x20 || u == 0x7f)
      out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
    else
      out += c;
  }
  return out;
}

// What one command may do. On exit 2 (and on an infeasible exit 1) the case
// directory must be exactly as before; on exit 0 or 1 every file that was
// there keeps its bytes unless it is an output, and every new file is an
// output or lies in an output folder.
struct Command {
  std::vector<std::string> argv;  // argv[0]: the program's path
  // Whom an error line may name first: `pipesim: error: NAME: ...`, NAME one of these.
  std::vector<std::string> blame;
  // Inputs whose text names other files (a spec its workloads, a workload its
  // CSV): an error may name any file they name, as the error line shows it.
  std::vector<std::string> naming_inputs;
  std::string command_name;  // "sweep": a usage line `...; see 'pipesim sweep[ merge] --help'` is an error line too
  std::regex error_line;     // set instead of blame for programs other than pipesim
  bool has_error_line = false;
  bool may_be_infeasible = false;                          // exit 1 with one line `pipesim: infeasible: NAME: ...`
  std::vector<std::pair<std::string, std::string>> files;  // written on success: path, its first bytes
  std::vector<std::string> folders;                        // outputs that are folders
};

inline Command pipesim_command(std::vector<std::string> args, std::vector<std::string> blame) {
  Command c;
  c.argv = {PIPESIM_BINARY};
  c.argv.insert(c.argv.end(), args.begin(), args.end());
  c.blame = std::move(blame);
  if (!args.empty()) c.command_name = args[0];
  return c;
}

// pipesim run with a JSON report and a trace.
inline Command run_command(const std::string& platform, const std::string& workload, std::vector<std::string> blame,
                           std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", platform, workload, "--json", "out.json", "--trace", "trace.json", "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  blame.insert(blame.end(), {platform, workload, "out.json", "trace.json"});
  Command c = pipesim_command(args, blame);
  c.files = {{"out.json", "{"}, {"trace.json", "{"}};
  return c;
}

struct Outcome {
  ChildResult child;
  std::string out, err;
};

class SurfaceCase : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (const char* tmp = std::getenv("TMPDIR")) tmpdir_ = tmp;
    // PIPESIM_FUZZ_SEED_OFFSET=N runs other seeds (case K gets seed base + N + K), to search beyond ctest's.
    const char* offset = std::getenv("PIPESIM_FUZZ_SEED_OFFSET");
    const int shift = offset ? std::atoi(offset) : 0;
    seed_ = seed_base() + static_cast<std::uint64_t>(shift + GetParam());
    id_ = format() + "-" + std::to_string(shift + GetParam());
    dir_ = (fs::temp_directory_path() / ("pipesim-fuzz-" + id_ + "-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(work());
    fs::create_directories(dir_ + "/io");
    fs::create_directories(dir_ + "/tmp");
    // The children's temporaries (a sweep's generated clusters) land here, where the case can see them.
    ::setenv("TMPDIR", (dir_ + "/tmp").c_str(), 1);
  }
  void TearDown() override {
    if (!keep_) fs::remove_all(dir_);
    if (tmpdir_)
      ::setenv("TMPDIR", tmpdir_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }

  virtual std::string format() const = 0;
  virtual std::uint64_t seed_base() const = 0;
  // Cases that break the contract and cannot be fixed at once: id -> what happens.
  virtual std::map<std::string, std::string> known_failures() const { return {}; }

  std::string work() const { return dir_ + "/work"; }
  void write(const std::string& name, const std::string& text) const {
    fs::create_directories(fs::path(work() + "/" + name).parent_path());
    std::ofstream(work() + "/" + name, std::ios::binary) << text;
  }
  std::string read(const std::string& name) const { return read_file(work() + "/" + name); }
  bool exists(const std::string& name) const { return fs::exists(work() + "/" + name); }

  // One mutation, sometimes two, recorded.
  std::string mutated(std::string text, Rng& rng, const FormatRules& rules) {
    Mutator mutator(rng, rules);
    const int count = rng.chance(25) ? 2 : 1;
    for (int i = 0; i < count; ++i) mutations_.push_back(mutator.mutate(text));
    return text;
  }
  // A choice of the case, recorded.
  const std::string& chose(const std::string& what, const std::string& value) {
    mutations_.push_back(what + " " + shown(value, 200));
    return value;
  }

  // Runs the command; "" when it kept the contract, else why not (with the command and its output).
  std::string run(const Command& c, Outcome* outcome = nullptr) {
    const std::map<std::string, std::string> before = snapshot();
    const std::string out_file = dir_ + "/io/stdout", err_file = dir_ + "/io/stderr";
    Outcome o;
    o.child = run_child(c.argv, work(), out_file, err_file, kCaseTimeoutSeconds);
    o.out = read_file(out_file);
    o.err = read_file(err_file);
    if (outcome) *outcome = o;
    ran_.push_back(c.command_name + ": exit " + std::to_string(o.child.exit_code) +
                   (o.child.exit_code == 0 ? "" : ", " + shown(o.err, 160)));
    std::string why = violation(c, o, before);
    if (why.empty()) return "";
    std::string command = "cd " + work() + " &&";
    for (const auto& a : c.argv) command += " '" + a + "'";
    const ChildResult& r = o.child;
    return why + "\n  command: " + command + "\n  exit: " +
           (r.timed_out ? std::string("timeout")
            : r.signal  ? "signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")"
                        : std::to_string(r.exit_code)) +
           "\n  stderr: " + shown(o.err, 600) + "\n  stdout: " + shown(o.out, 200);
  }

  // Asserts the case's outcome against its known failures.
  void conclude(const std::string& failure) {
    std::string what = "case " + id_ + " (format " + format() + ", seed " + std::to_string(seed_) + ")";
    for (const auto& m : mutations_) what += "\n  mutation: " + m;
    for (const auto& r : ran_) what += "\n  ran: " + r;
    std::cout << what << "\n";  // shown by ctest -V: what each case covers
    const auto known_list = known_failures();
    const auto known = known_list.find(id_);
    if (failure.empty()) {
      if (known != known_list.end())
        FAIL() << what << "\nlisted as a known failure (" << known->second
               << ") but keeps the contract now: remove it from the list";
      return;
    }
    if (known != known_list.end())
      GTEST_SKIP() << "known failure: " << known->second << "\n" << what << "\n" << failure;
    keep_ = true;
    FAIL() << what << "\n" << failure << "\n  (inputs kept in " << work() << ")";
  }

  std::uint64_t seed_ = 0;
  std::string id_, dir_;
  std::vector<std::string> mutations_;
  std::vector<std::string> ran_;  // each command's outcome, for the log
  bool keep_ = false;

 private:
  std::optional<std::string> tmpdir_;

  // Every file under the case's work folder and its bytes.
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> files;
    for (auto it = fs::recursive_directory_iterator(work()); it != fs::recursive_directory_iterator(); ++it)
      if (it->is_regular_file() || it->is_directory())
        files[fs::relative(it->path(), work()).string() + (it->is_directory() ? "/" : "")] =
            it->is_regular_file() ? read_file(it->path().string()) : "";
    return files;
  }

  bool is_output(const Command& c, const std::string& path) const {
    for (const auto& [file, first] : c.files)
      if (path == file) return true;
    for (const auto& folder : c.folders)
      if (path.rfind(folder + "/", 0) == 0 || (path.back() == '/' && (folder + "/").rfind(path, 0) == 0))
        return true;  // in the folder, or a folder made to hold it (mkdir -p)
    return false;
  }

  bool is_error_line(const Command& c, const std::string& line, const std::string& prefix) const {
    if (c.has_error_line) return std::regex_match(line, c.error_line);
    if (line.rfind(prefix, 0) != 0) return false;
    for (const auto& b : c.blame)
      if (line.rfind(prefix + b + ": ", 0) == 0) return true;
    const std::size_t end = line.find(": ", prefix.size());
    if (end != std::string::npos && end > prefix.size())
      for (const auto& input : c.naming_inputs)
        if (control_bytes_shown(read(input)).find(line.substr(prefix.size(), end - prefix.size())) != std::string::npos)
          return true;
    const std::string usage_end = " --help'";  // `pipesim sweep merge` is under `sweep` too
    return !c.command_name.empty() && prefix == "pipesim: error: " &&
           line.find("; see 'pipesim " + c.command_name) != std::string::npos && line.size() > usage_end.size() &&
           line.compare(line.size() - usage_end.size(), usage_end.size(), usage_end) == 0;
  }

  std::string violation(const Command& c, const Outcome& o, const std::map<std::string, std::string>& before) const {
    const ChildResult& r = o.child;
    if (r.timed_out) return "hang: killed after " + std::to_string(kCaseTimeoutSeconds) + " s";
    if (r.signal) return "crash: killed by a signal";
    if (r.exit_code < 0 || r.exit_code > 2) return "exit status outside {0, 1, 2}";
    if (!fs::is_empty(dir_ + "/tmp"))
      return "a temporary left behind in $TMPDIR: " + fs::directory_iterator(dir_ + "/tmp")->path().filename().string();
    const std::map<std::string, std::string> after = snapshot();
    const bool infeasible = r.exit_code == 1 && o.err.rfind("pipesim: infeasible: ", 0) == 0;
    if (r.exit_code == 2 || infeasible) {
      if (infeasible && !c.may_be_infeasible) return "exit 1 'infeasible' from a command that cannot be";
      if (std::count(o.err.begin(), o.err.end(), '\n') != 1 || o.err.back() != '\n')
        return "exit " + std::to_string(r.exit_code) + " without exactly one stderr line";
      const std::string line = o.err.substr(0, o.err.size() - 1);
      if (!is_error_line(c, line, infeasible ? "pipesim: infeasible: " : "pipesim: error: "))
        return "exit " + std::to_string(r.exit_code) +
               ": the stderr line is not of the contract's form or names none of the inputs (internal error?)";
      if (!o.out.empty()) return "exit " + std::to_string(r.exit_code) + " with output on stdout";
      for (const auto& [path, bytes] : after)
        if (!before.count(path)) return "exit " + std::to_string(r.exit_code) + " wrote " + path;
      for (const auto& [path, bytes] : before) {
        const auto it = after.find(path);
        if (it == after.end()) return "exit " + std::to_string(r.exit_code) + " removed " + path;
        if (it->second != bytes) return "exit " + std::to_string(r.exit_code) + " changed " + path;
      }
      return "";
    }
    for (const auto& [path, bytes] : before) {
      if (is_output(c, path)) continue;
      const auto it = after.find(path);
      if (it == after.end()) return "exit " + std::to_string(r.exit_code) + " removed the input " + path;
      if (it->second != bytes) return "exit " + std::to_string(r.exit_code) + " changed the input " + path;
    }
    for (const auto& [path, bytes] : after)
      if (!before.count(path) && !is_output(c, path))
        return "exit " + std::to_string(r.exit_code) + " left a file that is no output: " + path;
    for (const auto& [file, first] : c.files) {
      if (first.empty() && fs::is_regular_file(work() + "/" + file)) continue;  // any content
      const std::string text = read(file);
      const std::string last = first == "{" ? "}\n" : first == "[" ? "]\n" : first == "<?xml" ? "</platform>\n" : "\n";
      const bool whole = text.rfind(first, 0) == 0 && text.size() >= last.size() + first.size() &&
                         text.compare(text.size() - last.size(), last.size(), last) == 0;
      if (!whole) return "exit " + std::to_string(r.exit_code) + " but " + file + " is missing or not whole";
      if ((first == "{" || first == "[") && !nlohmann::json::accept(text))
        return "exit " + std::to_string(r.exit_code) + " but " + file + " is not JSON";
    }
    return "";
  }
};

}  // namespace pipesim::fuzz
