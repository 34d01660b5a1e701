#include "schedules/split/split_partition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "schedules/split/split_partition_internal.hpp"
#include "sim/format.hpp"

namespace pipesim::split {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_workers(int workers) {
  if (workers < 1) throw std::invalid_argument("partition: workers must be >= 1, got " + std::to_string(workers));
}

// Seconds of [first, last] on one resource: infinite if it cannot run a layer.
double span(const std::vector<double>& sum, const std::vector<int>& inf, int first, int last) {
  if (inf[last + 1] - inf[first] > 0) return kInf;
  return sum[last + 1] - sum[first];
}

void prefix(const std::vector<double>& times, std::vector<double>& sum, std::vector<int>& inf) {
  sum.assign(times.size() + 1, 0);
  inf.assign(times.size() + 1, 0);
  for (std::size_t l = 0; l < times.size(); ++l) {
    const bool cannot = std::isinf(times[l]);
    sum[l + 1] = sum[l] + (cannot ? 0 : times[l]);
    inf[l + 1] = inf[l] + (cannot ? 1 : 0);
  }
}

}  // namespace

StageCosts::StageCosts(const WorkerProfile& w)
    : layers_(w.layers()),
      resources_(static_cast<int>(w.times.size())),
      forward_(resources_),
      backward_(resources_),
      forward_inf_(resources_),
      backward_inf_(resources_),
      output_bytes_(w.output_bytes),
      bandwidth_(w.bandwidth),
      sends_(w.sends),
      a_(resources_),
      b_(resources_) {
  for (int j = 0; j < resources_; ++j) {
    prefix(w.times[j].forward, forward_[j], forward_inf_[j]);
    prefix(w.times[j].backward, backward_[j], backward_inf_[j]);
  }
}

StageRates StageCosts::rates(int first, int last) const {
  StageRates r;
  for (int j = 0; j < resources_; ++j) {
    r.forward.push_back(1 / span(forward_[j], forward_inf_[j], first, last));
    r.backward.push_back(1 / span(backward_[j], backward_inf_[j], first, last));
  }
  return r;
}

double StageCosts::compute(int first, int last) const {
  for (int j = 0; j < resources_; ++j) {
    a_[j] = 1 / span(forward_[j], forward_inf_[j], first, last);
    b_[j] = 1 / span(backward_[j], backward_inf_[j], first, last);
  }
  return optimal_period(a_.data(), b_.data(), resources_, order_);
}

double StageCosts::communication(int first, int last) const {
  const double forward = last + 1 < layers_ ? output_bytes_[last] : 0;
  const double backward = first > 0 ? output_bytes_[first - 1] : 0;
  return (sends_ == SendOverlap::Max ? std::max(forward, backward) : forward + backward) / bandwidth_;
}

double StageCosts::cost(int first, int last) const {
  return std::max(compute(first, last), communication(first, last));
}

double partition_period(const StageCosts& costs, const std::vector<int>& last_layer) {
  double period = 0;
  int first = 0;
  for (const int last : last_layer) {
    period = std::max(period, costs.cost(first, last));
    first = last + 1;
  }
  return period;
}

namespace {

// The min-max DP over contiguous stages, stage k on worker k:
// best[k][t] is the smallest period of layers [0, t] cut into k + 1 stages
// and from[k][t] where stage k - 1 ends in it; cost(k, first, last) is
// worker k's period for those layers. Fewest stages on ties.
template <class Cost>
SplitPartition min_max_partition(int S, int L, const Cost& cost) {
  std::vector<std::vector<double>> best(S, std::vector<double>(L, kInf));
  std::vector<std::vector<int>> from(S, std::vector<int>(L, -1));
  for (int t = 0; t < L; ++t) best[0][t] = cost(0, 0, t);
  for (int k = 1; k < S; ++k)
    for (int t = k; t < L; ++t)
      for (int c = k - 1; c < t; ++c) {
        if (best[k - 1][c] >= best[k][t]) continue;  // cannot improve: the max is at least that
        const double v = std::max(best[k - 1][c], cost(k, c + 1, t));
        if (v < best[k][t]) best[k][t] = v, from[k][t] = c;
      }
  int stages = 0;
  for (int k = 1; k < S; ++k)
    if (best[k][L - 1] < best[stages][L - 1]) stages = k;
  SplitPartition result;
  result.last_layer.assign(stages + 1, L - 1);
  for (int k = stages; k > 0; --k) result.last_layer[k - 1] = from[k][result.last_layer[k]];
  result.period = best[stages][L - 1];
  return result;
}

}  // namespace

SplitPartition exact_partition(const WorkerProfile& worker, int workers) {
  check_workers(workers);
  const StageCosts costs(worker);
  const int L = costs.layers();
  // Identical workers: one table of stage costs serves every k.
  std::vector<std::vector<double>> cost(L, std::vector<double>(L, kInf));
  for (int s = 0; s < L; ++s)
    for (int t = s; t < L; ++t) cost[s][t] = costs.cost(s, t);
  return min_max_partition(std::min(workers, L), L, [&](int, int first, int last) { return cost[first][last]; });
}

SplitPartition exact_partition(const std::vector<WorkerProfile>& workers) {
  if (workers.empty()) throw std::invalid_argument("partition: workers must be >= 1, got 0");
  std::vector<StageCosts> costs;
  for (const WorkerProfile& w : workers) {
    if (w.layers() != workers[0].layers()) throw std::invalid_argument("partition: workers disagree on the layers");
    costs.emplace_back(w);
  }
  const int L = workers[0].layers();
  return min_max_partition(std::min(static_cast<int>(workers.size()), L), L,
                           [&](int k, int first, int last) { return costs[k].cost(first, last); });
}

std::vector<int> greedy_partition(const StageCosts& costs, int workers, double limit) {
  const int L = costs.layers();
  std::vector<int> cuts;
  for (int first = 0; first < L;) {
    if (static_cast<int>(cuts.size()) == workers) return {};
    int longest = -1;
    // Compute time only grows with the stage: stop once it exceeds the limit.
    for (int last = first; last < L && costs.compute(first, last) <= limit; ++last)
      if (costs.communication(first, last) <= limit) longest = last;
    if (longest < 0) return {};
    cuts.push_back(longest);
    first = longest + 1;
  }
  return cuts;
}

Algorithm1Result algorithm1_partition(const WorkerProfile& worker, int workers, double epsilon) {
  check_workers(workers);
  if (!(epsilon > 0) || std::isinf(epsilon))
    throw std::invalid_argument("partition: epsilon must be > 0, got " + fmt::number(epsilon));
  const StageCosts costs(worker);
  const int L = costs.layers();
  // Bounds: every layer lies in some stage and compute grows with the
  // stage, so no limit below the slowest single layer is feasible; the
  // whole chain on one worker (no communication) always is.
  double x = 0;
  for (int l = 0; l < L; ++l) x = std::max(x, costs.compute(l, l));
  double y = costs.cost(0, L - 1);
  Algorithm1Result result;
  result.partition.last_layer = {L - 1};
  // Invariant (the paper's): y is feasible, x - epsilon is not.
  while (x < y) {
    const double mid = (x + y) / 2;
    if (!(mid > x && mid < y)) break;  // x and y are adjacent doubles
    ++result.probes;
    std::vector<int> cuts = greedy_partition(costs, workers, mid);
    if (!cuts.empty()) {
      y = mid;
      result.partition.last_layer = std::move(cuts);
    } else {
      x = mid + epsilon;
    }
  }
  result.limit = y;
  result.partition.period = partition_period(costs, result.partition.last_layer);
  return result;
}

std::vector<EpsilonGap> algorithm1_gap(const WorkerProfile& worker, int workers, const std::vector<double>& epsilons) {
  const double optimum = exact_partition(worker, workers).period;
  std::vector<EpsilonGap> gaps;
  for (const double eps : epsilons) {
    const Algorithm1Result r = algorithm1_partition(worker, workers, eps);
    gaps.push_back({eps, r.limit, r.partition.period, optimum, r.probes});
  }
  return gaps;
}

}  // namespace pipesim::split
