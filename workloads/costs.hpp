// Layer costs in flops: costs given in seconds refer to a reference speed.
#pragma once

#include <utility>

#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// The fastest compute device (the first of equals), -1 when there is none.
int fastest_device(const Platform& platform);
// The flop/s that second-valued costs refer to: workload.reference_speed,
// or the fastest device's speed when it is 0.
double reference_speed(const Workload& workload, const Platform& platform);
// Flops of a cost: value if it is in flops, else value x reference speed.
double cost_flops(const Cost& cost, double reference_speed);
// Flops of the input-gradient (I) and weight-gradient (W) halves of a layer's
// backward: backward_input and backward_weight when the workload gives them,
// else half of backward each.
std::pair<double, double> split_backward_flops(const Layer& layer, double reference_speed);

// Throws InputError (the workload's file, field "layers") if a layer's
// forward or backward would last more than kMaxCost seconds on the slowest
// device: a cost in seconds measured on a fast reference device, or a flop
// count, can overflow the simulated times on a slow one.
void check_cost_times(const Workload& workload, const Platform& platform);

}  // namespace pipesim
