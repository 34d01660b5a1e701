#include "workloads/workload_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/input_error.hpp"
#include "sim/units.hpp"

namespace pipesim {
namespace {

// After `repeat` expansion. Guards memory against typos such as repeat: 100000000.
constexpr int kMaxLayers = 1000000;

const std::vector<std::string> kTopKeys = {"name",  "microbatches",    "microbatch_size",
                                           "iterations", "input", "reference_speed",
                                           "layers", "schedule", "placement"};
const std::vector<std::string> kLayerKeys = {"name",       "forward", "backward",
                                             "activation", "weights", "repeat"};
const std::vector<std::string> kStageKeys = {"layers", "host"};
const std::vector<std::string> kAutoPlacementKeys = {"stages"};

const char* const kCostExpected = "a duration like '3ms' or a flop count like '2Tf'";
const char* const kBytesExpected = "a byte size like '16MiB' or '1.5GB'";

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Messages are one line: escape newlines that block scalars may carry.
std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\r' || c == '\t') out += ' ';
    else out += c;
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

// How a node looks, for the "got ..." part of messages.
std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar: return "'" + n.Scalar() + "'";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Null: return "an empty value";
    default: return "nothing";
  }
}

// "layer 3" or "layers 3-5".
std::string layer_span(int a, int b) {
  return a == b ? "layer " + std::to_string(a) : "layers " + std::to_string(a) + "-" + std::to_string(b);
}

std::string sub(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string index_path(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Strict non-negative integer: digits only (an optional '+'), no "8.0", no "1e3".
bool parse_int(std::string s, long long& out) {
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

struct Entry {
  YAML::Node key, value;
};
using Fields = std::map<std::string, Entry>;

class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  Workload load(const YAML::Node& root) {
    if (root.IsNull())
      fail(YAML::Node(), "", "expected a map with at least 'microbatches' and 'layers', got an empty document");
    if (!root.IsMap())
      fail(root, "", "expected a map with at least 'microbatches' and 'layers', got " + describe(root));
    const Fields f = fields(root, "", &kTopKeys);
    const YAML::Node top;  // missing top-level fields have no useful line

    Workload w;
    w.file = file_;
    w.name = std::filesystem::path(file_).stem().string();
    if (auto* e = get(f, "name")) w.name = text(e->value, "name", "a workload name");
    w.microbatches = integer(require(f, top, "", "microbatches", "an integer >= 1"), "microbatches", 1);
    if (auto* e = get(f, "microbatch_size")) w.microbatch_size = integer(e->value, "microbatch_size", 1);
    if (auto* e = get(f, "iterations")) w.iterations = integer(e->value, "iterations", 1);
    if (auto* e = get(f, "input")) w.input = bytes(e->value, "input");
    if (auto* e = get(f, "reference_speed")) {
      w.reference_speed = quantity(e->value, "reference_speed", "a speed like '150Tf'", parse_flops);
      if (w.reference_speed <= 0)
        fail(e->value, "reference_speed", "expected a positive speed like '150Tf', got " + describe(e->value));
    }
    load_layers(require(f, top, "", "layers", "a non-empty list of layers"), w);
    w.schedule = "1f1b";
    if (auto* e = get(f, "schedule")) load_schedule(e->value, w);
    if (auto* e = get(f, "placement")) load_placement(e->value, w);
    return w;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& at, const std::string& path, const std::string& what) const {
    std::string where = path;
    if (at.IsDefined() && !at.Mark().is_null())
      where = "line " + std::to_string(at.Mark().line + 1) + (path.empty() ? "" : ": " + path);
    throw InputError(file_, where, one_line(what));
  }

  // The keys of a map, rejecting duplicates and (if allowed is given) unknown keys.
  Fields fields(const YAML::Node& map, const std::string& path,
                const std::vector<std::string>* allowed) const {
    Fields out;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;
      if (!key.IsScalar()) fail(key, path, "expected a key name, got " + describe(key));
      const std::string name = key.Scalar();
      if (allowed && std::find(allowed->begin(), allowed->end(), name) == allowed->end()) {
        std::string hint;
        std::size_t best = 3;  // suggest only close matches
        for (const auto& k : *allowed)
          if (std::size_t d = edit_distance(lower(name), k); d < best)
            best = d, hint = " (did you mean '" + k + "'?)";
        fail(key, sub(path, name),
             "unknown key '" + name + "'" + hint + "; expected one of: " + join(*allowed));
      }
      if (out.count(name)) fail(key, sub(path, name), "duplicate key '" + name + "'");
      out[name] = {key, it->second};
    }
    return out;
  }

  static const Entry* get(const Fields& f, const std::string& key) {
    auto it = f.find(key);
    return it == f.end() ? nullptr : &it->second;
  }

  const YAML::Node& require(const Fields& f, const YAML::Node& parent, const std::string& path,
                            const std::string& key, const std::string& expected) const {
    const Entry* e = get(f, key);
    if (!e) fail(parent, sub(path, key), "missing required field: expected " + expected);
    return e->value;
  }

  std::string scalar(const YAML::Node& n, const std::string& path, const std::string& expected) const {
    if (!n.IsScalar()) fail(n, path, "expected " + expected + ", got " + describe(n));
    return n.Scalar();
  }

  std::string text(const YAML::Node& n, const std::string& path, const std::string& expected) const {
    std::string s = scalar(n, path, expected);
    if (s.empty()) fail(n, path, "expected " + expected + ", got an empty string");
    return s;
  }

  int integer(const YAML::Node& n, const std::string& path, int min) const {
    const std::string expected = "an integer >= " + std::to_string(min);
    const std::string s = scalar(n, path, expected);
    long long v = 0;
    if (!parse_int(s, v) || v < min || v > INT_MAX) fail(n, path, "expected " + expected + ", got '" + s + "'");
    return static_cast<int>(v);
  }

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

  double bytes(const YAML::Node& n, const std::string& path) const {
    return quantity(n, path, kBytesExpected, parse_bytes);
  }

  Cost cost(const YAML::Node& n, const std::string& path) const {
    ParsedCost c = quantity(n, path, kCostExpected, parse_cost);
    return Cost{c.value, c.flops};
  }

  void load_layers(const YAML::Node& list, Workload& w) const {
    if (!list.IsSequence()) fail(list, "layers", "expected a list of layers, got " + describe(list));
    if (list.size() == 0) fail(list, "layers", "expected at least one layer, got an empty list");
    std::size_t i = 0;
    for (auto it = list.begin(); it != list.end(); ++it, ++i) {
      const YAML::Node n = *it;
      const std::string path = index_path("layers", i);
      if (!n.IsMap())
        fail(n, path, "expected a layer map with forward, backward and activation, got " + describe(n));
      const Fields f = fields(n, path, &kLayerKeys);
      Layer layer;
      layer.forward = cost(require(f, n, path, "forward", kCostExpected), sub(path, "forward"));
      layer.backward = cost(require(f, n, path, "backward", kCostExpected), sub(path, "backward"));
      layer.activation = bytes(require(f, n, path, "activation", kBytesExpected), sub(path, "activation"));
      if (auto* e = get(f, "weights")) layer.weights = bytes(e->value, sub(path, "weights"));
      std::string name;
      if (auto* e = get(f, "name")) name = text(e->value, sub(path, "name"), "a layer name");
      int repeat = 1;
      if (auto* e = get(f, "repeat")) {
        repeat = integer(e->value, sub(path, "repeat"), 1);
        if (repeat > kMaxLayers - static_cast<int>(w.layers.size()))
          fail(e->value, sub(path, "repeat"),
               "expected at most " + std::to_string(kMaxLayers) + " layers in total, got repeat " +
                   std::to_string(repeat));
      }
      for (int r = 0; r < repeat; ++r) {
        // Unnamed layers are numbered by their position in the expanded chain.
        if (name.empty()) layer.name = "layer" + std::to_string(w.layers.size());
        else layer.name = repeat > 1 ? name + "_" + std::to_string(r) : name;
        w.layers.push_back(layer);
      }
    }
  }

  void load_schedule(const YAML::Node& n, Workload& w) const {
    if (n.IsMap()) {
      const Fields f = fields(n, "schedule", nullptr);  // any key: generator parameters
      w.schedule = lower(text(require(f, n, "schedule", "name", "a schedule name"), "schedule.name",
                              "a schedule name like '1f1b'"));
      for (const auto& [key, e] : f)
        if (key != "name") w.schedule_params[key] = scalar(e.value, sub("schedule", key), "a single value");
    } else {
      w.schedule = lower(text(n, "schedule", "a schedule name like '1f1b' or a map {name: 1f1b, ...}"));
    }
  }

  void load_placement(const YAML::Node& n, Workload& w) const {
    const char* expected = "'auto', {stages: N} or a list of {layers: 'a-b', host: NAME}";
    Placement& p = w.placement;
    const int count = static_cast<int>(w.layers.size());
    if (n.IsScalar()) {
      if (lower(n.Scalar()) != "auto") fail(n, "placement", std::string("expected ") + expected + ", got " + describe(n));
    } else if (n.IsMap()) {
      const Fields f = fields(n, "placement", &kAutoPlacementKeys);
      const YAML::Node& s = require(f, n, "placement", "stages", "an integer >= 1");
      p.stages = integer(s, "placement.stages", 1);
      if (p.stages > count)
        fail(s, "placement.stages",
             "expected at most one stage per layer (" + std::to_string(count) + " layers), got " +
                 std::to_string(p.stages));
    } else if (n.IsSequence() && n.size() > 0) {
      p.automatic = false;
      int next = 0;  // first layer not yet assigned
      std::size_t i = 0;
      YAML::Node last_layers;
      std::string last_text;
      for (auto it = n.begin(); it != n.end(); ++it, ++i) {
        const YAML::Node stage = *it;
        const std::string path = index_path("placement", i);
        if (!stage.IsMap()) fail(stage, path, "expected a map {layers: 'a-b', host: NAME}, got " + describe(stage));
        const Fields f = fields(stage, path, &kStageKeys);
        const YAML::Node& ln = require(f, stage, path, "layers", "a layer range like '0-11'");
        const std::string lpath = sub(path, "layers");
        const auto [a, b] = range(ln, lpath, count);
        const std::string got = "got '" + ln.Scalar() + "'";
        const std::string after = i == 0 ? "" : ", right after " + index_path("placement", i - 1);
        if (a < next)
          fail(ln, lpath, "expected a range starting at layer " + std::to_string(next) + after + ", " +
                              got + ", which overlaps it");
        if (a > next)
          fail(ln, lpath, "expected a range starting at layer " + std::to_string(next) + after + ", " +
                              got + ", which leaves " + layer_span(next, a - 1) + " unassigned");
        next = b + 1;
        p.stage_layers.emplace_back(a, b);
        p.stage_hosts.push_back(text(require(f, stage, path, "host", "a host name"), sub(path, "host"), "a host name"));
        last_layers = ln;
        last_text = ln.Scalar();
      }
      if (next != count)
        fail(last_layers, index_path("placement", i - 1) + ".layers",
             "expected the last range to end at layer " + std::to_string(count - 1) + " (the chain has " +
                 std::to_string(count) + " layers), got '" + last_text + "', which leaves " +
                 layer_span(next, count - 1) + " unassigned");
    } else {
      fail(n, "placement", std::string("expected ") + expected + ", got " + describe(n) +
                               (n.IsSequence() ? " (empty list)" : ""));
    }
  }

  // "5" or "0-11": an inclusive 0-based range of existing layers.
  std::pair<int, int> range(const YAML::Node& n, const std::string& path, int count) const {
    const std::string expected = "a layer index like '5' or an inclusive range like '0-11'";
    const std::string s = scalar(n, path, expected);
    auto trim = [](std::string t) {
      t.erase(0, t.find_first_not_of(' '));
      t.erase(t.find_last_not_of(' ') + 1);
      return t;
    };
    const auto dash = s.find('-');
    long long a = 0, b = 0;
    bool ok = parse_int(trim(s.substr(0, dash)), a);
    b = a;
    if (dash != std::string::npos) ok = ok && parse_int(trim(s.substr(dash + 1)), b);
    if (!ok) fail(n, path, "expected " + expected + ", got '" + s + "'");
    if (a > b) fail(n, path, "expected a range 'a-b' with a <= b, got '" + s + "'");
    if (b >= count)
      fail(n, path, "expected layers within 0-" + std::to_string(count - 1) + " (the chain has " +
                        std::to_string(count) + " layers), got '" + s + "'");
    return {static_cast<int>(a), static_cast<int>(b)};
  }

  std::string file_;
};

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, "", "cannot open: no such file");
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, "", "expected a YAML file, got a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open for reading (permission denied?)");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path, "", "read error");
  return ss.str();
}

}  // namespace

Workload load_workload(const std::string& path) {
  const std::string content = read_file(path);
  YAML::Node root;
  try {
    root = YAML::Load(content);
  } catch (const YAML::Exception& e) {
    const std::string where = e.mark.is_null() ? "" : "line " + std::to_string(e.mark.line + 1);
    throw InputError(path, where, one_line("YAML syntax error: " + e.msg));
  }
  try {
    return Loader(path).load(root);
  } catch (const YAML::Exception& e) {  // not expected: the loader checks node types first
    throw InputError(path, e.mark.is_null() ? "" : "line " + std::to_string(e.mark.line + 1),
                     one_line(e.msg));
  }
}

}  // namespace pipesim
