#include "schedules/memory_saving/transfer_replay.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace pipesim::memory_saving {

namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();

struct Change {
  double time;
  double amount;  // > 0 allocation, < 0 release
};

}  // namespace

std::vector<Operation> replay_with_transfers(const Chain& chain, const std::vector<Step>& steps, double bandwidth) {
  const int L = chain.length();
  std::vector<bool> plain(L + 1, false), tape(L + 1, false), on_cpu(L + 1, false);
  std::vector<bool> cpu_tape(L + 1, false);  // the CPU copy is ā^i (offloaded after F_all^i), not a^i
  std::vector<double> arrival(L + 1, kNever), offload_end(L + 1, kNever);
  int gradient = L;  // δ^L is counted from the start, like a^0
  double gpu_free = 0, link_free = 0;
  std::vector<Change> changes{{0, chain.input_size + chain.delta(L)}};
  std::vector<Operation> ops;
  ops.reserve(steps.size());
  for (std::size_t n = 0; n < steps.size(); ++n) {
    const auto [kind, i] = steps[n];
    auto fail = [&](const std::string& why) {
      throw std::logic_error("step " + std::to_string(n) + " (" + op_kind_name(kind) + " " + std::to_string(i) +
                             "): " + why);
    };
    if (i < 1 || i > L) fail("no such layer");
    const ChainLayer& layer = chain.layers[i - 1];
    // a^{i-1} on the GPU (a^0 always; inside ā^{i-1} after F_all^{i-1}).
    const bool input_there = i == 1 || plain[i - 1] || tape[i - 1];
    const double input_ready = i == 1 ? 0 : arrival[i - 1];
    auto free_input_at = [&](double end) {
      if (i == 1 || !plain[i - 1]) return;
      if (offload_end[i - 1] > end) fail("input freed before its offload ends");
      plain[i - 1] = false;
      changes.push_back({end, -chain.a(i - 1)});
    };
    auto transfer_time = [&](double size) {
      if (size == 0) return 0.0;
      if (bandwidth <= 0) fail("transfer over a link of bandwidth 0");
      return size / bandwidth;
    };
    Operation op{kind, i, 0, 0, 0};
    switch (kind) {
      case OpKind::ForwardCheckpoint:
      case OpKind::ForwardNone:
      case OpKind::ForwardAll: {
        if (!input_there) fail("input activation missing");
        const bool all = kind == OpKind::ForwardAll;
        if (all ? tape[i] : (plain[i] || tape[i])) fail("output already there");
        op.start = std::max(gpu_free, input_ready);
        op.duration = layer.forward_time;
        const double end = op.start + op.duration;
        const double kept = all ? layer.tape_size : layer.output_size;
        changes.push_back({op.start, kept + layer.forward_overhead});
        changes.push_back({end, -layer.forward_overhead});
        if (all && plain[i]) changes.push_back({end, -layer.output_size}), plain[i] = false;  // the tape has a^i
        (all ? tape : plain)[i] = true;
        arrival[i] = end;
        on_cpu[i] = false;
        offload_end[i] = kNever;
        if (kind == OpKind::ForwardNone) free_input_at(end);
        gpu_free = end;
        break;
      }
      case OpKind::Backward: {
        if (gradient != i) fail("gradient missing");
        if (!tape[i]) fail("tape missing");
        if (!input_there) fail("input activation missing");
        op.start = std::max({gpu_free, input_ready, arrival[i]});
        op.duration = layer.backward_time;
        const double end = op.start + op.duration;
        changes.push_back({op.start, chain.delta(i - 1) + layer.backward_overhead});
        changes.push_back({end, -(layer.backward_overhead + chain.delta(i) + layer.tape_size)});
        tape[i] = false;
        gradient = i - 1;
        free_input_at(end);
        gpu_free = end;
        break;
      }
      case OpKind::Offload:
        if (!plain[i] && !tape[i]) fail("nothing to offload (a^i not on the GPU)");
        cpu_tape[i] = tape[i];
        op.duration = transfer_time(tape[i] ? layer.tape_size : layer.output_size);
        op.start = std::max({link_free, gpu_free, arrival[i]});
        link_free = offload_end[i] = op.start + op.duration;
        on_cpu[i] = true;
        break;
      case OpKind::Prefetch:
        if (!on_cpu[i]) fail("nothing to prefetch (a^i never offloaded)");
        if (plain[i] || tape[i]) fail("a^i already on the GPU");
        op.duration = transfer_time(cpu_tape[i] ? layer.tape_size : layer.output_size);
        op.start = std::max(link_free, gpu_free);
        link_free = arrival[i] = op.start + op.duration;
        changes.push_back({op.start, cpu_tape[i] ? layer.tape_size : layer.output_size});
        (cpu_tape[i] ? tape : plain)[i] = true;
        break;
      case OpKind::Free:
        if (!plain[i] && !tape[i]) fail("nothing to free (a^i not on the GPU)");
        op.start = std::max({gpu_free, offload_end[i], arrival[i]});
        changes.push_back({op.start, -(tape[i] ? layer.tape_size : layer.output_size)});
        plain[i] = tape[i] = false;
        offload_end[i] = kNever;
        gpu_free = op.start;
        break;
    }
    ops.push_back(op);
  }
  // Memory in use over time: releases before allocations at the same instant.
  std::stable_sort(changes.begin(), changes.end(), [](const Change& x, const Change& y) {
    return x.time < y.time || (x.time == y.time && x.amount < 0 && y.amount >= 0);
  });
  std::vector<std::pair<double, double>> level;  // (time, in use from then on)
  double used = 0;
  for (const Change& c : changes) {
    used += c.amount;
    if (!level.empty() && level.back().first == c.time) level.back().second = used;
    else level.push_back({c.time, used});
  }
  for (Operation& op : ops) {
    const double end = op.start + op.duration;
    // Level at the start, then at every change strictly inside the operation.
    auto it = std::upper_bound(level.begin(), level.end(), op.start,
                               [](double t, const std::pair<double, double>& x) { return t < x.first; });
    double most = it == level.begin() ? 0 : std::prev(it)->second;
    for (; it != level.end() && it->first < end; ++it) most = std::max(most, it->second);
    op.memory = most;
  }
  return ops;
}

double finish_time(const std::vector<Operation>& ops) {
  double end = 0;
  for (const Operation& op : ops) end = std::max(end, op.start + op.duration);
  return end;
}

}  // namespace pipesim::memory_saving
