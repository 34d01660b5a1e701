// Exposed for tests only: when a replayed sequence ends.
// Product code includes transfer_replay.hpp.
#pragma once

#include "schedules/memory_saving/transfer_replay.hpp"

namespace pipesim::memory_saving {

// When the last operation (compute or transfer) ends.
double finish_time(const std::vector<Operation>& ops);

}  // namespace pipesim::memory_saving
