// Exposed for tests only: the enumeration of allocations, which the tests' exhaustive searches use.
// Product code includes allocation.hpp.
#pragma once

#include "patterns/allocation.hpp"

namespace pipesim {

// Devices numbered in order of first use along the chain (layer 0 on
// device 0, the next device to appear is 1, ...).
bool is_canonical(const Allocation& allocation);

// Every allocation of `layers` layers onto at most `devices` devices, each
// once up to device relabelling: only canonical ones are listed. That is
// exhaustive for homogeneous devices on a uniform network (seed 000's
// model, where relabelling changes nothing); on other platforms the
// relabelled variants differ and are not listed. contiguous = true lists
// only contiguous ones (sum over p of C(L-1, p-1)); false lists all of them
// (restricted growth strings: sum over p <= devices of Stirling S(L, p)).
// Order: lexicographic.
std::vector<Allocation> enumerate_allocations(int layers, int devices, bool contiguous);

}  // namespace pipesim
