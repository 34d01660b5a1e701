#include "patterns/pattern_timing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "patterns/link_resources.hpp"
#include "workloads/costs.hpp"

namespace pipesim {
namespace {

constexpr double kTolerance = 1e-9;  // relative to the period

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("pattern: " + what); }

std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Offset of an instant within the period; an instant within round-off of
// the period's end is its start.
double wrap(double t, double period) {
  double r = std::fmod(t, period);
  if (r < 0) r += period;
  return r >= period * (1 - kTolerance) ? 0 : r;
}

// Index of task j (1-based), copy c: at[(j - 1) * copies + c].
std::vector<int> task_table(const Pattern& p) {
  std::vector<int> at(2 * p.layers * p.copies, -1);
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    at[(p.task_number(p.ops[i]) - 1) * p.copies + p.ops[i].copy] = static_cast<int>(i);
  return at;
}

}  // namespace

std::string op_name(const Pattern& p, int op) {
  const PatternOp& o = p.ops[op];
  std::string s = (o.kind == TaskKind::Forward ? "F" : "B") + std::to_string(o.layer + 1);
  return p.copies > 1 ? s + ".c" + std::to_string(o.copy) : s;
}

void check_pattern(const Pattern& p, int device_count, bool require_transfers) {
  if (!(p.period > 0) || !std::isfinite(p.period)) fail("the period must be positive");
  if (p.copies < 1) fail("copies must be at least 1");
  if (p.layers < 1) fail("at least one layer expected");
  if (p.ops.size() != static_cast<std::size_t>(2 * p.layers * p.copies))
    fail("expected " + std::to_string(2 * p.layers * p.copies) + " ops (F and B of every layer and copy), got " +
         std::to_string(p.ops.size()));
  std::vector<int> seen(2 * p.layers * p.copies, -1);
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const PatternOp& o = p.ops[i];
    if (o.kind != TaskKind::Forward && o.kind != TaskKind::Backward) fail("ops must be forwards or backwards");
    if (o.layer < 0 || o.layer >= p.layers || o.copy < 0 || o.copy >= p.copies)
      fail("op " + std::to_string(i) + ": layer or copy out of range");
    const std::string name = op_name(p, static_cast<int>(i));
    if (o.device < 0 || o.device >= device_count) fail(name + ": device out of range");
    if (!(o.start >= 0 && o.start < p.period)) fail(name + ": start offset " + num(o.start) + " outside [0, period)");
    int& slot = seen[(p.task_number(o) - 1) * p.copies + o.copy];
    if (slot >= 0) fail(name + " appears twice");
    slot = static_cast<int>(i);
  }
  for (int l = 0; l < p.layers; ++l)
    for (int c = 0; c < p.copies; ++c) {
      const int f = seen[l * p.copies + c], b = seen[(2 * p.layers - l - 1) * p.copies + c];
      if (p.ops[f].device != p.ops[b].device)
        fail(op_name(p, f) + " and " + op_name(p, b) + " must be on the same device (seed 000 eq. 4)");
    }
  const std::vector<int> succ = p.successors();
  std::vector<int> transfer(p.ops.size(), -1);
  for (std::size_t t = 0; t < p.transfers.size(); ++t) {
    const PatternTransfer& tr = p.transfers[t];
    if (tr.from < 0 || tr.from >= static_cast<int>(p.ops.size())) fail("transfer from an unknown op");
    const std::string name = "the transfer after " + op_name(p, tr.from);
    if (succ[tr.from] < 0) fail(name + ": the last backward sends nothing");
    if (p.ops[succ[tr.from]].device == p.ops[tr.from].device) fail(name + ": its consumer is on the same device");
    if (transfer[tr.from] >= 0) fail(name + " appears twice");
    if (!(tr.start >= 0 && tr.start < p.period))
      fail(name + ": start offset " + num(tr.start) + " outside [0, period)");
    transfer[tr.from] = static_cast<int>(t);
  }
  if (require_transfers)
    for (std::size_t i = 0; i < p.ops.size(); ++i)
      if (succ[i] >= 0 && p.ops[succ[i]].device != p.ops[i].device && transfer[i] < 0)
        fail("missing the transfer after " + op_name(p, static_cast<int>(i)));
}

PatternTiming pattern_timing(const Pattern& p, const Workload& w, const Platform& platform) {
  check_pattern(p, platform.size(), false);
  if (p.layers != static_cast<int>(w.layers.size()))
    fail("it has " + std::to_string(p.layers) + " layers, the workload " + std::to_string(w.layers.size()));
  const double ref = reference_speed(w, platform);
  const std::vector<int> succ = p.successors();
  const std::size_t n = p.ops.size();
  PatternTiming t{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n), std::vector<double>(n), {}};
  t.transfer_links.resize(n);
  LinkResources links(platform, p.links);
  for (const Layer& layer : w.layers) t.weights.push_back(layer.weights);
  for (std::size_t i = 0; i < n; ++i) {
    const PatternOp& o = p.ops[i];
    const Layer& layer = w.layers[o.layer];
    const Device& dev = platform.devices[o.device];
    if (!(dev.speed > 0)) fail("device " + dev.name + " has no speed");
    const bool forward = o.kind == TaskKind::Forward;
    t.flops[i] = cost_flops(forward ? layer.forward : layer.backward, ref);
    t.duration[i] = t.flops[i] / dev.speed;
    t.output_bytes[i] = forward ? layer.activation : (o.layer == 0 ? w.input : w.layers[o.layer - 1].activation);
    if (succ[i] < 0 || p.ops[succ[i]].device == o.device || !(t.output_bytes[i] > 0)) continue;
    const int to = p.ops[succ[i]].device;
    const Path& path = platform.path(o.device, to);
    if (!path.exists || !(path.bandwidth > 0))
      fail(op_name(p, static_cast<int>(i)) + " sends to " + platform.devices[to].name + " but " + dev.name +
           " has no route with bandwidth to it");
    t.transfer_duration[i] = platform.transfer_time(o.device, to, t.output_bytes[i]);
    t.transfer_links[i] = links.route(o.device, to);
  }
  t.link_names = links.names();
  return t;
}

int minimal_shift_step(double end, double start, double period) {
  const double steps = std::ceil((end - start) / period - kTolerance);
  // A task far longer than the period overlaps itself (find_overlap says so);
  // until then its lag must not overflow an int.
  return !(steps > 0) ? 0 : steps >= kMaxShift ? kMaxShift : static_cast<int>(steps);
}

void assign_minimal_shifts(Pattern& p, const PatternTiming& timing) {
  check_pattern(p, std::numeric_limits<int>::max(), false);
  if (timing.duration.size() != p.ops.size() || timing.transfer_duration.size() != p.ops.size())
    fail("timing does not match the pattern");
  const std::vector<int> succ = p.successors();
  std::vector<int> transfer = p.transfer_of();
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (succ[i] >= 0 && p.ops[succ[i]].device != p.ops[i].device && transfer[i] < 0) {
      transfer[i] = static_cast<int>(p.transfers.size());
      p.transfers.push_back({static_cast<int>(i), wrap(p.ops[i].start + timing.duration[i], p.period), 0});
    }
  const std::vector<int> at = task_table(p);
  const double T = p.period;
  // Shifts only grow along the chain; past kMaxShift they would overflow.
  auto bounded = [&](long long shift, int op) {
    if (shift > kMaxShift)
      fail(op_name(p, op) + ": its smallest valid shift exceeds " + std::to_string(kMaxShift) +
           " (tasks or transfers far longer than the period)");
    return static_cast<int>(shift);
  };
  for (int c = 0; c < p.copies; ++c) {
    p.ops[at[(2 * p.layers - 1) * p.copies + c]].shift = 0;
    for (int j = 2 * p.layers - 1; j >= 1; --j) {  // producer task j, consumer j + 1
      PatternOp& prod = p.ops[at[(j - 1) * p.copies + c]];
      const PatternOp& cons = p.ops[at[j * p.copies + c]];
      const double end = prod.start + timing.duration[at[(j - 1) * p.copies + c]];
      const int t = transfer[at[(j - 1) * p.copies + c]];
      const int producer = at[(j - 1) * p.copies + c];
      if (t < 0) {
        prod.shift = bounded(0LL + cons.shift + minimal_shift_step(end, cons.start, T), producer);
        continue;
      }
      PatternTransfer& tr = p.transfers[t];
      tr.shift = bounded(
          0LL + cons.shift + minimal_shift_step(tr.start + timing.transfer_duration[tr.from], cons.start, T), producer);
      prod.shift = bounded(0LL + tr.shift + minimal_shift_step(end, tr.start, T), producer);
    }
  }
}

std::vector<std::vector<int>> transfers_by_link(const Pattern& p, const PatternTiming& t) {
  if (t.transfer_links.size() != p.ops.size()) fail("timing does not match the pattern");
  std::vector<std::vector<int>> on(t.link_names.size());
  for (std::size_t k = 0; k < p.transfers.size(); ++k)
    for (int r : t.transfer_links.at(p.transfers[k].from)) on.at(r).push_back(static_cast<int>(k));
  for (auto& items : on) std::sort(items.begin(), items.end(), [&](int a, int b) { return p.transfer_before(a, b); });
  return on;
}

std::string find_overlap(const Pattern& p, const PatternTiming& timing, const Platform& platform) {
  const double T = p.period;
  // Items of one resource in period order; each must end before the next
  // starts, the last before the first one's start in the next period.
  auto check = [&](std::vector<int>& items, auto before, auto start, auto length, auto name,
                   const std::string& where) -> std::string {
    std::sort(items.begin(), items.end(), before);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const int a = items[i], b = items[(i + 1) % items.size()];
      const bool wraps = i + 1 == items.size();
      const double next = start(b) + (wraps ? T : 0);
      if (start(a) + length(a) > next + kTolerance * T)
        return "on " + where + ", " + name(a) + " (start " + num(start(a)) + ", lasts " + num(length(a)) +
               ") overlaps " +
               (a == b ? "itself in the next period"
                       : name(b) + " (start " + num(start(b)) + (wraps ? " in the next period)" : ")"));
    }
    return "";
  };
  std::vector<std::vector<int>> on_device(platform.size());
  for (std::size_t i = 0; i < p.ops.size(); ++i) on_device.at(p.ops[i].device).push_back(static_cast<int>(i));
  for (int d = 0; d < platform.size(); ++d) {
    const std::string s = check(
        on_device[d], [&](int a, int b) { return p.runs_before(a, b); }, [&](int a) { return p.ops[a].start; },
        [&](int a) { return timing.duration[a]; }, [&](int a) { return op_name(p, a); }, platform.devices[d].name);
    if (!s.empty()) return s;
  }
  std::vector<std::vector<int>> on_link = transfers_by_link(p, timing);
  for (std::size_t r = 0; r < on_link.size(); ++r) {
    const std::string s = check(
        on_link[r], [&](int a, int b) { return p.transfer_before(a, b); }, [&](int t) { return p.transfers[t].start; },
        [&](int t) { return timing.transfer_duration[p.transfers[t].from]; },
        [&](int t) { return "the transfer after " + op_name(p, p.transfers[t].from); },
        "the link " + timing.link_names[r]);
    if (!s.empty()) return s;
  }
  return "";
}

}  // namespace pipesim
