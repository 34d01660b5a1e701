// Exposed for tests only: identical stages, for tests and benchmarks.
// Product code includes master_scheduler.hpp.
#pragma once

#include "schedules/master/master_scheduler.hpp"

namespace pipesim {

// S identical stages (tests, benchmarks).
std::vector<MasterStage> uniform_master_stages(int S, double forward_flops, double backward_flops,
                                               double activation_bytes, double weight_bytes);

}  // namespace pipesim
