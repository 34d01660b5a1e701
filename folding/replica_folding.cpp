#include "folding/replica_folding.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <unordered_map>

namespace pipesim {
namespace {

bool same_resources(const Device& a, const Device& b) {
  if (a.resources.size() != b.resources.size()) return false;
  for (std::size_t i = 0; i < a.resources.size(); ++i) {
    const ComputeResource &x = a.resources[i], &y = b.resources[i];
    if (x.type != y.type || x.speed != y.speed || x.forward_speed != y.forward_speed ||
        x.backward_speed != y.backward_speed)
      return false;
  }
  return true;
}

bool same_link(const NetworkLink& a, const NetworkLink& b) {
  return a.bandwidth == b.bandwidth && a.latency == b.latency && a.sharing == b.sharing;
}

// Paths through the canonical link of each orbit, each weighted by the flows
// of the whole job one flow there stands for; found once per pair.
class FoldedPaths : public PathSource {
 public:
  FoldedPaths(const Platform& base, const Folding& folding) : base_(base), folding_(folding) {}
  const Path& path(int from, int to) const override {
    const std::uint64_t key = static_cast<std::uint64_t>(from) * base_.devices.size() + static_cast<std::uint64_t>(to);
    const auto found = cache_.find(key);
    if (found != cache_.end()) return found->second;
    const Path& real = base_.path(from, to);
    Path folded = real;
    folded.links.clear();
    for (const int l : real.links) {
      const int c = folding_.link_canonical[l];
      const double weight = base_.links[l].sharing == LinkSharing::Shared ? folding_.link_weight(c) : 1;
      const auto at = std::find(folded.links.begin(), folded.links.end(), c);
      if (at == folded.links.end()) {
        folded.links.push_back(c);
        folded.weights.push_back(weight);
      } else if (weight != 1) {  // two links of one orbit: the flows on both
        folded.weights[static_cast<std::size_t>(at - folded.links.begin())] += weight;
      }
    }
    return cache_.emplace(key, std::move(folded)).first->second;
  }

 private:
  const Platform& base_;
  Folding folding_;
  mutable std::unordered_map<std::uint64_t, Path> cache_;
};

}  // namespace

std::string replica_devices_differ(const Platform& platform, const RankMap& map) {
  if (platform.time_varying) return "the platform has profiles (speeds or bandwidths that change over time)";
  std::map<std::string, std::string> node_image;  // replica 0's node -> replica d's
  std::map<std::pair<int, std::string>, std::string> node_source;
  for (int d = 1; d < map.dp; ++d)
    for (int t = 0; t < map.tp; ++t)
      for (int p = 0; p < map.pp; ++p) {
        const Device &a = platform.devices[map.device(t, 0, p)], &b = platform.devices[map.device(t, d, p)];
        if (a.speed != b.speed || a.memory != b.memory || a.kind != b.kind || a.type != b.type ||
            a.memory_bandwidth != b.memory_bandwidth || !same_resources(a, b))
          return "devices " + a.name + " and " + b.name + " (the same rank in replicas 0 and " + std::to_string(d) +
                 ") differ in speed, memory or type";
        // Nodes map one to one, so a group inside a node stays inside one.
        const auto [there, added] = node_source.try_emplace({d, a.node}, b.node);
        const auto [back, back_added] = node_source.try_emplace({-d, b.node}, a.node);
        if ((!added && there->second != b.node) || (!back_added && back->second != a.node))
          return "replicas 0 and " + std::to_string(d) + " sit in nodes differently (" + a.name + ", " + b.name + ")";
      }
  return {};
}

Folding fold_replicas(const Platform& platform, const RankMap& map, const TaskGraph& replica0, int k) {
  Folding f;
  const int D = map.dp, n = platform.size();
  const auto L = platform.links.size();
  if (k < 1 || k >= D || D % k != 0) {
    f.what = std::to_string(D) + " replicas do not fold by " + std::to_string(k);
    return f;
  }
  // shift[j]: each device's image j replicas on.
  const auto shifted = [&](int j) {
    std::vector<int> image(n);
    std::iota(image.begin(), image.end(), 0);
    for (int d = 0; d < D; ++d)
      for (int t = 0; t < map.tp; ++t)
        for (int p = 0; p < map.pp; ++p) image[map.device(t, d, p)] = map.device(t, (d + j) % D, p);
    return image;
  };
  const std::vector<int> one = shifted(1);
  std::vector<int> next = shifted(k);
  std::vector<bool> in_job(n, false);
  for (int d = 0; d < D; ++d)
    for (int t = 0; t < map.tp; ++t)
      for (int p = 0; p < map.pp; ++p) in_job[map.device(t, d, p)] = true;
  if (L == 0) {
    f.what = "the platform's paths list no links, so routes cannot be compared";
    return f;
  }
  // The pairs replicas 0..k-1 connect: replica 0's and their images.
  std::set<std::pair<int, int>> pairs;
  for (std::size_t s = 0; s < replica0.shape_count(); ++s) {
    const Task& task = replica0.shape(static_cast<std::uint32_t>(s)).task;
    if (!is_transfer(task.kind) || task.device == task.peer) continue;
    if (!in_job[task.device] || !in_job[task.peer]) {
      f.what = "a transfer leaves the job's devices (" + platform.devices[task.device].name + " to " +
               platform.devices[task.peer].name + ")";
      return f;
    }
    for (int j = 0, a = task.device, b = task.peer; j < k; ++j, a = one[a], b = one[b]) pairs.insert({a, b});
  }
  // pi: each link onto the link its image crosses k replicas on.
  std::vector<int> pi(L, -1), inverse(L, -1);
  for (const auto& [a, b] : pairs) {
    int x = a, y = b;
    const Path* from = &platform.path(x, y);
    for (int j = 0; j < D / k; ++j) {
      const Path& to = platform.path(next[x], next[y]);
      const auto why = [&] {
        return "the route from " + platform.devices[x].name + " to " + platform.devices[y].name +
               " and its image from " + platform.devices[next[x]].name + " to " + platform.devices[next[y]].name;
      };
      if (!from->exists || !to.exists || from->links.empty() || from->links.size() != to.links.size()) {
        f.what = why() + " differ in length";
        return f;
      }
      for (std::size_t i = 0; i < from->links.size(); ++i) {
        const int l = from->links[i], m = to.links[i];
        if (!same_link(platform.links[l], platform.links[m])) {
          f.what = why() + " cross unlike links (" + platform.links[l].name + ", " + platform.links[m].name + ")";
          return f;
        }
        if (platform.links[l].sharing == LinkSharing::Other) {
          f.what = "link " + platform.links[l].name + " shares bandwidth in a way (WIFI, NONLINEAR) not folded";
          return f;
        }
        if (pi[l] == -1 && inverse[m] == -1) {
          pi[l] = m;
          inverse[m] = l;
        } else if (pi[l] != m) {
          f.what = why() + " map link " + platform.links[l].name + " onto two different links";
          return f;
        }
      }
      from = &to;
      x = next[x];
      y = next[y];
    }
  }
  f.link_canonical.resize(L);
  f.link_orbit.assign(L, 1);
  std::iota(f.link_canonical.begin(), f.link_canonical.end(), 0);
  std::vector<bool> seen(L, false);
  for (std::size_t l = 0; l < L; ++l) {
    if (pi[l] < 0 || seen[l]) continue;
    std::vector<int> orbit;
    for (int m = static_cast<int>(l); !seen[m]; m = pi[m]) {
      if (m < 0 || static_cast<int>(orbit.size()) > D / k) {
        f.what = "link " + platform.links[l].name + " has no image in every replica";
        return f;
      }
      seen[m] = true;
      orbit.push_back(m);
    }
    const int canonical = *std::min_element(orbit.begin(), orbit.end());
    for (const int m : orbit) {
      f.link_canonical[m] = canonical;
      f.link_orbit[m] = static_cast<int>(orbit.size());
    }
  }
  f.device_image.resize(n);
  std::iota(f.device_image.begin(), f.device_image.end(), 0);
  for (int d = k; d < D; ++d)
    for (int t = 0; t < map.tp; ++t)
      for (int p = 0; p < map.pp; ++p) f.device_image[map.device(t, d, p)] = map.device(t, d % k, p);
  f.next_device = std::move(next);
  f.copies = D / k;
  f.what = std::to_string(D) + " data-parallel replicas simulated as " + (k == 1 ? "one" : std::to_string(k));
  return f;
}

Platform folded_platform(const Platform& platform, const Folding& folding) {
  Platform folded = platform;
  folded.paths.clear();
  folded.path_source = std::make_shared<FoldedPaths>(platform, folding);
  return folded;
}

}  // namespace pipesim
