#include "schedules/memory_saving/transfer_replay_internal.hpp"

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
  GpuContents gpu(chain);
  std::vector<bool> on_cpu(L + 1, false);
  std::vector<bool> cpu_tape(L + 1, false);  // the CPU copy is ā^i (offloaded after F_all^i), not a^i
  std::vector<double> arrival(L + 1, kNever), offload_end(L + 1, kNever);
  double gpu_free = 0, link_free = 0;
  std::vector<Change> changes{{0, chain.input_size + chain.delta(L)}};
  std::vector<Operation> ops;
  ops.reserve(steps.size());
  for (std::size_t n = 0; n < steps.size(); ++n) {
    const auto [kind, i] = steps[n];
    auto fail = [&](const std::string& why) { gpu.fail(n, steps[n], why); };
    const ChainLayer& layer = gpu.layer(n, steps[n]);
    auto transfer_time = [&](double size) {
      if (size == 0) return 0.0;
      if (bandwidth <= 0) fail("transfer over a link of bandwidth 0");
      return size / bandwidth;
    };
    Operation op{kind, i, 0, 0, 0};
    if (is_compute(kind)) {
      const bool backward = kind == OpKind::Backward;
      const StepMemory m = gpu.compute(n, steps[n]);
      // Once the GPU is free and its inputs have arrived (a^{i-1}; ā^i for B).
      op.start = std::max({gpu_free, i == 1 ? 0 : arrival[i - 1], backward ? arrival[i] : kNever});
      op.duration = backward ? layer.backward_time : layer.forward_time;
      const double end = op.start + op.duration;
      changes.push_back({op.start, m.at_start});
      changes.push_back({end, m.at_end});
      if (m.frees_input) {
        if (offload_end[m.frees_input] > end) fail("input freed before its offload ends");
        changes.push_back({end, -chain.a(m.frees_input)});
      }
      if (!backward) {
        arrival[i] = end;
        on_cpu[i] = false;
        offload_end[i] = kNever;
      }
      gpu_free = end;
      ops.push_back(op);
      continue;
    }
    switch (kind) {
      case OpKind::Offload:
        if (!gpu.plain(i) && !gpu.tape(i)) fail("nothing to offload (a^i not on the GPU)");
        cpu_tape[i] = gpu.tape(i);
        op.duration = transfer_time(gpu.tape(i) ? layer.tape_size : layer.output_size);
        op.start = std::max({link_free, gpu_free, arrival[i]});
        link_free = offload_end[i] = op.start + op.duration;
        on_cpu[i] = true;
        break;
      case OpKind::Prefetch:
        if (!on_cpu[i]) fail("nothing to prefetch (a^i never offloaded)");
        if (gpu.plain(i) || gpu.tape(i)) fail("a^i already on the GPU");
        op.duration = transfer_time(cpu_tape[i] ? layer.tape_size : layer.output_size);
        op.start = std::max(link_free, gpu_free);
        link_free = arrival[i] = op.start + op.duration;
        changes.push_back({op.start, cpu_tape[i] ? layer.tape_size : layer.output_size});
        gpu.put(i, cpu_tape[i]);
        break;
      case OpKind::Free:
        if (!gpu.plain(i) && !gpu.tape(i)) fail("nothing to free (a^i not on the GPU)");
        op.start = std::max({gpu_free, offload_end[i], arrival[i]});
        changes.push_back({op.start, -(gpu.tape(i) ? layer.tape_size : layer.output_size)});
        gpu.drop(i);
        offload_end[i] = kNever;
        gpu_free = op.start;
        break;
      default:
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
    if (!level.empty() && level.back().first == c.time)
      level.back().second = used;
    else
      level.push_back({c.time, used});
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
