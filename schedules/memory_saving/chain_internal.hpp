// Exposed for tests only: a chain of identical layers.
// Product code includes chain.hpp.
#pragma once

#include "schedules/memory_saving/chain.hpp"

namespace pipesim::memory_saving {

// A chain of L identical layers.
Chain homogeneous_chain(int length, const ChainLayer& layer, double input_size);

}  // namespace pipesim::memory_saving
