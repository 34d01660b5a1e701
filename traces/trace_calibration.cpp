#include "traces/trace_calibration.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

namespace pipesim {
namespace {

std::string micros(double seconds) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3fus", seconds * 1e6);
  return text;
}

}  // namespace

TraceCalibration calibration_from_step(const StepCosts& costs) {
  TraceCalibration out;
  std::set<std::string> block_labels;
  for (const StepPiece& p : costs.pieces) {
    out.microbatches = std::max(out.microbatches, p.occurrence + 1);
    if (p.part == ModelPart::Block) block_labels.insert(p.label);
  }
  out.blocks = static_cast<int>(block_labels.size());
  // Totals per part and pass; a part's op runs once per micro-batch (a block: once per block and micro-batch).
  struct Sums {
    double seconds = 0, device = 0, weight_device = 0;
  };
  std::map<std::pair<ModelPart, bool>, Sums> sums;
  for (const StepPiece& p : costs.pieces) {
    Sums& s = sums[{p.part, p.backward}];
    s.seconds += p.seconds;
    s.device += p.device_seconds;
    s.weight_device += p.weight_device_seconds;
  }
  for (const auto& [key, s] : sums) {
    const auto [part, backward] = key;
    const std::string name = part_key(part);
    if (part == ModelPart::Optimizer) {
      out.step.seconds["optimizer.step"] = s.seconds;
      out.device.seconds["optimizer.step"] = s.device;
      continue;
    }
    const double runs = out.microbatches * (part == ModelPart::Block ? out.blocks : 1);
    if (!backward) {
      out.step.seconds[name + ".forward"] = s.seconds / runs;
      out.device.seconds[name + ".forward"] = s.device / runs;
      continue;
    }
    // The backward's time divides as its kernels do between input and weight gradients.
    const double weight_share = s.device > 0 ? s.weight_device / s.device : 0;
    out.step.seconds[name + ".backward_input"] = s.seconds * (1 - weight_share) / runs;
    out.step.seconds[name + ".backward_weight"] = s.seconds * weight_share / runs;
    out.device.seconds[name + ".backward_input"] = (s.device - s.weight_device) / runs;
    out.device.seconds[name + ".backward_weight"] = s.weight_device / runs;
  }
  return out;
}

void add_saved_bytes(TraceCalibration& c, const SavedBytes& saved, const std::string& file) {
  c.execution_trace = file;
  for (const auto& [part, bytes] : saved.stash)
    if (part != ModelPart::Optimizer) c.stash_bytes[part_key(part)] = bytes;
}

std::string calibration_yaml(const TraceCalibration& c, const StepCosts& costs, const std::string& trace,
                             bool device_time) {
  const Calibration& written = device_time ? c.device : c.step;
  const Calibration& commented = device_time ? c.step : c.device;
  const std::string step_reading =
      "what it added to the traced step (its host work or its kernels, whichever finished later)";
  const std::string kernel_reading = "its kernels' time, each with the " + micros(costs.kernel_gap) + " launch gap";
  std::ostringstream y;
  y << "# Calibration imported by pipesim from " << trace << " (docs/import.md#profiler-traces):\n"
    << "# " << costs.step << ", " << micros(costs.seconds) << ", " << c.microbatches << " micro-batches of "
    << costs.tokens << " tokens, " << c.blocks << " blocks.\n"
    << "# Each op's time is " << (device_time ? kernel_reading : step_reading) << ",\n"
    << "# averaged over its runs; optimizer.step is the step's zero_grad and optimizer step.\n"
    << "# A backward divides between input and weight gradients as its kernels do"
    << (costs.tokens > 0 ? "" : " (tokens unknown: all input)") << ".\n"
    << "# Each op's time as " << (device_time ? step_reading : kernel_reading) << ":\n";
  for (const auto& [key, seconds] : commented.seconds) y << "#   " << key << ": " << micros(seconds) << "\n";
  if (costs.tokens > 0) y << "tokens_per_microbatch: " << costs.tokens << "\n";
  for (const auto& [key, seconds] : written.seconds) y << key << ": " << micros(seconds) << "\n";
  if (!c.stash_bytes.empty())
    y << "# Bytes one micro-batch of each part keeps for its backward, from " << c.execution_trace << ":\n"
      << "# what its backward reads that its forward allocated, in 512-byte allocator blocks.\n";
  for (const auto& [part, bytes] : c.stash_bytes)
    y << part << ".stash_bytes: " << static_cast<long long>(bytes) << "\n";
  return y.str();
}

}  // namespace pipesim
