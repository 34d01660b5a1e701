#include "studies/plan/plan_partition.hpp"

#include <limits>
#include <sstream>
#include <string>
#include <tuple>

#include "workloads/costs.hpp"

namespace pipesim {
namespace {

// What a layer keeps from its forward to its backward: its stash, else its
// input (seed 000's model, as the generators count it).
double stash_bytes(const Workload& w, std::size_t l) {
  if (w.layers[l].stash) return *w.layers[l].stash;
  return l == 0 ? w.input : w.layers[l - 1].activation;
}

// Prefix sums over the layers: compute flops, weights, stashes.
struct LayerSums {
  std::vector<double> flops, weights, stashes;
  LayerSums(const Workload& w, double ref) : flops(w.layers.size() + 1), weights(flops), stashes(flops) {
    for (std::size_t l = 0; l < w.layers.size(); ++l) {
      flops[l + 1] = flops[l] + cost_flops(w.layers[l].forward, ref) + cost_flops(w.layers[l].backward, ref);
      weights[l + 1] = weights[l] + w.layers[l].weights;
      stashes[l + 1] = stashes[l] + stash_bytes(w, l);
    }
  }
};

double modelled_bytes(const RankMemoryModel& m, double weights, double stashes) {
  return m.fixed + m.per_weight * weights + m.per_stash * stashes;
}

// One stage per rank: the dynamic program over contiguous splits.
std::optional<std::vector<int>> fastest_fitting_split(const LayerSums& sum, const std::vector<RankMemoryModel>& ranks) {
  const int S = static_cast<int>(ranks.size()), L = static_cast<int>(sum.flops.size()) - 1;
  const auto fits = [&](int s, int i, int j) {  // layers i..j-1 on stage s
    return modelled_bytes(ranks[s], sum.weights[j] - sum.weights[i], sum.stashes[j] - sum.stashes[i]) <=
           ranks[s].capacity;
  };
  const auto seconds = [&](int s, int i, int j) { return (sum.flops[j] - sum.flops[i]) / ranks[s].speed; };
  // best[s][j]: the least busiest-stage seconds of layers 0..j-1 on stages
  // 0..s, each stage non-empty and fitting; cut[s][j]: stage s's first layer.
  constexpr double kNone = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(S, std::vector<double>(L + 1, kNone));
  std::vector<std::vector<int>> cut(S, std::vector<int>(L + 1, -1));
  for (int j = 1; j <= L; ++j)
    if (fits(0, 0, j)) best[0][j] = seconds(0, 0, j), cut[0][j] = 0;
  for (int s = 1; s < S; ++s)
    for (int j = s + 1; j <= L; ++j)
      for (int i = s; i < j; ++i) {
        if (best[s - 1][i] == kNone || !fits(s, i, j)) continue;
        const double t = std::max(best[s - 1][i], seconds(s, i, j));
        if (t < best[s][j]) best[s][j] = t, cut[s][j] = i;
      }
  if (best[S - 1][L] == kNone) return std::nullopt;
  std::vector<int> counts(S);
  for (int s = S - 1, j = L; s >= 0; --s) {
    counts[s] = j - cut[s][j];
    j = cut[s][j];
  }
  return counts;
}

// Several stages per rank: the local search from START.
std::optional<std::vector<int>> descend_to_fit(const LayerSums& sum, const std::vector<RankMemoryModel>& ranks,
                                               const std::vector<int>& stage_rank, std::vector<int> counts) {
  const int S = static_cast<int>(counts.size()), L = static_cast<int>(sum.flops.size()) - 1;
  // What the search lowers, in order: bytes over capacity, the busiest
  // rank's seconds, the sum of squared rank seconds (each beyond round-off).
  const auto score = [&](const std::vector<int>& n) {
    std::vector<double> flops(ranks.size(), 0), weights(ranks.size(), 0), stashes(ranks.size(), 0);
    for (int s = 0, first = 0; s < S; first += n[s], ++s) {
      const int r = stage_rank[s], end = first + n[s];
      flops[r] += sum.flops[end] - sum.flops[first];
      weights[r] += sum.weights[end] - sum.weights[first];
      stashes[r] += sum.stashes[end] - sum.stashes[first];
    }
    double over = 0, busiest = 0, squares = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      over += std::max(0.0, modelled_bytes(ranks[r], weights[r], stashes[r]) - ranks[r].capacity);
      const double seconds = flops[r] / ranks[r].speed;
      busiest = std::max(busiest, seconds), squares += seconds * seconds;
    }
    return std::tuple{over, busiest, squares};
  };
  const auto below = [](const std::tuple<double, double, double>& a, const std::tuple<double, double, double>& b) {
    constexpr double eps = 1e-9;
    const auto [ao, ab, as] = a;
    const auto [bo, bb, bs] = b;
    if (ao < bo - eps * (1 + bo)) return true;
    if (ao > bo + eps * (1 + bo)) return false;
    if (ab < bb * (1 - eps)) return true;
    return ab <= bb * (1 + eps) && as < bs * (1 - eps);
  };
  auto current = score(counts);
  for (int step = 0; step < S * L; ++step) {
    auto best = current;
    std::vector<int> chosen;
    for (int b = 0; b + 1 < S; ++b)
      for (const int toward : {1, -1}) {  // a layer from stage b to b+1, or back
        std::vector<int> n = counts;
        n[b] -= toward, n[b + 1] += toward;
        if (n[b] < 1 || n[b + 1] < 1) continue;
        if (const auto now = score(n); below(now, best)) best = now, chosen = n;
      }
    if (chosen.empty()) break;
    counts = chosen, current = best;
  }
  if (std::get<0>(current) > 0) return std::nullopt;
  return counts;
}

}  // namespace

std::vector<int> stage_layer_counts(const PlanBounds& b) {
  std::vector<int> counts;
  std::istringstream text(b.stages);
  for (std::string range; text >> range;) {
    const std::size_t dash = range.find('-');
    if (dash == std::string::npos) return {};
    counts.push_back(std::stoi(range.substr(dash + 1)) - std::stoi(range.substr(0, dash)) + 1);
  }
  return counts;
}

std::vector<RankMemoryModel> rank_memory_models(const Workload& w, const PlanBounds& b) {
  const std::vector<int> counts = stage_layer_counts(b);
  if (counts.empty() || counts.size() != b.stage_rank.size()) return {};
  std::vector<double> weights(b.ranks.size(), 0), stashes(b.ranks.size(), 0);
  for (std::size_t s = 0, first = 0; s < counts.size(); first += counts[s], ++s) {
    const std::size_t r = static_cast<std::size_t>(b.stage_rank[s]);
    if (r >= b.ranks.size()) return {};
    for (std::size_t l = first; l < first + counts[s]; ++l)
      weights[r] += w.layers[l].weights, stashes[r] += stash_bytes(w, l);
  }
  std::vector<RankMemoryModel> models;
  for (std::size_t r = 0; r < b.ranks.size(); ++r) {
    const PlanBounds::Rank& rank = b.ranks[r];
    RankMemoryModel m;
    m.fixed = w.runtime_reserve;
    m.per_weight = weights[r] > 0 ? (rank.static_bytes - w.runtime_reserve) / weights[r] : 0;
    if (!(weights[r] > 0)) m.fixed = rank.static_bytes;
    // The passes' bytes: the micro-batches in flight times the stashes, and
    // the workspaces, which the ratio carries along.
    m.per_stash = stashes[r] > 0 ? (rank.memory - rank.static_bytes) / stashes[r] : 0;
    if (!(stashes[r] > 0)) m.fixed += rank.memory - rank.static_bytes;
    m.capacity = rank.capacity;
    m.speed = rank.speed;
    models.push_back(m);
  }
  return models;
}

std::optional<std::vector<int>> fit_layer_counts(const Workload& w, double ref,
                                                 const std::vector<RankMemoryModel>& ranks,
                                                 const std::vector<int>& stage_rank, const std::vector<int>& start) {
  const int S = static_cast<int>(stage_rank.size()), L = static_cast<int>(w.layers.size());
  if (S == 0 || S > L || ranks.empty()) return std::nullopt;
  const LayerSums sum(w, ref);
  bool one_per_rank = S == static_cast<int>(ranks.size());
  for (int s = 0; s < S && one_per_rank; ++s) one_per_rank = stage_rank[s] == s;
  if (one_per_rank) return fastest_fitting_split(sum, ranks);
  if (static_cast<int>(start.size()) != S) return std::nullopt;
  return descend_to_fit(sum, ranks, stage_rank, start);
}

}  // namespace pipesim
