#include "sim/yaml_fields.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "sim/input_error.hpp"
#include "sim/input_file.hpp"

namespace pipesim {
namespace {

// Messages are one line: flatten the newlines that block scalars may carry.
std::string one_line(const std::string& s, bool escape) {
  std::string out;
  for (char c : s) {
    if (c == '\n')
      out += escape ? "\\n" : " ";
    else if (escape && (c == '\r' || c == '\t'))
      out += ' ';
    else
      out += c;
  }
  return out;
}

// Levenshtein distance, for "did you mean" on unknown keys.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// " (did you mean 'k'?)" for the closest allowed key, if close enough.
std::string suggestion(const std::string& name, const std::vector<std::string>& allowed) {
  std::string hint;
  std::size_t best = 3;  // suggest only close matches
  for (const auto& k : allowed)
    if (std::size_t d = edit_distance(YamlFields::lower(name), k); d < best)
      best = d, hint = " (did you mean '" + k + "'?)";
  return hint;
}

}  // namespace

std::string read_yaml_file(const std::string& path) { return read_input_file(path, "a YAML file"); }

void YamlFields::fail_at(const YAML::Mark& mark, const std::string& path, const std::string& what) const {
  std::string where = path;
  if (!mark.is_null()) where = "line " + std::to_string(mark.line + 1) + (path.empty() ? "" : ": " + path);
  throw InputError(file_, where, one_line(what, style_.escape_newlines));
}

void YamlFields::fail(const YAML::Node& at, const std::string& path, const std::string& what) const {
  fail_at(at.IsDefined() ? at.Mark() : YAML::Mark::null_mark(), path, what);
}

YamlFields::Fields YamlFields::fields(const YAML::Node& map, const std::string& path,
                                      const std::vector<std::string>* allowed) const {
  Fields out;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar() && style_.name_keys) fail(key, path, "expected a key name, got " + describe(key));
    const std::string name = key.IsScalar() ? key.Scalar() : "";
    if (allowed && std::find(allowed->begin(), allowed->end(), name) == allowed->end())
      fail(key, sub(path, name),
           "unknown key " + describe(key) + (style_.suggest_keys ? suggestion(name, *allowed) : "") +
               "; expected one of: " + join(*allowed));
    if (out.count(name)) fail(key, sub(path, name), "duplicate key '" + name + "'");
    out[name] = {key, it->second};
  }
  return out;
}

const YamlFields::Entry* YamlFields::get(const Fields& f, const std::string& key) {
  auto it = f.find(key);
  return it == f.end() ? nullptr : &it->second;
}

const YAML::Node& YamlFields::require(const Fields& f, const YAML::Node& parent, const std::string& path,
                                      const std::string& key, const std::string& expected) const {
  const Entry* e = get(f, key);
  if (!e) fail(parent, sub(path, key), "missing required field: expected " + expected);
  return e->value;
}

std::string YamlFields::scalar(const YAML::Node& n, const std::string& path, const std::string& expected) const {
  if (!n.IsScalar()) fail(n, path, "expected " + expected + ", got " + describe(n));
  return n.Scalar();
}

std::string YamlFields::text(const YAML::Node& n, const std::string& path, const std::string& expected) const {
  std::string s = scalar(n, path, expected);
  if (s.empty()) fail(n, path, "expected " + expected + ", got an empty string");
  return s;
}

long long YamlFields::integer(const YAML::Node& n, const std::string& path, const std::string& expected, long long min,
                              long long max) const {
  const std::string s = scalar(n, path, expected);
  long long v = 0;
  if (!parse_integer(s, v, true) || v < min || v > max) fail(n, path, "expected " + expected + ", got '" + s + "'");
  return v;
}

std::string YamlFields::describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return "'" + n.Scalar() + "'";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Null:
      return "an empty value";
    default:
      return "nothing";
  }
}

std::string YamlFields::join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string YamlFields::lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string YamlFields::sub(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string YamlFields::item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

bool YamlFields::parse_integer(const std::string& s, long long& out, bool negative) {
  const std::size_t sign = !s.empty() && (s[0] == '+' || (negative && s[0] == '-')) ? 1 : 0;
  if (s.size() == sign || !std::all_of(s.begin() + sign, s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  const char* first = s.data() + (s[0] == '+' ? 1 : 0);  // from_chars reads '-' but not '+'
  const auto [end, ec] = std::from_chars(first, s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool YamlFields::boolean(const YAML::Node& n, const std::string& path) const {
  const std::string s = lower(scalar(n, path, "true or false"));
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail(n, path, "expected true or false, got '" + n.Scalar() + "'");
}

}  // namespace pipesim
