#include "studies/plan/plan_partition.hpp"

#include <limits>
#include <sstream>
#include <string>

#include "workloads/costs.hpp"

namespace pipesim {
namespace {

// What a layer keeps from its forward to its backward: its stash, else its
// input (seed 000's model, as the generators count it).
double stash_bytes(const Workload& w, std::size_t l) {
  if (w.layers[l].stash) return *w.layers[l].stash;
  return l == 0 ? w.input : w.layers[l - 1].activation;
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

std::vector<StageMemoryModel> stage_memory_models(const Workload& w, const PlanBounds& b) {
  const std::vector<int> counts = stage_layer_counts(b);
  if (counts.empty() || counts.size() != b.ranks.size()) return {};
  std::vector<StageMemoryModel> models;
  for (std::size_t s = 0, first = 0; s < counts.size(); first += counts[s], ++s) {
    double weights = 0, stashes = 0;
    for (std::size_t l = first; l < first + counts[s]; ++l)
      weights += w.layers[l].weights, stashes += stash_bytes(w, l);
    const PlanBounds::Rank& r = b.ranks[s];
    StageMemoryModel m;
    m.fixed = w.runtime_reserve;
    m.per_weight = weights > 0 ? (r.static_bytes - w.runtime_reserve) / weights : 0;
    if (!(weights > 0)) m.fixed = r.static_bytes;
    // The passes' bytes: the micro-batches in flight times the stashes, and
    // the workspaces, which the ratio carries along.
    m.per_stash = stashes > 0 ? (r.memory - r.static_bytes) / stashes : 0;
    if (!(stashes > 0)) m.fixed += r.memory - r.static_bytes;
    m.capacity = r.capacity;
    m.speed = r.speed;
    models.push_back(m);
  }
  return models;
}

std::optional<std::vector<int>> fit_layer_counts(const Workload& w, double ref,
                                                 const std::vector<StageMemoryModel>& stages) {
  const int S = static_cast<int>(stages.size()), L = static_cast<int>(w.layers.size());
  if (S == 0 || S > L) return std::nullopt;
  std::vector<double> flops(L + 1, 0), weights(L + 1, 0), stashes(L + 1, 0);  // prefix sums
  for (int l = 0; l < L; ++l) {
    flops[l + 1] = flops[l] + cost_flops(w.layers[l].forward, ref) + cost_flops(w.layers[l].backward, ref);
    weights[l + 1] = weights[l] + w.layers[l].weights;
    stashes[l + 1] = stashes[l] + stash_bytes(w, static_cast<std::size_t>(l));
  }
  const auto fits = [&](int s, int i, int j) {  // layers i..j-1 on stage s
    const StageMemoryModel& m = stages[s];
    return m.fixed + m.per_weight * (weights[j] - weights[i]) + m.per_stash * (stashes[j] - stashes[i]) <= m.capacity;
  };
  const auto seconds = [&](int s, int i, int j) { return (flops[j] - flops[i]) / stages[s].speed; };
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

}  // namespace pipesim
