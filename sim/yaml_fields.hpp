// Field readers shared by the YAML loaders (workloads, patterns): every
// problem becomes one InputError "FILE: line N: PATH: WHAT".
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pipesim {

// How messages look; the defaults are those of workload files.
struct YamlStyle {
  bool escape_newlines = true;  // newline -> backslash n, tab and CR -> space (else newline -> space)
  bool suggest_keys = true;     // "did you mean" on unknown keys
  bool name_keys = true;        // a non-scalar key: "expected a key name" (else: an unknown key)
};

// A YAML file's text (read_input_file: a regular file of at most 64 MiB).
std::string read_yaml_file(const std::string& path);

// A base for one file's reader: derive from it and call its helpers.
class YamlFields {
 public:
  struct Entry {
    YAML::Node key, value;
  };
  using Fields = std::map<std::string, Entry>;

  explicit YamlFields(std::string file, YamlStyle style = {}) : file_(std::move(file)), style_(style) {}
  const std::string& file() const { return file_; }

  // Parses text and returns read(root); YAML errors become InputErrors.
  template <class Read>
  auto parse(const std::string& text, Read&& read) const {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      fail_at(e.mark, "", "YAML syntax error: " + e.msg);
    }
    return read_parsed(root, read);
  }

  // read(root) on a document parsed before; YAML errors become InputErrors.
  template <class Read>
  auto read_parsed(const YAML::Node& root, Read&& read) const {
    try {
      return read(root);
    } catch (const YAML::Exception& e) {  // not expected: readers check node types first
      fail_at(e.mark, "", e.msg);
    }
  }

  // Throws "FILE: line N: PATH: WHAT" (just PATH when the node has no line).
  [[noreturn]] void fail(const YAML::Node& at, const std::string& path, const std::string& what) const;

  // The keys of a map, rejecting duplicates and (if allowed is given) unknown keys.
  Fields fields(const YAML::Node& map, const std::string& path, const std::vector<std::string>* allowed) const;

  static const Entry* get(const Fields& f, const std::string& key);
  const YAML::Node& require(const Fields& f, const YAML::Node& parent, const std::string& path, const std::string& key,
                            const std::string& expected) const;

  std::string scalar(const YAML::Node& n, const std::string& path, const std::string& expected) const;
  std::string text(const YAML::Node& n, const std::string& path, const std::string& expected) const;  // non-empty

  // A whole number in [min, max]: digits with an optional sign; no "2.0", no "1e3".
  long long integer(const YAML::Node& n, const std::string& path, const std::string& expected, long long min,
                    long long max) const;

  // true/false (also yes/no, on/off).
  bool boolean(const YAML::Node& n, const std::string& path) const;

  // A number with units (sim/units.hpp); the parser's message on failure.
  template <class T>
  T quantity(const YAML::Node& n, const std::string& path, const std::string& expected,
             T (*parse)(const std::string&)) const {
    const std::string s = scalar(n, path, expected);
    try {
      return parse(s);
    } catch (const std::invalid_argument& e) {
      fail(n, path, e.what());
    }
  }

  // How a node looks, for the "got ..." part of messages.
  static std::string describe(const YAML::Node& n);
  static std::string join(const std::vector<std::string>& words);  // "a, b, c"
  static std::string lower(std::string s);
  static std::string sub(const std::string& path, const std::string& key);  // "path.key"
  static std::string item(const std::string& path, std::size_t i);          // "path[i]"
  // Digits with an optional '+' (and '-' if negative); false when malformed or too large.
  static bool parse_integer(const std::string& s, long long& out, bool negative = false);

 private:
  [[noreturn]] void fail_at(const YAML::Mark& mark, const std::string& path, const std::string& what) const;

  std::string file_;
  YamlStyle style_;
};

}  // namespace pipesim
