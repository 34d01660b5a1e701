#include "workloads/costs.hpp"

#include <algorithm>

namespace pipesim {

double reference_speed(const Workload& workload, const Platform& platform) {
  if (workload.reference_speed > 0) return workload.reference_speed;
  double fastest = 0;
  for (const Device& d : platform.devices) fastest = std::max(fastest, d.speed);
  return fastest;
}

double cost_flops(const Cost& cost, double reference_speed) {
  return cost.flops ? cost.value : cost.value * reference_speed;
}

}  // namespace pipesim
