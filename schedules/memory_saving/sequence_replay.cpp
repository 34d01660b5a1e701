#include "schedules/memory_saving/sequence_replay.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pipesim::memory_saving {

std::vector<Operation> replay_sequence(const Chain& chain, const std::vector<Step>& steps) {
  const int L = chain.length();
  std::vector<bool> plain(L + 1, false), tape(L + 1, false);
  int gradient = L;  // δ^L, the loss gradient, is counted from the start
  double used = chain.input_size + chain.delta(L);
  double now = 0;
  std::vector<Operation> ops;
  ops.reserve(steps.size());
  for (std::size_t n = 0; n < steps.size(); ++n) {
    const auto [kind, i] = steps[n];
    auto fail = [&](const char* why) {
      throw std::logic_error("step " + std::to_string(n) + " (" + op_kind_name(kind) + " " + std::to_string(i) +
                             "): " + why);
    };
    if (i < 1 || i > L) fail("no such layer");
    const ChainLayer& layer = chain.layers[i - 1];
    const bool input_there = i == 1 || plain[i - 1] || tape[i - 1];
    Operation op{kind, i, now, 0, 0};
    switch (kind) {
      case OpKind::ForwardCheckpoint:
      case OpKind::ForwardNone:
      case OpKind::ForwardAll: {
        if (!input_there) fail("input activation missing");
        const bool all = kind == OpKind::ForwardAll;
        op.duration = layer.forward_time;
        op.memory = used + (all ? layer.tape_size : layer.output_size) + layer.forward_overhead;
        if (all) {
          if (tape[i]) fail("tape already there");
          if (plain[i]) used -= layer.output_size;  // the tape contains a^i
          plain[i] = false;
          tape[i] = true;
          used += layer.tape_size;
        } else {
          if (plain[i] || tape[i]) fail("output already there");
          plain[i] = true;
          used += layer.output_size;
          if (kind == OpKind::ForwardNone && i > 1 && plain[i - 1]) {
            plain[i - 1] = false;
            used -= chain.a(i - 1);
          }
        }
        break;
      }
      case OpKind::Backward:
        if (gradient != i) fail("gradient missing");
        if (!tape[i]) fail("tape missing");
        if (!input_there) fail("input activation missing");
        op.duration = layer.backward_time;
        op.memory = used + chain.delta(i - 1) + layer.backward_overhead;
        used += chain.delta(i - 1) - chain.delta(i) - layer.tape_size;
        tape[i] = false;
        gradient = i - 1;
        if (i > 1 && plain[i - 1]) {
          plain[i - 1] = false;
          used -= chain.a(i - 1);
        }
        break;
      default:
        fail("not a compute operation");
    }
    now += op.duration;
    ops.push_back(op);
  }
  return ops;
}

double peak_memory(const std::vector<Operation>& ops) {
  double peak = 0;
  for (const Operation& op : ops) peak = std::max(peak, op.memory);
  return peak;
}

double end_time(const std::vector<Operation>& ops) {
  return ops.empty() ? 0 : ops.back().start + ops.back().duration;
}

}  // namespace pipesim::memory_saving
