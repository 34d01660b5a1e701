// A lower bound on the period from memory (docs/ilp.md, "Bounds"): with
// period T and k copies, the input a_{l-1} that F_l stashes is held from
// F_l's start to B_l's start, at least h_l = d(F_l) + sum over j > l of
// d(F_j) + d(B_j), so k h_l / T copies of it on average over the period,
// and the memory at some op start is at least that average (it grows only
// at forward starts, where constraint (36) is checked). Weights count as
// the policy counts them, weight stashing's versions at least the same
// average. The bound is the smallest T at which every device can hold
// these averages: fixed mode, per device; free mode, every layer alone on
// a device and all of them on the P devices together.
#pragma once

#include "schedules/ilp/ilp_instance.hpp"

namespace pipesim::ilp {

// The smallest T in [lower, upper] at which the averages fit (bisection;
// they shrink as T grows); `lower` when they fit there, and also when they
// do not fit even at `upper` (the model then decides).
double memory_period_bound(const Instance& in, double lower, double upper);

}  // namespace pipesim::ilp
