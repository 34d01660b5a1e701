#include "schedules/stages/partition.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace pipesim {
namespace {

void check(const PartitionProblem& pb) {
  const std::size_t P = pb.layer_seconds.size();
  if (P == 0) throw std::invalid_argument("partition: no stages");
  const std::size_t L = pb.layer_seconds[0].size();
  if (P > L) throw std::invalid_argument("partition: more stages than layers");
  for (const auto& row : pb.layer_seconds)
    if (row.size() != L) throw std::invalid_argument("partition: ragged layer_seconds");
  if (pb.boundary_seconds.size() + 1 < P)
    throw std::invalid_argument("partition: missing boundary_seconds rows");
  for (std::size_t s = 0; s + 1 < P; ++s)
    if (pb.boundary_seconds[s].size() + 1 < L)
      throw std::invalid_argument("partition: short boundary_seconds row");
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
  // prefix[s][i]: seconds of layers [0, i) on stage s's device.
  std::vector<std::vector<double>> prefix(P, std::vector<double>(L + 1, 0));
  for (int s = 0; s < P; ++s)
    for (int l = 0; l < L; ++l) prefix[s][l + 1] = prefix[s][l] + pb.layer_seconds[s][l];

  // best[s][l]: min max-load of layers [0, l] on stages [0, s] with s ending at l;
  // from[s][l]: where stage s-1 ends in that optimum.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(P, std::vector<double>(L, inf));
  std::vector<std::vector<int>> from(P, std::vector<int>(L, -1));
  for (int l = 0; l < L; ++l) best[0][l] = prefix[0][l + 1];
  for (int s = 1; s < P; ++s) {
    for (int l = s; l <= L - (P - s); ++l) {
      for (int k = s - 1; k < l; ++k) {
        const double own = prefix[s][l + 1] - prefix[s][k + 1];
        const double load = std::max({best[s - 1][k], pb.boundary_seconds[s - 1][k], own});
        if (load < best[s][l]) {
          best[s][l] = load;
          from[s][l] = k;
        }
      }
    }
  }

  Partition result;
  result.last_layer.assign(P, L - 1);
  for (int s = P - 1; s > 0; --s) result.last_layer[s - 1] = from[s][result.last_layer[s]];
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
