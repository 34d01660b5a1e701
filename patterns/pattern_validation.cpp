// validate_pattern: seed 000 Definition 1 and §6.2 on a periodic pattern.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_validation.hpp"
#include "sim/format.hpp"

namespace pipesim {
namespace {

constexpr double kTolerance = 1e-9;  // relative to the period, as in pattern_timing.cpp

std::string num(double v) { return fmt::number(v); }

// "F3", or "F3 copy 1" with several copies (as the pattern file names them).
std::string name(const Pattern& p, int op) {
  const PatternOp& o = p.ops[op];
  const std::string s = (o.kind == TaskKind::Forward ? "F" : "B") + std::to_string(o.layer + 1);
  return p.copies > 1 ? s + " copy " + std::to_string(o.copy) : s;
}
std::string transfer_name(const Pattern& p, int k) { return "the transfer after " + name(p, p.transfers[k].from); }

// Periods a consumer starting at `start` must lag a producer ending at `end`
// (the rule of minimal_shift_step, which this library cannot link).
int lag(double end, double start, double period) {
  const double steps = std::ceil((end - start) / period - kTolerance);
  return !(steps > 0) ? 0 : steps >= kMaxShift ? kMaxShift : static_cast<int>(steps);  // no int overflow
}

class PatternChecker {
 public:
  PatternChecker(const Pattern& p, const Platform& platform) : p_(p), platform_(platform) {}

  std::vector<Violation>& out() { return out_; }

  // Definition 1's form. Returns false when the rest cannot be checked.
  bool structure() {
    const double T = p_.period;
    if (!(T > 0) || !std::isfinite(T)) add("structure", "the period must be positive and finite, got " + num(T));
    if (p_.copies < 1) add("structure", "copies must be at least 1, got " + std::to_string(p_.copies));
    if (p_.layers < 1) add("structure", "at least one layer expected");
    if (!out_.empty()) return false;
    const int L = p_.layers, k = p_.copies;
    std::vector<std::vector<int>> at(2 * L * k);
    for (std::size_t i = 0; i < p_.ops.size(); ++i) {
      const PatternOp& o = p_.ops[i];
      if ((o.kind != TaskKind::Forward && o.kind != TaskKind::Backward) || o.layer < 0 || o.layer >= L || o.copy < 0 ||
          o.copy >= k) {
        add("structure", "op " + std::to_string(i) + " is not F or B of a layer 1.." + std::to_string(L) +
                             " and a copy 0.." + std::to_string(k - 1));
        continue;
      }
      const std::string who = name(p_, static_cast<int>(i));
      if (o.device < 0 || o.device >= platform_.size())
        add("structure", who + " is on no device of the platform");
      else if (!(o.start >= 0 && o.start < T))
        add("structure", who + " starts at " + num(o.start) + ", outside [0, " + num(T) + ")", o.device, o.start);
      at[(p_.task_number(o) - 1) * k + o.copy].push_back(static_cast<int>(i));
    }
    for (int c = 0; c < k; ++c)
      for (int j = 1; j <= 2 * L; ++j) {
        const auto& ops = at[(j - 1) * k + c];
        const std::string task = (j <= L ? "F" + std::to_string(j) : "B" + std::to_string(2 * L - j + 1)) +
                                 (k > 1 ? " copy " + std::to_string(c) : "");
        if (ops.size() != 1)
          add("structure", task + (ops.empty() ? " is missing" : " appears " + std::to_string(ops.size()) + " times") +
                               ": every task must appear exactly once per copy (Definition 1)");
      }
    if (!out_.empty()) return false;
    for (int c = 0; c < k; ++c)
      for (int l = 0; l < L; ++l) {
        const int f = p_.find(l + 1, c), b = p_.find(2 * L - l, c);
        if (p_.ops[f].device != p_.ops[b].device)
          add("structure",
              name(p_, f) + " runs on " + dev(f) + " but " + name(p_, b) + " on " + dev(b) +
                  ": a layer's forward and backward share a device (seed 000 eq. 4)",
              p_.ops[b].device);
      }
    const std::vector<int> succ = p_.successors();
    std::vector<int> transfer(p_.ops.size(), -1);
    for (std::size_t t = 0; t < p_.transfers.size(); ++t) {
      const PatternTransfer& tr = p_.transfers[t];
      if (tr.from < 0 || tr.from >= static_cast<int>(p_.ops.size())) {
        add("structure", "transfer " + std::to_string(t) + " follows no op");
        continue;
      }
      const std::string who = transfer_name(p_, static_cast<int>(t));
      if (succ[tr.from] < 0)
        add("structure", who + ": the last backward sends nothing");
      else if (p_.ops[succ[tr.from]].device == p_.ops[tr.from].device)
        add("structure", who + ": " + name(p_, succ[tr.from]) + " is on the same device, " + dev(tr.from));
      else if (transfer[tr.from] >= 0)
        add("structure", who + " appears twice");
      else if (!(tr.start >= 0 && tr.start < T))
        add("structure", who + " starts at " + num(tr.start) + ", outside [0, " + num(T) + ")", -1, tr.start);
      transfer[tr.from] = static_cast<int>(t);
    }
    for (std::size_t i = 0; i < p_.ops.size(); ++i)
      if (succ[i] >= 0 && p_.ops[succ[i]].device != p_.ops[i].device && transfer[i] < 0)
        add("structure", "no transfer after " + name(p_, static_cast<int>(i)) + " from " + dev(static_cast<int>(i)) +
                             " to " + dev(succ[i]) + " (Definition 1: every T^c_{l,l+1} once)");
    return out_.empty();
  }

  // Exclusive access modulo T: every overlapping pair of one resource.
  void overlaps(const PatternTiming& t) {
    for (int d = 0; d < platform_.size(); ++d) {
      std::vector<int> ops;
      for (std::size_t i = 0; i < p_.ops.size(); ++i)
        if (p_.ops[i].device == d) ops.push_back(static_cast<int>(i));
      std::sort(ops.begin(), ops.end(), [&](int a, int b) { return p_.runs_before(a, b); });
      std::vector<Item> items;
      for (int i : ops) items.push_back({p_.ops[i].start, t.duration[i], name(p_, i)});
      overlaps_of(items, "device " + platform_.devices[d].name, d);
    }
    const std::vector<std::vector<int>> links = transfers_by_link(p_, t);
    for (std::size_t r = 0; r < links.size(); ++r) {
      std::vector<Item> items;
      for (int k : links[r])
        items.push_back({p_.transfers[k].start, t.transfer_duration[p_.transfers[k].from], transfer_name(p_, k)});
      overlaps_of(items, "link " + t.link_names[r], -1);
    }
  }

  // Along each copy's chain, a consumer (the next op, or the transfer and
  // then the next op) handles in period i the micro-batch its producer
  // handled `lag` periods earlier at least: shift(consumer) <= shift(producer) - lag.
  void shifts(const PatternTiming& t) {
    const std::vector<int> succ = p_.successors(), transfer = p_.transfer_of();
    for (std::size_t i = 0; i < p_.ops.size(); ++i) {
      const int s = succ[i];
      if (s < 0) continue;
      const PatternOp& prod = p_.ops[i];
      const End producer{name(p_, static_cast<int>(i)), prod.shift, prod.start + t.duration[i]};
      const Start consumer{name(p_, s), p_.ops[s].shift, p_.ops[s].start, p_.ops[s].device};
      const int k = transfer[i];
      if (k < 0) {
        shift(producer, consumer);
        continue;
      }
      const PatternTransfer& tr = p_.transfers[k];
      shift(producer, {transfer_name(p_, k), tr.shift, tr.start, prod.device});
      shift({transfer_name(p_, k), tr.shift, tr.start + t.transfer_duration[i]}, consumer);
    }
  }

  // A cycle of waits (data, device order, link order) that carries no token
  // of the event graph: none of its tasks can ever start.
  void deadlock(const PatternTiming& t) {
    const TimedEventGraph g = pattern_event_graph(p_, t);
    const int n = static_cast<int>(g.nodes.size());
    // Bellman-Ford with weight tokens * (n + 1) - 1: a cycle is negative
    // exactly when its tokens sum to 0 or less.
    std::vector<long long> dist(n, 0);
    std::vector<int> pred(n, -1);  // arc index
    int changed = -1;
    for (int round = 0; round <= n; ++round) {
      changed = -1;
      for (std::size_t a = 0; a < g.arcs.size(); ++a) {
        const EventArc& arc = g.arcs[a];
        const long long w = static_cast<long long>(arc.tokens) * (n + 1) - 1;
        if (dist[arc.from] + w < dist[arc.to]) {
          dist[arc.to] = dist[arc.from] + w;
          pred[arc.to] = static_cast<int>(a);
          changed = arc.to;
        }
      }
      if (changed < 0) return;
    }
    // The predecessor arcs now close a cycle: walk back until a node repeats.
    std::vector<bool> seen(n, false);
    int x = changed;
    while (!seen[x]) {
      seen[x] = true;
      if (pred[x] < 0) return;  // not expected
      x = g.arcs[pred[x]].from;
    }
    std::string text;
    long long tokens = 0;
    int v = x;
    do {
      const EventArc& arc = g.arcs[pred[v]];
      tokens += arc.tokens;
      text += node_name(v) + " waits (" + arc_kind(arc) + ") for ";
      v = arc.from;
    } while (v != x);
    if (tokens > 0) return;  // not expected
    add("deadlock", "circular wait: " + text + node_name(x) + "; the cycle carries " + std::to_string(tokens) +
                        " tokens in the pattern's event graph, so none of its tasks can start");
  }

  void memory(const PatternTiming& t, const Workload& w) {
    // Lifetime memory replays the unrolled pattern, which shifts that send
    // data back in time or a deadlock make impossible: nothing to measure.
    if (p_.buffers == BufferPolicy::Lifetime && std::any_of(out_.begin(), out_.end(), [](const Violation& v) {
          return v.kind == "shift" || v.kind == "deadlock";
        }))
      return;
    const PatternMemory m = pattern_memory(p_, t, w, platform_.size());
    for (int d = 0; d < platform_.size(); ++d) {
      const PatternDeviceMemory& dm = m.devices[d];
      const double capacity = platform_.devices[d].memory;
      if (capacity <= 0 || !(dm.peak > capacity) || (dm.peak_op < 0 && p_.buffers == BufferPolicy::Seed000)) continue;
      std::string parts;
      for (int c = 0; c < kMemoryCategoryCount; ++c)
        if (dm.breakdown[c] != 0)
          parts += (parts.empty() ? "" : ", ") + std::string(to_string(static_cast<MemoryCategory>(c))) + " " +
                   fmt::bytes(dm.breakdown[c]);
      if (dm.peak_op < 0) {  // lifetime: a buffer received while the device waits
        add("memory",
            platform_.devices[d].name + " between its tasks (steady state) uses " + fmt::bytes(dm.peak) + " of " +
                fmt::bytes(capacity) + " (" + parts + ")",
            d, 0);
        continue;
      }
      const double at = p_.ops[dm.peak_op].start;
      add("memory",
          platform_.devices[d].name + " at t=" + num(at) + " in the period (during " + name(p_, dm.peak_op) +
              ", steady state) uses " + fmt::bytes(dm.peak) + " of " + fmt::bytes(capacity) + " (" + parts + ")",
          d, at);
    }
  }

 private:
  struct Item {
    double start, length;
    std::string name;
  };
  struct End {
    std::string name;
    int shift;
    double end;
  };
  struct Start {
    std::string name;
    int shift;
    double start;
    int device;
  };

  void add(const std::string& kind, const std::string& message, int device = -1,
           double time = std::numeric_limits<double>::quiet_NaN()) {
    out_.push_back({kind, message, device, time});
  }
  std::string dev(int op) const { return platform_.devices.at(p_.ops[op].device).name; }

  std::string interval(const Item& x) const {
    return x.name + " [" + num(x.start) + ", " + num(x.start + x.length) + ")";
  }

  // Items in period order: a before b overlap if a runs into b, or b (past
  // the period's end) into a's next instance.
  void overlaps_of(const std::vector<Item>& items, const std::string& where, int device) {
    const double T = p_.period, tol = kTolerance * T;
    const std::string mod = " (mod period " + num(T) + ")";
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Item& a = items[i];
      if (a.length > T + tol)
        add("overlap",
            where + ": " + interval(a) + " lasts longer than the period " + num(T) +
                ": it overlaps its own next instance",
            device, a.start);
      for (std::size_t j = i + 1; j < items.size(); ++j) {
        const Item& b = items[j];
        if (a.start + a.length > b.start + tol)
          add("overlap", where + ": " + interval(a) + " and " + interval(b) + mod, device, b.start);
        else if (b.start + b.length > a.start + T + tol)
          add("overlap", where + ": " + interval(b) + " and " + interval(a) + mod, device, a.start);
      }
    }
  }

  void shift(const End& producer, const Start& consumer) {
    const int need = lag(producer.end, consumer.start, p_.period);
    if (consumer.shift <= producer.shift - need) return;
    const std::string who = consumer.name + " (shift " + std::to_string(consumer.shift) + ")";
    const std::string from = producer.name + " (shift " + std::to_string(producer.shift) + ")";
    const std::string when = " starts at " + num(consumer.start) + ", ";
    std::string message;
    if (need == 0) {
      const int later = consumer.shift - producer.shift;
      message = who + " has a larger shift than " + from + ", whose output it consumes: it would need a micro-batch " +
                producer.name + " handles " + std::to_string(later) + " period" + (later > 1 ? "s" : "") +
                " later (Definition 1)";
    } else if (need == 1) {
      message = who + when + "before " + from + " ends at " + num(producer.end) +
                ", but does not have a smaller shift (Definition 1)";
    } else {
      message = who + when + "more than " + std::to_string(need - 1) + " period" + (need > 2 ? "s" : "") + " before " +
                from + " ends at " + num(producer.end) + ": its shift must be at most " +
                std::to_string(producer.shift - need) + " (Definition 1, seed 000 Lemma 9)";
    }
    add("shift", message, consumer.device, consumer.start);
  }

  std::string node_name(int v) const {
    const int n = static_cast<int>(p_.ops.size());
    return v < n ? name(p_, v) : transfer_name(p_, v - n);
  }

  // Which constraint an event-graph arc stands for.
  std::string arc_kind(const EventArc& a) const {
    const int n = static_cast<int>(p_.ops.size());
    if (a.from >= n && a.to >= n) return "link order";
    if (a.from >= n || a.to >= n) return "data";
    const bool data = p_.successor(a.from) == a.to && p_.ops[a.from].device == p_.ops[a.to].device &&
                      a.tokens == p_.ops[a.from].shift - p_.ops[a.to].shift;
    return data ? "data" : "device order";
  }

  const Pattern& p_;
  const Platform& platform_;
  std::vector<Violation> out_;
};

}  // namespace

std::vector<Violation> validate_pattern(const Pattern& pattern, const PatternTiming& timing, const Platform& platform,
                                        const Workload& workload) {
  PatternChecker check(pattern, platform);
  if (!check.structure()) return check.out();
  const std::size_t n = pattern.ops.size();
  if (timing.duration.size() != n || timing.output_bytes.size() != n || timing.transfer_duration.size() != n ||
      timing.transfer_links.size() != n)
    throw std::invalid_argument("validate_pattern: the timing does not belong to the pattern");
  check.overlaps(timing);
  check.shifts(timing);
  check.deadlock(timing);
  check.memory(timing, workload);
  return check.out();
}

}  // namespace pipesim
