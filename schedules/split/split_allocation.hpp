// Seed 004 (Duan and Wu) §IV-A: how a worker splits each of its resources
// between the forward pass of one micro-batch and the backward pass of an
// earlier one, which run at the same time. Pure arithmetic, no SimGrid.
#pragma once

#include <vector>

namespace pipesim::split {

// One worker on one stage: forward[j] (backward[j]) is how many stages per
// second resource j would compute forward (backward) if given wholly to that
// pass, i.e. 1 / f(p_i, r_j). A share beta_j of resource j then computes
// forward at beta_j * forward[j] (Definition 1: times scale as 1/beta_j).
struct StageRates {
  std::vector<double> forward;
  std::vector<double> backward;
};

struct Allocation {
  std::vector<double> beta;     // share of each resource given to forward
  double forward_seconds = 0;   // f(p_i, sum beta_j r_j)
  double backward_seconds = 0;  // g(p_i, sum (1 - beta_j) r_j)
  double period() const { return forward_seconds > backward_seconds ? forward_seconds : backward_seconds; }
};

// Times of a given allocation. Throws std::invalid_argument if a beta is
// outside [0, 1] (or NaN), if beta gives a share of a pass to a resource
// that has zero speed for it, or if a pass gets no speed at all.
Allocation evaluate_allocation(const StageRates& rates, const std::vector<double>& beta);

// Problem (4)-(6) solved exactly (docs/mobile.md has the proof): resources
// take the forward pass in increasing order of backward/forward rate ratio
// until forward and backward times are equal; resources whose ratios are
// equal (relative 1e-9) get the same beta, so when every ratio is c this is
// Theorem 1's beta_j = c / (c + 1). Throws std::invalid_argument on negative
// or NaN rates, or if no resource can run one of the passes.
Allocation optimal_allocation(const StageRates& rates);

// The optimum's value only, 1 / max_beta min(sum beta a, sum (1-beta) b),
// without allocating: the inner loop of the partition and grouping
// searches. `order` is scratch space. Same preconditions, not checked.
double optimal_period(const double* forward, const double* backward, int resources, std::vector<int>& order);

}  // namespace pipesim::split
