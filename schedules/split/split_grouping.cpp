#include "schedules/split/split_grouping.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>

#include "schedules/split/split_allocation.hpp"
#include "sim/format.hpp"

namespace pipesim::split {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kBruteForceMaxDevices = 16;

// The devices as rows of rates over the union of resource types: columns
// [0, m) forward, [m, 2m) backward, in stages per second for p_i.
struct RateTable {
  int n = 0, m = 0;
  std::vector<double> rows;  // n x 2m
  const double* row(int v) const { return rows.data() + static_cast<std::size_t>(v) * 2 * m; }
};

RateTable rate_table(const GroupingProblem& pb) {
  if (pb.workers < 1) throw std::invalid_argument("grouping: workers must be >= 1, got " + std::to_string(pb.workers));
  if (pb.devices.size() < static_cast<std::size_t>(pb.workers))
    throw std::invalid_argument("grouping: " + std::to_string(pb.workers) + " workers but only " +
                                std::to_string(pb.devices.size()) + " devices (each worker needs at least one)");
  for (const double f : {pb.forward_flops, pb.backward_flops})
    if (!(f > 0) || std::isinf(f))
      throw std::invalid_argument("grouping: forward_flops and backward_flops must be > 0, got " + fmt::number(f));
  std::set<std::string> types;
  for (const Device& d : pb.devices)
    for (const Resource& r : d.resources) types.insert(r.type);
  const std::vector<std::string> names(types.begin(), types.end());
  RateTable t;
  t.n = static_cast<int>(pb.devices.size());
  t.m = static_cast<int>(names.size());
  t.rows.assign(static_cast<std::size_t>(t.n) * 2 * t.m, 0.0);
  for (int v = 0; v < t.n; ++v) {
    const Device& d = pb.devices[v];
    std::set<std::string> seen;
    double total = 0;
    for (const Resource& r : d.resources) {
      const std::string at = "device '" + d.name + "': resource '" + r.type + "'";
      if (!seen.insert(r.type).second) throw std::invalid_argument(at + ": listed twice");
      for (const double s : {r.forward_speed, r.backward_speed})
        if (!(s >= 0) || std::isinf(s))
          throw std::invalid_argument(at + ": speeds must be finite and >= 0, got " + fmt::number(s));
      const int j = static_cast<int>(std::lower_bound(names.begin(), names.end(), r.type) - names.begin());
      double* row = t.rows.data() + static_cast<std::size_t>(v) * 2 * t.m;
      row[j] = r.forward_speed / pb.forward_flops;
      row[t.m + j] = r.backward_speed / pb.backward_flops;
      total += r.forward_speed + r.backward_speed;
    }
    if (total == 0) throw std::invalid_argument("device '" + d.name + "': every speed is zero");
  }
  return t;
}

// Period of a worker whose summed rates are `sum` (2m values).
double period_of(const std::vector<double>& sum, int m, std::vector<int>& order) {
  double forward = 0, backward = 0;
  for (int j = 0; j < m; ++j) forward += sum[j], backward += sum[m + j];
  if (forward == 0 || backward == 0) return kInf;
  return optimal_period(sum.data(), sum.data() + m, m, order);
}

double group_period(const RateTable& t, const std::vector<int>& group, std::vector<int>& order) {
  std::vector<double> sum(2 * t.m, 0.0);
  for (const int v : group)
    for (int c = 0; c < 2 * t.m; ++c) sum[c] += t.row(v)[c];
  return period_of(sum, t.m, order);
}

Grouping finish(const RateTable& t, std::vector<std::vector<int>> groups) {
  std::vector<int> order;
  Grouping g;
  for (auto& group : groups) {
    std::sort(group.begin(), group.end());
    g.period = std::max(g.period, group_period(t, group, order));
  }
  g.groups = std::move(groups);
  return g;
}

// Algorithm 2: the slowest worker takes the device that lowers its period
// most. An empty worker's period is infinite, so "lowers most" is read as
// "leaves the lowest period" (the same choice whenever the period is finite).
Grouping local_search(const RateTable& t, int q) {
  const int m2 = 2 * t.m;
  std::vector<std::vector<double>> sums(q, std::vector<double>(m2, 0.0));
  std::vector<double> cost(q, kInf);
  std::vector<std::vector<int>> groups(q);
  std::vector<int> unassigned(t.n);
  std::iota(unassigned.begin(), unassigned.end(), 0);
  std::vector<double> trial(m2);
  std::vector<int> order;
  while (!unassigned.empty()) {
    const int i = static_cast<int>(std::max_element(cost.begin(), cost.end()) - cost.begin());
    std::size_t best = 0;
    double best_cost = kInf;
    for (std::size_t k = 0; k < unassigned.size(); ++k) {
      const double* row = t.row(unassigned[k]);
      for (int c = 0; c < m2; ++c) trial[c] = sums[i][c] + row[c];
      const double c = period_of(trial, t.m, order);
      if (c < best_cost) best_cost = c, best = k;
    }
    const int v = unassigned[best];
    for (int c = 0; c < m2; ++c) sums[i][c] += t.row(v)[c];
    cost[i] = best_cost;
    groups[i].push_back(v);
    unassigned.erase(unassigned.begin() + static_cast<std::ptrdiff_t>(best));
  }
  return finish(t, std::move(groups));
}

// The optimum over all ways to split the devices into q non-empty groups:
// best[k][S] = min over subsets T of S holding S's lowest device of
// max(period(T), best[k-1][S \ T]); O(2^n m + q 3^n).
Grouping brute_force(const RateTable& t, int q) {
  if (t.n > kBruteForceMaxDevices)
    throw std::invalid_argument("grouping: brute force handles at most " + std::to_string(kBruteForceMaxDevices) +
                                " devices, got " + std::to_string(t.n));
  const int m2 = 2 * t.m;
  const unsigned full = (1u << t.n) - 1;
  std::vector<double> cost(full + 1, kInf);
  std::vector<std::vector<double>> sums(full + 1);
  sums[0].assign(m2, 0.0);
  std::vector<int> order;
  for (unsigned s = 1; s <= full; ++s) {
    const int low = __builtin_ctz(s);
    sums[s] = sums[s & (s - 1)];
    for (int c = 0; c < m2; ++c) sums[s][c] += t.row(low)[c];
    cost[s] = period_of(sums[s], t.m, order);
  }
  sums.clear();
  std::vector<std::vector<double>> best(q, cost);  // best[0] = one group
  std::vector<std::vector<unsigned>> choice(q, std::vector<unsigned>(full + 1, 0));
  for (unsigned s = 1; s <= full; ++s) choice[0][s] = s;
  for (int k = 1; k < q; ++k)
    for (unsigned s = 1; s <= full; ++s) {
      best[k][s] = kInf;
      const unsigned low = s & (~s + 1);
      const unsigned rest = s ^ low;
      // T = low + any proper part of the rest, leaving S \ T non-empty.
      for (unsigned part = rest;; part = (part - 1) & rest) {
        const unsigned group = low | part;
        if (group != s) {
          const double v = std::max(cost[group], best[k - 1][s ^ group]);
          if (v < best[k][s]) best[k][s] = v, choice[k][s] = group;
        }
        if (part == 0) break;
      }
    }
  std::vector<std::vector<int>> groups;
  unsigned s = full;
  for (int k = q - 1; k >= 0; --k) {
    const unsigned group = choice[k][s];
    groups.emplace_back();
    for (int v = 0; v < t.n; ++v)
      if (group >> v & 1u) groups.back().push_back(v);
    s ^= group;
  }
  return finish(t, std::move(groups));
}

// §VI's baseline. A device's power is its own throughput 1 / period (0 if
// it cannot run both passes alone); devices join a group in ascending
// power until it reaches the average power per worker. Guard added: a group
// also closes when the devices left are just enough for the groups left,
// so no worker ends empty.
Grouping sorting(const RateTable& t, int q) {
  std::vector<double> power(t.n);
  std::vector<int> order;
  for (int v = 0; v < t.n; ++v) power[v] = 1 / group_period(t, {v}, order);
  std::vector<int> by_power(t.n);
  std::iota(by_power.begin(), by_power.end(), 0);
  std::stable_sort(by_power.begin(), by_power.end(), [&](int x, int y) { return power[x] < power[y]; });
  const double target = std::accumulate(power.begin(), power.end(), 0.0) / q;
  std::vector<std::vector<int>> groups;
  std::vector<int> current;
  double current_power = 0;
  for (int pos = 0; pos < t.n; ++pos) {
    current.push_back(by_power[pos]);
    current_power += power[by_power[pos]];
    const int closed = static_cast<int>(groups.size());
    const int left = t.n - pos - 1, still_open = q - closed - 1;
    if (closed < q - 1 && (current_power >= target || left == still_open)) {
      groups.push_back(std::move(current));
      current.clear();
      current_power = 0;
    }
  }
  groups.push_back(std::move(current));
  return finish(t, std::move(groups));
}

}  // namespace

Grouping group_devices(const GroupingProblem& problem, GroupingMethod method) {
  const RateTable t = rate_table(problem);
  switch (method) {
    case GroupingMethod::LocalSearch:
      return local_search(t, problem.workers);
    case GroupingMethod::BruteForce:
      return brute_force(t, problem.workers);
    case GroupingMethod::Sorting:
      return sorting(t, problem.workers);
  }
  throw std::invalid_argument("grouping: unknown method");
}

double grouping_period(const GroupingProblem& problem, const std::vector<std::vector<int>>& groups) {
  const RateTable t = rate_table(problem);
  std::vector<int> order;
  double period = 0;
  for (const auto& group : groups) {
    for (const int v : group)
      if (v < 0 || v >= t.n) throw std::invalid_argument("grouping: no device " + std::to_string(v));
    period = std::max(period, group.empty() ? kInf : group_period(t, group, order));
  }
  return period;
}

GroupingMethod grouping_method(const std::string& name) {
  if (name == "local-search") return GroupingMethod::LocalSearch;
  if (name == "brute-force") return GroupingMethod::BruteForce;
  if (name == "sorting") return GroupingMethod::Sorting;
  throw std::invalid_argument("grouping: unknown method '" + name +
                              "' (expected local-search, brute-force or sorting)");
}

}  // namespace pipesim::split
