#include "schedules/memory_saving/sequence_replay.hpp"

#include <algorithm>
#include <stdexcept>

namespace pipesim::memory_saving {

GpuContents::GpuContents(const Chain& chain)
    : chain_(chain), plain_(chain.length() + 1, false), tape_(chain.length() + 1, false), gradient_(chain.length()) {}

void GpuContents::fail(std::size_t n, Step step, const std::string& why) const {
  throw std::logic_error("step " + std::to_string(n) + " (" + op_kind_name(step.first) + " " +
                         std::to_string(step.second) + "): " + why);
}

const ChainLayer& GpuContents::layer(std::size_t n, Step step) const {
  if (step.second < 1 || step.second > chain_.length()) fail(n, step, "no such layer");
  return chain_.layers[step.second - 1];
}

bool is_compute(OpKind kind) {
  return kind == OpKind::ForwardAll || kind == OpKind::ForwardCheckpoint || kind == OpKind::ForwardNone ||
         kind == OpKind::Backward;
}

StepMemory GpuContents::compute(std::size_t n, Step step) {
  const auto [kind, i] = step;
  const ChainLayer& l = layer(n, step);
  if (!is_compute(kind)) fail(n, step, "not a compute operation");
  // a^{i-1} on the GPU (a^0 always; inside ā^{i-1} after F_all^{i-1}).
  const bool input_there = i == 1 || plain_[i - 1] || tape_[i - 1];
  StepMemory m;
  if (kind == OpKind::Backward) {
    if (gradient_ != i) fail(n, step, "gradient missing");
    if (!tape_[i]) fail(n, step, "tape missing");
    if (!input_there) fail(n, step, "input activation missing");
    m.at_start = chain_.delta(i - 1) + l.backward_overhead;
    m.at_end = -(l.backward_overhead + chain_.delta(i) + l.tape_size);
    tape_[i] = false;
    gradient_ = i - 1;
  } else {
    if (!input_there) fail(n, step, "input activation missing");
    const bool all = kind == OpKind::ForwardAll;
    if (all ? tape_[i] : (plain_[i] || tape_[i])) fail(n, step, "output already there");
    m.at_start = (all ? l.tape_size : l.output_size) + l.forward_overhead;
    m.at_end = -l.forward_overhead;
    if (all && plain_[i]) m.at_end -= l.output_size, plain_[i] = false;  // the tape contains a^i
    (all ? tape_ : plain_)[i] = true;
  }
  if ((kind == OpKind::Backward || kind == OpKind::ForwardNone) && i > 1 && plain_[i - 1]) {
    plain_[i - 1] = false;
    m.frees_input = i - 1;
  }
  return m;
}

std::vector<Operation> replay_sequence(const Chain& chain, const std::vector<Step>& steps) {
  GpuContents gpu(chain);
  double used = chain.input_size + chain.delta(chain.length());
  double now = 0;
  std::vector<Operation> ops;
  ops.reserve(steps.size());
  for (std::size_t n = 0; n < steps.size(); ++n) {
    const auto [kind, i] = steps[n];
    const StepMemory m = gpu.compute(n, steps[n]);
    const ChainLayer& layer = chain.layers[i - 1];
    const Operation op{kind, i, now, kind == OpKind::Backward ? layer.backward_time : layer.forward_time,
                       used + m.at_start};
    used += m.at_start + m.at_end - (m.frees_input ? chain.a(m.frees_input) : 0);
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

double end_time(const std::vector<Operation>& ops) { return ops.empty() ? 0 : ops.back().start + ops.back().duration; }

}  // namespace pipesim::memory_saving
