// Checks PyTorch per-device orders without running them (pipesim validate).
#pragma once

#include <vector>

#include "schedules/pytorch/explicit_orders.hpp"
#include "sim/platform.hpp"
#include "sim/violation.hpp"

namespace pipesim {

// What the orders say without running them: structure (each stage on one
// rank, micro-batches in 0..microbatches-1, F once and B once or I and W once
// for every stage and micro-batch, no stage without ops) and dependencies
// (a device that runs a consumer before a producer it holds itself).
// Dependencies between devices show up as a deadlock when run.
// microbatches_from_file: the workload gave no count, so it is 1 + the
// largest micro-batch the orders name, and the messages say so.
std::vector<Violation> validate_orders(const ExplicitOrders& orders, int microbatches, const Platform& platform,
                                       bool microbatches_from_file = false);

}  // namespace pipesim
