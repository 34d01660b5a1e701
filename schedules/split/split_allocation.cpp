#include "schedules/split/split_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "schedules/split/split_allocation_internal.hpp"
#include "sim/format.hpp"

namespace pipesim::split {
namespace {

constexpr double kRatioTolerance = 1e-9;

void check_rates(const StageRates& r) {
  if (r.forward.empty()) throw std::invalid_argument("allocation: the worker has no resource");
  if (r.forward.size() != r.backward.size())
    throw std::invalid_argument("allocation: " + std::to_string(r.forward.size()) + " forward rates but " +
                                std::to_string(r.backward.size()) + " backward rates");
  double forward = 0, backward = 0;
  for (std::size_t j = 0; j < r.forward.size(); ++j) {
    for (const double v : {r.forward[j], r.backward[j]})
      if (!(v >= 0) || !std::isfinite(v))
        throw std::invalid_argument("allocation: resource " + std::to_string(j) +
                                    ": rates must be finite and >= 0, got " + fmt::number(v));
    forward += r.forward[j];
    backward += r.backward[j];
  }
  if (forward == 0)
    throw std::invalid_argument("allocation: no resource can run the forward pass (all forward speeds are zero)");
  if (backward == 0)
    throw std::invalid_argument("allocation: no resource can run the backward pass (all backward speeds are zero)");
}

// backward / forward: the backward speed a resource gives up per unit of
// forward speed it brings. Zero forward speed sorts last.
double ratio(double forward, double backward) {
  return forward > 0 ? backward / forward : std::numeric_limits<double>::infinity();
}

bool same_ratio(double x, double y) {
  if (std::isinf(x) || std::isinf(y)) return x == y;
  return std::abs(x - y) <= kRatioTolerance * std::max(x, y);
}

void sort_by_ratio(const double* a, const double* b, int m, std::vector<int>& order) {
  order.resize(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return ratio(a[x], b[x]) < ratio(a[y], b[y]); });
}

}  // namespace

Allocation evaluate_allocation(const StageRates& rates, const std::vector<double>& beta) {
  check_rates(rates);
  if (beta.size() != rates.forward.size())
    throw std::invalid_argument("allocation: " + std::to_string(beta.size()) + " betas for " +
                                std::to_string(rates.forward.size()) + " resources");
  double forward = 0, backward = 0;
  for (std::size_t j = 0; j < beta.size(); ++j) {
    if (!(beta[j] >= 0 && beta[j] <= 1))
      throw std::invalid_argument("allocation: beta of resource " + std::to_string(j) + " must be in [0, 1], got " +
                                  fmt::number(beta[j]));
    forward += beta[j] * rates.forward[j];
    backward += (1 - beta[j]) * rates.backward[j];
  }
  if (forward == 0) throw std::invalid_argument("allocation: beta gives the forward pass no speed");
  if (backward == 0) throw std::invalid_argument("allocation: beta gives the backward pass no speed");
  return {beta, 1 / forward, 1 / backward};
}

double optimal_period(const double* a, const double* b, int m, std::vector<int>& order) {
  sort_by_ratio(a, b, m, order);
  double forward = 0, backward = 0;
  for (int j = 0; j < m; ++j) backward += b[j];
  for (const int j : order) {
    if (a[j] == 0) break;  // the rest cannot run forward
    if (forward + a[j] <= backward - b[j]) {
      forward += a[j];
      backward -= b[j];
      continue;
    }
    const double beta = (backward - forward) / (a[j] + b[j]);
    forward += beta * a[j];
    backward -= beta * b[j];
    break;
  }
  return 1 / std::min(forward, backward);
}

Allocation optimal_allocation(const StageRates& rates) {
  check_rates(rates);
  const int m = static_cast<int>(rates.forward.size());
  const double* a = rates.forward.data();
  const double* b = rates.backward.data();
  std::vector<int> order;
  sort_by_ratio(a, b, m, order);
  std::vector<double> beta(m, 0.0);
  double forward = 0, backward = std::accumulate(rates.backward.begin(), rates.backward.end(), 0.0);
  // Resources of equal ratio move together, so ties get one beta.
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first + 1;
    const double r = ratio(a[order[first]], b[order[first]]);
    while (last < order.size() && same_ratio(r, ratio(a[order[last]], b[order[last]]))) ++last;
    double ga = 0, gb = 0;
    for (std::size_t k = first; k < last; ++k) ga += a[order[k]], gb += b[order[k]];
    if (ga == 0) break;
    double share = 1;
    if (forward + ga > backward - gb) share = (backward - forward) / (ga + gb);
    for (std::size_t k = first; k < last; ++k) beta[order[k]] = share;
    forward += share * ga;
    backward -= share * gb;
    if (share < 1) break;
    first = last;
  }
  return evaluate_allocation(rates, beta);
}

std::optional<double> common_ratio(const StageRates& rates) {
  check_rates(rates);
  const double c = ratio(rates.forward[0], rates.backward[0]);
  for (std::size_t j = 1; j < rates.forward.size(); ++j)
    if (!same_ratio(c, ratio(rates.forward[j], rates.backward[j]))) return std::nullopt;
  if (std::isinf(c) || c == 0) return std::nullopt;
  return c;
}

Allocation theorem1_allocation(const StageRates& rates) {
  const std::optional<double> c = common_ratio(rates);
  if (!c)
    throw std::invalid_argument("allocation: Theorem 1 needs the same forward/backward time ratio on every resource");
  return evaluate_allocation(rates, std::vector<double>(rates.forward.size(), *c / (*c + 1)));
}

}  // namespace pipesim::split
