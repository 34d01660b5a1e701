#include "workloads/costs.hpp"

#include <algorithm>
#include <sstream>

#include "sim/input_error.hpp"

namespace pipesim {

int fastest_device(const Platform& platform) {
  int best = -1;
  for (int d : compute_devices(platform))
    if (best < 0 || platform.devices[d].speed > platform.devices[best].speed) best = d;
  return best;
}

double reference_speed(const Workload& workload, const Platform& platform) {
  if (workload.reference_speed > 0) return workload.reference_speed;
  const int fastest = fastest_device(platform);
  return fastest < 0 ? 0 : platform.devices[fastest].speed;
}

double cost_flops(const Cost& cost, double reference_speed) {
  return cost.flops ? cost.value : cost.value * reference_speed;
}

std::pair<double, double> split_backward_flops(const Layer& layer, double reference_speed) {
  if (layer.split_given)
    return {cost_flops(layer.backward_input, reference_speed), cost_flops(layer.backward_weight, reference_speed)};
  const double half = cost_flops(layer.backward, reference_speed) / 2;
  return {half, half};
}

void check_cost_times(const Workload& workload, const Platform& platform) {
  const Device* slowest = nullptr;
  for (const Device& d : platform.devices)
    if (!is_host_memory(d) && d.speed > 0 && (!slowest || d.speed < slowest->speed)) slowest = &d;
  if (!slowest) return;  // no speed at all: pattern_timing and the engine say so
  const double ref = reference_speed(workload, platform);
  for (std::size_t l = 0; l < workload.layers.size(); ++l) {
    const Layer& layer = workload.layers[l];
    for (const bool forward : {true, false}) {
      const double seconds = cost_flops(forward ? layer.forward : layer.backward, ref) / slowest->speed;
      if (seconds <= kMaxCost) continue;  // also false for NaN, which no parsed cost gives
      std::ostringstream what;
      what << "the " << (forward ? "forward" : "backward") << " of layer '" << layer.name << "' (layer " << l
           << ") lasts " << seconds << " s on " << slowest->name << ", the slowest device; a task may last at most "
           << kMaxCost << " s";
      throw InputError(workload.file, "layers", what.str());
    }
  }
}

}  // namespace pipesim
