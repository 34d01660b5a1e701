// Allocations of a chain's layers to devices (seed 000 §4.2): the device of
// every layer, F_l and B_l on the same one (seed 000 eq. 4). Contiguous
// allocations (each device holds one range of consecutive layers) are
// PipeDream's; general ones may put layers 1 and 3 on one device.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pipesim {

using Allocation = std::vector<int>;  // device index of each layer

// True when every device's layers form one range of consecutive layers.
bool is_contiguous(const Allocation& allocation);

// The same allocation with devices numbered in order of first use along the
// chain (layer 0 on device 0, the next device to appear is 1, ...).
Allocation canonical_allocation(const Allocation& allocation);
int devices_used(const Allocation& allocation);

// Every allocation of `layers` layers onto at most `devices` devices, each
// once up to device relabelling (enumerate_allocations' set,
// allocation_internal.hpp), depth first: `layer_order`
// is the order in which layers receive a device (empty: 0..L-1; contiguous
// needs chain order) and canonical means first use in that order; before
// extending a prefix (devices of layer_order[0..i), -1 elsewhere), `prune`
// may return true to skip all its completions; `visit` sees every complete
// allocation (relabelled canonical along the chain). Candidate devices are
// tried least loaded first when `load` is given (load[d] of the prefix).
struct AllocationVisitor {
  std::function<bool(const Allocation& prefix)> prune;  // may be empty
  std::function<void(const Allocation& allocation)> visit;
  std::function<double(const Allocation& prefix, int device)> load;  // may be empty
};
void for_each_allocation(int layers, int devices, bool contiguous, const std::vector<int>& layer_order,
                         const AllocationVisitor& visitor);

// "0,1,0" -> {0, 1, 0}: one device index per layer. Throws
// std::invalid_argument naming what is wrong (count, range, syntax).
Allocation parse_allocation(const std::string& text, int layers, int devices);
std::string to_string(const Allocation& allocation);  // "0,1,0"

}  // namespace pipesim
