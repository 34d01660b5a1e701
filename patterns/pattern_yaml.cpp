#include "patterns/pattern_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <tuple>

#include "patterns/pattern_timing.hpp"
#include "sim/input_error.hpp"
#include "sim/units.hpp"
#include "sim/yaml_fields.hpp"

namespace pipesim {
namespace {

// A refusal of the whole pattern (its timing, shifts or overlaps) names ops
// or transfers rather than one entry: the field is the list that holds them.
InputError pattern_error(const std::string& file, std::string what) {
  if (what.rfind("pattern: ", 0) == 0) what.erase(0, 9);
  const bool transfers =
      what.rfind("on the link", 0) == 0 || what.rfind("transfer", 0) == 0 || what.rfind("missing the transfer", 0) == 0;
  return InputError(file, transfers ? "transfers" : "tasks", what);
}

const std::vector<std::string> kTopKeys = {"period", "copies", "weights", "links", "tasks", "transfers"};
const std::vector<std::string> kTaskKeys = {"task", "copy", "device", "start", "shift"};
const std::vector<std::string> kTransferKeys = {"after", "copy", "start", "shift"};

// Shortest text that reads back as the same double.
std::string number(double v) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

// Pattern files keep their own messages: newlines become spaces, no "did you
// mean" on unknown keys, and a non-scalar key is reported as an unknown key.
constexpr YamlStyle kPatternStyle{false, false, false};

// Reads one pattern file; the field helpers come from YamlFields.
class Reader : public YamlFields {
 public:
  Reader(std::string file, const Platform& platform, int layers)
      : YamlFields(std::move(file), kPatternStyle), platform_(platform), layers_(layers) {}

  Pattern read(const YAML::Node& root, PatternSource& src) {
    src = PatternSource{};
    src.file = file();
    const char* top = "a map with period, tasks and optionally copies, weights, links, transfers";
    if (!root.IsMap()) fail(root, "document", std::string("expected ") + top + ", got " + describe(root));
    const Fields f = fields(root, "", &kTopKeys);
    Pattern p;
    p.period = seconds(require(f, root, "", "period", "a period in seconds"), "period");
    if (!(p.period > 0 && p.period <= kMaxPeriod))
      fail(f.at("period").value, "period",
           "expected a positive period of at most 1e200 s, got " + describe(f.at("period").value));
    if (auto* e = get(f, "copies")) p.copies = integer(e->value, "copies", 1, kMaxCopies);
    if (auto* e = get(f, "weights")) p.weights = weights(e->value);
    if (auto* e = get(f, "links")) p.links = links(e->value);
    read_tasks(require(f, root, "", "tasks", "a list of tasks"), p, src);
    if (auto* e = get(f, "transfers")) read_transfers(e->value, p, src);
    return p;
  }

 private:
  double seconds(const YAML::Node& n, const std::string& path) const {
    return quantity(n, path, "a duration in seconds", parse_seconds);
  }

  long long integer(const YAML::Node& n, const std::string& path, long long min, long long max) const {
    const std::string expected = "an integer in " + std::to_string(min) + ".." + std::to_string(max);
    return YamlFields::integer(n, path, expected, min, max);
  }

  WeightPolicy weights(const YAML::Node& n) const {
    const std::string s = lower(scalar(n, "weights", "flush, 2bw or stashing"));
    for (WeightPolicy w : {WeightPolicy::Flush, WeightPolicy::TwoBW, WeightPolicy::Stashing})
      if (s == to_string(w)) return w;
    fail(n, "weights", "expected flush, 2bw or stashing, got " + describe(n));
  }

  LinkModel links(const YAML::Node& n) const {
    const std::string s = lower(scalar(n, "links", "platform or pair"));
    for (LinkModel m : {LinkModel::Platform, LinkModel::Pair})
      if (s == to_string(m)) return m;
    fail(n, "links", "expected platform or pair, got " + describe(n));
  }

  // "F3" or "B3" (1-based layer, as in seed 000) -> kind and 0-based layer.
  std::pair<TaskKind, int> task(const YAML::Node& n, const std::string& path) const {
    const std::string range = layers_ > 0 ? " with l in 1.." + std::to_string(layers_) : "";
    const std::string expected = "a task F<l> or B<l>" + range + " (1-based layers, as in seed 000)";
    const std::string s = scalar(n, path, expected);
    long long l = 0;
    const bool ok = s.size() >= 2 && (s[0] == 'F' || s[0] == 'B') &&
                    std::all_of(s.begin() + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
                    std::from_chars(s.data() + 1, s.data() + s.size(), l).ec == std::errc() && l >= 1 &&
                    (layers_ <= 0 || l <= layers_);
    if (!ok) fail(n, path, "expected " + expected + ", got '" + s + "'");
    return {s[0] == 'F' ? TaskKind::Forward : TaskKind::Backward, static_cast<int>(l - 1)};
  }

  std::string name(TaskKind kind, int layer, int copy, int copies) const {
    const std::string s = (kind == TaskKind::Forward ? "F" : "B") + std::to_string(layer + 1);
    return copies > 1 ? s + " copy " + std::to_string(copy) : s;
  }

  int copy(const Fields& f, const std::string& path, int copies) const {
    auto* e = get(f, "copy");
    return e ? static_cast<int>(integer(e->value, path + ".copy", 0, copies - 1)) : 0;
  }

  double start(const YAML::Node& n, const std::string& path, double period) const {
    const double s = seconds(n, path);
    if (!(s >= 0 && s < period))
      fail(n, path, "expected an offset in [0, period) = [0, " + number(period) + "), got " + describe(n));
    return s;
  }

  void read_tasks(const YAML::Node& list, Pattern& p, PatternSource& src) {
    if (!list.IsSequence() || list.size() == 0)
      fail(list, "tasks",
           "expected a non-empty list of tasks, got " + (list.IsSequence() ? "an empty list" : describe(list)));
    src.tasks_line = list.Mark().is_null() ? 0 : list.Mark().line + 1;
    std::map<std::tuple<TaskKind, int, int>, std::size_t> seen;  // (kind, layer, copy) -> index in tasks[]
    std::vector<YAML::Node> device_nodes;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node n = list[i];
      const std::string path = item("tasks", i);
      if (!n.IsMap()) fail(n, path, "expected a map {task: F1, device: NAME, start: SECONDS}, got " + describe(n));
      const Fields f = fields(n, path, &kTaskKeys);
      PatternOp op;
      std::tie(op.kind, op.layer) = task(require(f, n, path, "task", "a task like F1"), path + ".task");
      op.copy = copy(f, path, p.copies);
      const YAML::Node& dev = require(f, n, path, "device", "a device name");
      const std::string device = scalar(dev, path + ".device", "a device name");
      op.device = platform_.find(device);
      if (op.device < 0) {
        std::vector<std::string> names;
        for (const Device& d : platform_.devices) names.push_back(d.name);
        fail(dev, path + ".device", "unknown device '" + device + "' (expected one of: " + join(names) + ")");
      }
      op.start = start(require(f, n, path, "start", "an offset in seconds"), path + ".start", p.period);
      const Entry* shift = get(f, "shift");
      if (shift) op.shift = static_cast<int>(integer(shift->value, path + ".shift", -kMaxShift, kMaxShift));
      auto [it, fresh] = seen.insert({{op.kind, op.layer, op.copy}, i});
      if (!fresh)
        fail(
            f.at("task").value, path + ".task",
            "duplicate " + name(op.kind, op.layer, op.copy, p.copies) + " (already " + item("tasks", it->second) + ")");
      p.ops.push_back(op);
      device_nodes.push_back(dev);
      src.op_line.push_back(n.Mark().is_null() ? 0 : n.Mark().line + 1);
      src.op_item.push_back(static_cast<int>(i));
      src.op_shift.push_back(shift != nullptr);
    }
    p.layers = layers_;
    for (const PatternOp& op : p.ops) p.layers = std::max(p.layers, op.layer + 1);
    for (int c = 0; c < p.copies; ++c)
      for (TaskKind kind : {TaskKind::Forward, TaskKind::Backward})
        for (int l = 0; l < p.layers; ++l)
          if (!seen.count({kind, l, c}))
            fail(list, "tasks",
                 "missing " + name(kind, l, c, p.copies) + ": every F1..F" + std::to_string(p.layers) + " and B1..B" +
                     std::to_string(p.layers) + " must appear" + (p.copies > 1 ? " for every copy" : ""));
    for (int c = 0; c < p.copies; ++c)
      for (int l = 0; l < p.layers; ++l) {
        const std::size_t f = seen.at({TaskKind::Forward, l, c}), b = seen.at({TaskKind::Backward, l, c});
        if (p.ops[f].device == p.ops[b].device) continue;
        const std::size_t later = std::max(f, b), other = std::min(f, b);
        fail(device_nodes[later], item("tasks", later) + ".device",
             name(p.ops[later].kind, l, c, p.copies) + " must run on the device of " +
                 name(p.ops[other].kind, l, c, p.copies) + " (seed 000 eq. 4), " +
                 platform_.devices[p.ops[other].device].name + ", got " + platform_.devices[p.ops[later].device].name);
      }
  }

  void read_transfers(const YAML::Node& list, Pattern& p, PatternSource& src) {
    if (list.IsNull()) return;
    if (!list.IsSequence()) fail(list, "transfers", "expected a list of transfers, got " + describe(list));
    std::map<int, std::size_t> seen;  // producer op -> index in transfers[]
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node n = list[i];
      const std::string path = item("transfers", i);
      if (!n.IsMap()) fail(n, path, "expected a map {after: F1, start: SECONDS}, got " + describe(n));
      const Fields f = fields(n, path, &kTransferKeys);
      const YAML::Node& after = require(f, n, path, "after", "the task whose output is sent, like F1");
      const auto [kind, layer] = task(after, path + ".after");
      if (layer >= p.layers)
        fail(after, path + ".after", "no such task: the pattern has " + std::to_string(p.layers) + " layers");
      const int c = copy(f, path, p.copies);
      const int from = p.find(kind == TaskKind::Forward ? layer + 1 : 2 * p.layers - layer, c);
      const std::string who = name(kind, layer, c, p.copies);
      const int to = p.successor(from);
      if (to < 0) fail(after, path + ".after", who + " is the last task: it sends nothing");
      if (p.ops[to].device == p.ops[from].device)
        fail(after, path + ".after",
             who + " and its successor both run on " + platform_.devices[p.ops[from].device].name + ": no transfer");
      auto [it, fresh] = seen.insert({from, i});
      if (!fresh)
        fail(after, path + ".after",
             "duplicate transfer after " + who + " (already " + item("transfers", it->second) + ")");
      PatternTransfer tr;
      tr.from = from;
      tr.start = start(require(f, n, path, "start", "an offset in seconds"), path + ".start", p.period);
      const Entry* shift = get(f, "shift");
      if (shift) tr.shift = static_cast<int>(integer(shift->value, path + ".shift", -kMaxShift, kMaxShift));
      p.transfers.push_back(tr);
      src.transfer_line.push_back(n.Mark().is_null() ? 0 : n.Mark().line + 1);
      src.transfer_item.push_back(static_cast<int>(i));
      src.transfer_shift.push_back(shift != nullptr);
    }
  }

  const Platform& platform_;
  int layers_;
};

// "line 7: tasks[2].shift" for an op's or a transfer's field.
std::string where(int line, const std::string& list, int index, const std::string& field) {
  return (line > 0 ? "line " + std::to_string(line) + ": " : "") + YamlFields::item(list, index) + "." + field;
}

// Fills or checks the shifts, then checks exclusive access.
Pattern make_ready(Pattern p, const PatternSource& src, const Workload& w, const Platform& platform) {
  const std::string& file = src.file;
  if (p.layers != static_cast<int>(w.layers.size()))
    throw InputError(
        file, "tasks",
        "the pattern has " + std::to_string(p.layers) + " layers, the workload " + std::to_string(w.layers.size()));
  PatternTiming t;
  try {
    t = pattern_timing(p, w, platform);
  } catch (const std::invalid_argument& e) {
    throw pattern_error(file, e.what());
  }
  const std::vector<int> succ = p.successors();
  std::vector<int> transfer = p.transfer_of();
  bool complete = std::all_of(src.op_shift.begin(), src.op_shift.end(), [](bool b) { return b; }) &&
                  std::all_of(src.transfer_shift.begin(), src.transfer_shift.end(), [](bool b) { return b; });
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    complete = complete && !(succ[i] >= 0 && p.ops[succ[i]].device != p.ops[i].device && transfer[i] < 0);
  auto op_where = [&](int i) { return where(src.op_line[i], "tasks", src.op_item[i], "shift"); };
  auto tr_where = [&](int k) { return where(src.transfer_line[k], "transfers", src.transfer_item[k], "shift"); };

  if (!complete) {
    Pattern q = p;
    try {
      assign_minimal_shifts(q, t);
    } catch (const std::invalid_argument& e) {
      throw pattern_error(file, e.what());
    }
    const std::string why =
        " (the smallest valid shift: shifts are computed because some shift or transfer is "
        "missing; give them all to choose larger ones), got ";
    for (std::size_t i = 0; i < p.ops.size(); ++i)
      if (src.op_shift[i] && q.ops[i].shift != p.ops[i].shift)
        throw InputError(file, op_where(i),
                         "expected " + std::to_string(q.ops[i].shift) + why + std::to_string(p.ops[i].shift));
    for (std::size_t k = 0; k < p.transfers.size(); ++k)
      if (src.transfer_shift[k] && q.transfers[k].shift != p.transfers[k].shift)
        throw InputError(
            file, tr_where(k),
            "expected " + std::to_string(q.transfers[k].shift) + why + std::to_string(p.transfers[k].shift));
    p = q;
  } else {
    // Each step producer -> consumer lags at least minimal_shift_step periods.
    auto check = [&](const std::string& at, int shift, double end, int next_shift, double next_start,
                     const std::string& what) {
      const int need = next_shift + minimal_shift_step(end, next_start, p.period);
      if (shift < need)
        throw InputError(file, at,
                         "expected at least " + std::to_string(need) + ": " + what + " ends at " + number(end) +
                             " and its consumer starts at " + number(next_start) + " with shift " +
                             std::to_string(next_shift) + " (seed 000 Definition 1), got " + std::to_string(shift));
    };
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      const int s = succ[i];
      if (s < 0) continue;
      const PatternOp& o = p.ops[i];
      const std::string who = op_name(p, static_cast<int>(i));
      const int k = transfer[i];
      if (k < 0) {
        check(op_where(i), o.shift, o.start + t.duration[i], p.ops[s].shift, p.ops[s].start, who);
        continue;
      }
      const PatternTransfer& tr = p.transfers[k];
      check(op_where(i), o.shift, o.start + t.duration[i], tr.shift, tr.start, who);
      check(tr_where(k), tr.shift, tr.start + t.transfer_duration[i], p.ops[s].shift, p.ops[s].start,
            "the transfer after " + who);
    }
  }
  const std::string overlap = find_overlap(p, t, platform);
  if (!overlap.empty()) throw pattern_error(file, overlap + " (seed 000 Definition 1: exclusive access)");
  return p;
}

}  // namespace

Pattern parse_pattern_yaml(const std::string& text, const std::string& file, const Platform& platform, int layers,
                           PatternSource* source) {
  PatternSource local;
  Reader reader(file, platform, layers);
  return reader.parse(text, [&](const YAML::Node& root) { return reader.read(root, source ? *source : local); });
}

Pattern read_pattern_yaml(const std::string& path, const Platform& platform, int layers, PatternSource* source) {
  return parse_pattern_yaml(read_yaml_file(path), path, platform, layers, source);
}

Pattern load_pattern_text(const std::string& text, const std::string& file, const Workload& workload,
                          const Platform& platform) {
  PatternSource src;
  const Pattern p = parse_pattern_yaml(text, file, platform, static_cast<int>(workload.layers.size()), &src);
  return make_ready(p, src, workload, platform);
}

Pattern load_pattern(const std::string& path, const Workload& workload, const Platform& platform) {
  return load_pattern_text(read_yaml_file(path), path, workload, platform);
}

Pattern load_workload_pattern(const Workload& w, const Platform& platform) {
  for (const auto& [param, value] : w.schedule_params)
    if (param != "file" && param != "memory_policy")
      throw InputError(w.file, "schedule." + param,
                       "unknown parameter '" + param + "' for schedule 'pattern' (expected: file, memory_policy)");
  const auto file = w.schedule_params.find("file");
  if (file == w.schedule_params.end() || file->second.empty())
    throw InputError(w.file, "schedule.file",
                     "missing: the pattern file, as in schedule: {name: pattern, file: my.pattern.yaml}");
  if (!w.placement.automatic || w.placement.stages != 0)
    throw InputError(w.file, "placement", "not used with schedule 'pattern': the pattern file places every task");
  return load_pattern(schedule_file_path(w), w, platform);
}

void write_pattern_yaml(std::ostream& out, const Pattern& p, const Platform& platform) {
  auto task = [&](int op) {
    const PatternOp& o = p.ops[op];
    return (o.kind == TaskKind::Forward ? "F" : "B") + std::to_string(o.layer + 1);
  };
  // Plain when YAML reads it back as the same string, else double-quoted.
  auto device = [&](int d) {
    const std::string& s = platform.devices.at(d).name;
    const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/';
    }) && std::isalpha(static_cast<unsigned char>(s[0]));
    if (plain) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return q + "\"";
  };
  auto key = [&](int op) { return std::make_pair(p.ops[op].copy, p.task_number(p.ops[op])); };
  std::vector<int> ops(p.ops.size()), transfers(p.transfers.size());
  for (std::size_t i = 0; i < ops.size(); ++i) ops[i] = static_cast<int>(i);
  for (std::size_t i = 0; i < transfers.size(); ++i) transfers[i] = static_cast<int>(i);
  std::sort(ops.begin(), ops.end(), [&](int a, int b) { return key(a) < key(b); });
  std::sort(transfers.begin(), transfers.end(),
            [&](int a, int b) { return key(p.transfers[a].from) < key(p.transfers[b].from); });

  out << "# Periodic pattern (seed 000 Definition 1), format: docs/pattern-format.md\n"
      << "period: " << number(p.period) << "\n"
      << "copies: " << p.copies << "\n"
      << "weights: " << to_string(p.weights) << "\n"
      << (p.links == LinkModel::Platform ? "" : "links: " + std::string(to_string(p.links)) + "\n") << "tasks:\n";
  for (int i : ops) {
    const PatternOp& o = p.ops[i];
    out << "  - {task: " << task(i) << ", copy: " << o.copy << ", device: " << device(o.device)
        << ", start: " << number(o.start) << ", shift: " << o.shift << "}\n";
  }
  out << "transfers:" << (transfers.empty() ? " []" : "") << "\n";
  for (int k : transfers) {
    const PatternTransfer& t = p.transfers[k];
    out << "  - {after: " << task(t.from) << ", copy: " << p.ops[t.from].copy << ", start: " << number(t.start)
        << ", shift: " << t.shift << "}\n";
  }
}

}  // namespace pipesim
