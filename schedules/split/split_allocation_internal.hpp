// Exposed for tests only: Theorem 1's closed form, the check on the general
// allocation. Product code includes split_allocation.hpp.
#pragma once

#include <optional>

#include "schedules/split/split_allocation.hpp"

namespace pipesim::split {

// Theorem 1's c = f(p_i, r_j) / g(p_i, r_j) = backward[j] / forward[j] when
// it is the same for every resource (relative 1e-9), else nothing.
std::optional<double> common_ratio(const StageRates& rates);

// Theorem 1's closed form beta_j = c / (c + 1) for every j. Throws
// std::invalid_argument if the ratio differs between resources.
Allocation theorem1_allocation(const StageRates& rates);

}  // namespace pipesim::split
