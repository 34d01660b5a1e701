#include "schedules/stages/partition.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "schedules/stages/partition_internal.hpp"

namespace pipesim {
namespace {

void check(const PartitionProblem& pb) {
  const std::size_t P = pb.layer_seconds.size();
  if (P == 0) throw std::invalid_argument("partition: no stages");
  const std::size_t L = pb.layer_seconds[0].size();
  if (P > L) throw std::invalid_argument("partition: more stages than layers");
  for (const auto& row : pb.layer_seconds)
    if (row.size() != L) throw std::invalid_argument("partition: ragged layer_seconds");
  if (pb.boundary_seconds.size() + 1 < P) throw std::invalid_argument("partition: missing boundary_seconds rows");
  for (std::size_t s = 0; s + 1 < P; ++s)
    if (pb.boundary_seconds[s].size() + 1 < L) throw std::invalid_argument("partition: short boundary_seconds row");
}

// Stage s over layers [first, last]: plain sum, shared by load and brute force.
double stage_load(const PartitionProblem& pb, int s, int first, int last) {
  double sum = 0;
  for (int l = first; l <= last; ++l) sum += pb.layer_seconds[s][l];
  return sum;
}

void enumerate(const PartitionProblem& pb, std::vector<int>& cut, int s, Partition& best) {
  const int P = static_cast<int>(pb.layer_seconds.size());
  const int L = static_cast<int>(pb.layer_seconds[0].size());
  if (s == P - 1) {
    cut[s] = L - 1;
    const double load = partition_load(pb, cut);
    if (load < best.max_load) best = {cut, load};
    return;
  }
  const int first = s == 0 ? 0 : cut[s - 1] + 1;
  // Leave at least one layer for each later stage.
  for (int last = first; last <= L - (P - s); ++last) {
    cut[s] = last;
    enumerate(pb, cut, s + 1, best);
  }
}

}  // namespace

double partition_load(const PartitionProblem& pb, const std::vector<int>& last_layer) {
  double load = 0;
  int first = 0;
  for (std::size_t s = 0; s < last_layer.size(); ++s) {
    load = std::max(load, stage_load(pb, static_cast<int>(s), first, last_layer[s]));
    if (s + 1 < last_layer.size()) load = std::max(load, pb.boundary_seconds[s][last_layer[s]]);
    first = last_layer[s] + 1;
  }
  return load;
}

Partition partition_chain(const PartitionProblem& pb) {
  check(pb);
  const int P = static_cast<int>(pb.layer_seconds.size());
  const int L = static_cast<int>(pb.layer_seconds[0].size());
  // prefix[i]: seconds of layers [0, i) on the current stage's device.
  std::vector<double> prefix(L + 1, 0);
  auto fill_prefix = [&](int s) {
    for (int l = 0; l < L; ++l) prefix[l + 1] = prefix[l] + pb.layer_seconds[s][l];
  };

  // best[s][l]: min max-load of layers [0, l] on stages [0, s] with s ending
  // at l, the recurrence of PipeDream's dynamic program:
  //   best[s][l] = min over k < l of max(g(k), own(k, l)),
  //   g(k) = max(best[s-1][k], boundary[s-1][k]), own(k, l) = prefix[l+1] - prefix[k+1].
  // own falls as k grows and rises with l (costs are >= 0, and rounding a
  // difference is monotone too), so a k with a later k' whose g is no larger
  // never does better than k': the candidates left form a stack of rising g
  // and falling own, whose max is smallest where g overtakes own (a binary
  // search). O(P L log L) instead of O(P L^2), and the same values, since
  // every max is computed as the plain dynamic program computes it.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(P, std::vector<double>(L, inf));
  fill_prefix(0);
  for (int l = 0; l < L; ++l) best[0][l] = prefix[l + 1];
  std::vector<int> stack;
  for (int s = 1; s < P; ++s) {
    fill_prefix(s);
    const std::vector<double>& before = best[s - 1];
    const std::vector<double>& boundary = pb.boundary_seconds[s - 1];
    auto g = [&](int k) { return std::max(before[k], boundary[k]); };
    auto own = [&](int k, int l) { return prefix[l + 1] - prefix[k + 1]; };
    stack.clear();
    for (int l = s; l <= L - (P - s); ++l) {
      const int k = l - 1;  // the new candidate: stage s - 1 ends right before l
      while (!stack.empty() && g(stack.back()) >= g(k)) stack.pop_back();
      stack.push_back(k);
      // First candidate whose g is at least its own load.
      const auto at = std::partition_point(stack.begin(), stack.end(), [&](int c) { return g(c) < own(c, l); });
      double load = inf;
      if (at != stack.end()) load = g(*at);
      if (at != stack.begin()) load = std::min(load, own(*(at - 1), l));
      best[s][l] = load;
    }
  }

  // The cuts, chosen as the dynamic program chose them: for stage s ending
  // at l, the first k that reaches best[s][l].
  Partition result;
  result.last_layer.assign(P, L - 1);
  for (int s = P - 1; s > 0; --s) {
    fill_prefix(s);
    const int l = result.last_layer[s];
    int k = s - 1;
    while (std::max({best[s - 1][k], pb.boundary_seconds[s - 1][k], prefix[l + 1] - prefix[k + 1]}) > best[s][l]) ++k;
    result.last_layer[s - 1] = k;
  }
  result.max_load = best[P - 1][L - 1];
  return result;
}

Partition partition_brute_force(const PartitionProblem& pb) {
  check(pb);
  Partition best;
  best.max_load = std::numeric_limits<double>::infinity();
  std::vector<int> cut(pb.layer_seconds.size());
  enumerate(pb, cut, 0, best);
  return best;
}

}  // namespace pipesim
