#include "patterns/pattern_analysis.hpp"

#include "patterns/pattern_steady_memory.hpp"
#include "patterns/pattern_unroll.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace pipesim {
namespace {

void check_timing(const Pattern& p, const PatternTiming& t) {
  const std::size_t n = p.ops.size();
  if (p.ops.size() != static_cast<std::size_t>(2 * p.layers * p.copies) || t.duration.size() != n ||
      t.output_bytes.size() != n || t.transfer_duration.size() != n || t.transfer_links.size() != n)
    throw std::invalid_argument("pattern analysis: the timing does not match the pattern");
}

std::string name(const Pattern& p, int op) {
  const PatternOp& o = p.ops[op];
  const std::string s = (o.kind == TaskKind::Forward ? "F" : "B") + std::to_string(o.layer + 1);
  return p.copies > 1 ? s + ".c" + std::to_string(o.copy) : s;
}

// A cycle through the items in order: 0 tokens, 1 from the last back to the first.
template <class Node, class Delay>
void add_cycle(TimedEventGraph& g, const std::vector<int>& items, Node node, Delay delay) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    const int next = items[(i + 1) % items.size()];
    g.add_arc(node(items[i]), node(next), delay(items[i]), i + 1 == items.size() ? 1 : 0);
  }
}

std::vector<std::vector<int>> device_orders(const Pattern& p, int device_count) {
  std::vector<std::vector<int>> order(device_count);
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const int d = p.ops[i].device;
    if (d < 0 || d >= device_count) throw std::invalid_argument("pattern analysis: op on an unknown device");
    order[d].push_back(static_cast<int>(i));
  }
  for (auto& items : order) std::sort(items.begin(), items.end(), [&](int a, int b) { return p.runs_before(a, b); });
  return order;
}

double total(const MemoryBreakdown& b) {
  double sum = 0;
  for (double v : b) sum += v;
  return sum;
}

// Lifetime buffers: levels depend on when transfers start and end, so the
// steady state is replayed (pattern_steady_memory.hpp); `during` and the
// peak op from the op running at each reading. So are programmed ops.
void replayed_peaks(const Pattern& p, const PatternTiming& t, int device_count, PatternMemory& result) {
  const SteadyRange range = steady_range(p);
  const TimedUnroll u = unroll_pattern_timed(p, t, device_count, steady_microbatches(p, range));
  const std::vector<double> start = earliest_starts(u);
  std::vector<double> finish(start.size());
  for (std::size_t i = 0; i < start.size(); ++i) finish[i] = start[i] + u.duration[i];
  const auto [from, to] = steady_window(u, start, range);
  // Per device, its op instances in order: the one running at a reading is
  // the last started at or before it, if it has not finished (or is empty and starts then).
  std::vector<std::vector<TaskId>> ops(device_count);
  for (int d = 0; d < device_count; ++d) ops[d] = u.graph.device_order(d);
  std::vector<char> during_seen(p.ops.size(), 0);
  result.during.assign(p.ops.size(), MemoryBreakdown{});
  for (PatternDeviceMemory& dev : result.devices) dev.peak_op = -1, dev.peak = -1;
  window_readings(u.graph, start, finish, from, to, [&](double time, int d, const MemoryBreakdown& level) {
    const auto& order = ops[d];
    const auto after =
        std::upper_bound(order.begin(), order.end(), time, [&](double x, TaskId id) { return x < start[id]; });
    int op = -1;
    if (after != order.begin()) {
      const TaskId id = *(after - 1);
      if (finish[id] > time || start[id] == time) op = u.op[id];
    }
    const double sum = total(level);
    PatternDeviceMemory& dev = result.devices[d];
    if (sum > dev.peak) {
      dev.peak = sum;
      dev.breakdown = level;
      dev.peak_op = op;
    }
    if (op >= 0 && (!during_seen[op] || sum > total(result.during[op]))) {
      during_seen[op] = 1;
      result.during[op] = level;
    }
  });
  for (PatternDeviceMemory& dev : result.devices) dev.peak = std::max(dev.peak, 0.0);
}

}  // namespace

TimedEventGraph pattern_event_graph(const Pattern& p, const PatternTiming& t) {
  check_timing(p, t);
  const int n = static_cast<int>(p.ops.size());
  const std::vector<int> succ = p.successors();
  const std::vector<int> transfer = p.transfer_of();
  TimedEventGraph g;
  // Sized once: a flush schedule's pattern has every task of an iteration.
  g.nodes.reserve(p.ops.size() + p.transfers.size());
  std::size_t chain_arcs = 0;
  for (int i = 0; i < n; ++i)
    if (succ[i] >= 0) chain_arcs += transfer[i] < 0 ? 1 : 2;
  g.arcs.reserve(chain_arcs + p.ops.size() + p.transfers.size());  // chains, device and link cycles
  for (int i = 0; i < n; ++i) g.add_node(name(p, i));
  for (const PatternTransfer& tr : p.transfers) g.add_node(name(p, tr.from) + "->" + name(p, succ.at(tr.from)));
  auto transfer_node = [&](int t) { return n + t; };

  for (int i = 0; i < n; ++i) {
    const int s = succ[i];
    if (s < 0) continue;
    const int tr = transfer[i];
    if (tr < 0) {
      if (p.ops[s].device != p.ops[i].device)
        throw std::invalid_argument("pattern analysis: no transfer after " + name(p, i));
      g.add_arc(i, s, t.duration[i], p.ops[i].shift - p.ops[s].shift);
      continue;
    }
    const int shift = p.transfers[tr].shift;
    g.add_arc(i, transfer_node(tr), t.duration[i], p.ops[i].shift - shift);
    g.add_arc(transfer_node(tr), s, t.transfer_duration[i], shift - p.ops[s].shift);
  }
  int devices = 0;
  for (const PatternOp& o : p.ops) devices = std::max(devices, o.device + 1);
  for (const auto& items : device_orders(p, devices))
    add_cycle(
        g, items, [](int i) { return i; }, [&](int i) { return t.duration[i]; });

  // One cycle per link resource: a transfer holding several gets an arc on each.
  for (const auto& items : transfers_by_link(p, t))
    add_cycle(g, items, transfer_node, [&](int k) { return t.transfer_duration[p.transfers[k].from]; });
  return g;
}

PatternMemory pattern_memory(const Pattern& p, const PatternTiming& t, const Workload& w, int device_count) {
  check_timing(p, t);
  if (w.layers.size() != static_cast<std::size_t>(p.layers))
    throw std::invalid_argument("pattern analysis: the workload has another layer count");
  const int n = static_cast<int>(p.ops.size());
  const std::vector<int> succ = p.successors();
  std::vector<int> pred(n, -1), backward(n, -1);
  for (int i = 0; i < n; ++i)
    if (succ[i] >= 0) pred[succ[i]] = i;
  std::vector<int> backward_at(p.layers * p.copies, -1);  // F_l -> B_l of the same copy
  for (int i = 0; i < n; ++i)
    if (p.ops[i].kind == TaskKind::Backward) backward_at[p.ops[i].layer * p.copies + p.ops[i].copy] = i;
  for (int i = 0; i < n; ++i)
    if (p.ops[i].kind == TaskKind::Forward) backward[i] = backward_at[p.ops[i].layer * p.copies + p.ops[i].copy];
  const auto order = device_orders(p, device_count);
  for (int i = 0; i < n; ++i)
    if (p.ops[i].kind == TaskKind::Forward && (backward[i] < 0 || p.ops[backward[i]].device != p.ops[i].device))
      throw std::invalid_argument("pattern analysis: " + name(p, i) + " and its backward must share a device");

  PatternMemory result;
  result.devices.resize(device_count);
  result.during.assign(n, MemoryBreakdown{});
  result.stash_counts.assign(p.layers, 0);
  const auto act = static_cast<int>(MemoryCategory::Activations);
  const auto buf = static_cast<int>(MemoryCategory::CommBuffers);

  // One walk along each device's period order (Lemmas 8 and 10): stashes
  // start at s(F) - s(B) per layer-copy, +1 when F starts (its input is the
  // stash), -1 once B has ended; direct dependencies j -> j+1 start at
  // s(j) - s(j+1), +1 once j has ended, -1 when j+1 starts (it holds it as input).
  for (int d = 0; d < device_count; ++d) {
    PatternDeviceMemory& dev = result.devices[d];
    std::vector<int> layer_count(p.layers, 0);
    double stashed = 0, direct = 0;
    for (int f : order[d])
      if (p.ops[f].kind == TaskKind::Forward) {
        const int count = p.ops[f].shift - p.ops[backward[f]].shift;
        stashed += count * t.output_bytes[backward[f]];  // B_l's output has the size of F_l's input a_{l-1}
        layer_count[p.ops[f].layer] += count;
      }
    for (int j : order[d])
      if (succ[j] >= 0 && p.ops[succ[j]].device == d)
        direct += (p.ops[j].shift - p.ops[succ[j]].shift) * t.output_bytes[j];
    auto note_in_flight = [&](int layer) {
      dev.in_flight = std::max(dev.in_flight, layer_count[layer]);
      result.stash_counts[layer] = std::max(result.stash_counts[layer], layer_count[layer]);
    };
    for (int l = 0; l < p.layers; ++l) note_in_flight(l);
    for (int x : order[d]) {
      const PatternOp& op = p.ops[x];
      if (op.kind == TaskKind::Forward) {
        stashed += t.output_bytes[backward[x]];
        ++layer_count[op.layer];
        note_in_flight(op.layer);
      }
      if (pred[x] >= 0 && p.ops[pred[x]].device == d) direct -= t.output_bytes[pred[x]];
      MemoryBreakdown& m = result.during[x];
      m[act] += stashed;
      // Working tensors: the output, and a backward's input gradient (a
      // forward's input is counted as its stash).
      m[buf] += direct + t.output_bytes[x];
      if (op.kind == TaskKind::Backward) m[buf] += t.output_bytes[pred[x]];
      if (op.kind == TaskKind::Backward) {
        stashed -= t.output_bytes[x];
        --layer_count[op.layer];
      }
      if (succ[x] >= 0 && p.ops[succ[x]].device == d) direct += t.output_bytes[x];
    }
  }

  // A memory-saving program's steps change levels inside an op: replayed too.
  if (p.buffers == BufferPolicy::Lifetime || !t.steps.empty()) {
    replayed_peaks(p, t, device_count, result);
    return result;
  }

  // Static memory: weights per policy, gradients, communication buffers (eqs. 33-35).
  std::vector<std::vector<char>> holds(device_count, std::vector<char>(p.layers, 0));
  for (const PatternOp& o : p.ops) holds[o.device][o.layer] = 1;
  std::vector<double> buffers(device_count, 0);
  for (int i = 0; i < n; ++i)
    if (succ[i] >= 0 && p.ops[succ[i]].device != p.ops[i].device) {
      buffers[p.ops[i].device] += t.output_bytes[i];
      buffers[p.ops[succ[i]].device] += t.output_bytes[i];
    }
  for (int d = 0; d < device_count; ++d) {
    PatternDeviceMemory& dev = result.devices[d];
    double weights = 0;
    for (int l = 0; l < p.layers; ++l)
      if (holds[d][l]) weights += w.layers[l].weights;
    MemoryBreakdown fixed{};
    fixed[static_cast<int>(MemoryCategory::Weights)] = weight_versions(p.weights, dev.in_flight) * weights;
    fixed[static_cast<int>(MemoryCategory::Gradients)] = weights;
    fixed[buf] = buffers[d];
    auto total = [](const MemoryBreakdown& b) {
      double sum = 0;
      for (double v : b) sum += v;
      return sum;
    };
    dev.breakdown = fixed;
    dev.peak = total(fixed);
    for (int x : order[d]) {
      MemoryBreakdown& m = result.during[x];
      // Static levels first, as the simulation's replay adds them.
      for (int c = 0; c < kMemoryCategoryCount; ++c) m[c] = fixed[c] + m[c];
      if (t.duration[x] > 0 && (dev.peak_op < 0 || total(m) > dev.peak)) {
        dev.peak = total(m);
        dev.breakdown = m;
        dev.peak_op = x;
      }
    }
  }
  return result;
}

}  // namespace pipesim
