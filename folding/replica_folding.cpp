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

// Why the devices that relabelling `image(t, d, p, j)` (j = 1..count-1) maps
// onto (t, d, p) = image(..., 0) are not alike (or may not stay alike: a
// platform with profiles); empty when they are.
template <class Image>
std::string images_differ(const Platform& platform, const RankMap& map, int count, const Image& image,
                          const std::string& what) {
  if (platform.time_varying) return "the platform has profiles (speeds or bandwidths that change over time)";
  std::map<std::pair<int, std::string>, std::string> node_source;  // (j, node) -> its image's node, (-j, ...) back
  for (int j = 1; j < count; ++j)
    for (int d = 0; d < map.dp; ++d)
      for (int t = 0; t < map.tp; ++t)
        for (int p = 0; p < map.pp; ++p) {
          const Device &a = platform.devices[image(t, d, p, 0)], &b = platform.devices[image(t, d, p, j)];
          if (a.speed != b.speed || a.memory != b.memory || a.kind != b.kind || a.type != b.type ||
              a.memory_bandwidth != b.memory_bandwidth || !same_resources(a, b))
            return "devices " + a.name + " and " + b.name + " (the same rank in " + what + " 0 and " +
                   std::to_string(j) + ") differ in speed, memory or type";
          // Nodes map one to one, so a group inside a node stays inside one.
          const auto [there, added] = node_source.try_emplace({j, a.node}, b.node);
          const auto [back, back_added] = node_source.try_emplace({-j, b.node}, a.node);
          if ((!added && there->second != b.node) || (!back_added && back->second != a.node))
            return what + " 0 and " + std::to_string(j) + " sit in nodes differently (" + a.name + ", " + b.name + ")";
        }
  return {};
}

}  // namespace

std::string replica_devices_differ(const Platform& platform, const RankMap& map) {
  return images_differ(
      platform, map, map.dp, [&](int t, int, int p, int j) { return map.device(t, j, p); }, "replicas");
}

std::string tp_devices_differ(const Platform& platform, const RankMap& map) {
  return images_differ(
      platform, map, map.tp, [&](int, int d, int p, int j) { return map.device(j, d, p); }, "TP ranks");
}

Folding fold_replicas(const Platform& platform, const RankMap& map, const TaskGraph& replica0, int k, bool fold_tp) {
  Folding f;
  const int D = map.dp, T = fold_tp ? map.tp : 1, n = platform.size();
  const auto L = platform.links.size();
  if (k < 1 || k > D || D % k != 0 || (k == D && T == 1)) {
    f.what = std::to_string(D) + " replicas do not fold by " + std::to_string(k);
    return f;
  }
  // Each device's image j replicas and i TP ranks on.
  const auto shifted = [&](int j, int i) {
    std::vector<int> image(n);
    std::iota(image.begin(), image.end(), 0);
    for (int d = 0; d < D; ++d)
      for (int t = 0; t < map.tp; ++t)
        for (int p = 0; p < map.pp; ++p) image[map.device(t, d, p)] = map.device((t + i) % map.tp, (d + j) % D, p);
    return image;
  };
  const std::vector<int> one = shifted(1, 0);
  if (k < D) f.shifts.push_back(shifted(k, 0));
  if (T > 1) f.shifts.push_back(shifted(0, 1));
  std::vector<std::vector<int>> group;  // every relabelling the shifts generate
  for (int j = 0; j < D; j += k)
    for (int i = 0; i < T; ++i) group.push_back(shifted(j, i));
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
  // pi[h]: each link onto the link its image under shift h crosses, checked
  // on every image of every pair, so that the shifts act on the links as on the devices.
  const std::size_t H = f.shifts.size();
  std::vector<std::vector<int>> pi(H, std::vector<int>(L, -1)), inverse = pi;
  for (const auto& [a, b] : pairs)
    for (const std::vector<int>& g : group)
      for (std::size_t h = 0; h < H; ++h) {
        const int x = g[a], y = g[b], u = f.shifts[h][x], v = f.shifts[h][y];
        const Path &from = platform.path(x, y), &to = platform.path(u, v);
        const auto why = [&] {
          return "the route from " + platform.devices[x].name + " to " + platform.devices[y].name +
                 " and its image from " + platform.devices[u].name + " to " + platform.devices[v].name;
        };
        if (!from.exists || !to.exists || from.links.empty() || from.links.size() != to.links.size()) {
          f.what = why() + " differ in length";
          return f;
        }
        for (std::size_t i = 0; i < from.links.size(); ++i) {
          const int l = from.links[i], m = to.links[i];
          if (!same_link(platform.links[l], platform.links[m])) {
            f.what = why() + " cross unlike links (" + platform.links[l].name + ", " + platform.links[m].name + ")";
            return f;
          }
          if (platform.links[l].sharing == LinkSharing::Other) {
            f.what = "link " + platform.links[l].name + " shares bandwidth in a way (WIFI, NONLINEAR) not folded";
            return f;
          }
          if (pi[h][l] == -1 && inverse[h][m] == -1) {
            pi[h][l] = m;
            inverse[h][m] = l;
          } else if (pi[h][l] != m) {
            f.what = why() + " map link " + platform.links[l].name + " onto two different links";
            return f;
          }
        }
      }
  f.link_canonical.resize(L);
  f.link_orbit.assign(L, 1);
  std::iota(f.link_canonical.begin(), f.link_canonical.end(), 0);
  std::vector<bool> seen(L, false);
  for (std::size_t l = 0; l < L; ++l) {
    if (H == 0 || pi[0][l] < 0 || seen[l]) continue;
    std::vector<int> orbit = {static_cast<int>(l)};
    seen[l] = true;
    for (std::size_t i = 0; i < orbit.size(); ++i)
      for (std::size_t h = 0; h < H; ++h) {
        const int m = pi[h][orbit[i]];
        if (m < 0 || orbit.size() > group.size()) {
          f.what = "link " + platform.links[l].name + " has no image in every replica";
          return f;
        }
        if (!seen[m]) {
          seen[m] = true;
          orbit.push_back(m);
        }
      }
    const int canonical = *std::min_element(orbit.begin(), orbit.end());
    for (const int m : orbit) {
      f.link_canonical[m] = canonical;
      f.link_orbit[m] = static_cast<int>(orbit.size());
    }
  }
  f.device_image.resize(n);
  std::iota(f.device_image.begin(), f.device_image.end(), 0);
  for (int d = 0; d < D; ++d)
    for (int t = 0; t < map.tp; ++t)
      for (int p = 0; p < map.pp; ++p) f.device_image[map.device(t, d, p)] = map.device(t % (map.tp / T), d % k, p);
  f.copies = static_cast<int>(group.size());
  const std::string as = k == 1 ? "one" : std::to_string(k);
  const std::string replicas = std::to_string(D) + " data-parallel replicas";
  const std::string ranks = std::to_string(T) + " tensor-parallel ranks";
  if (T == 1)
    f.what = replicas + " simulated as " + as;
  else if (k == D)
    f.what = ranks + " simulated as one";
  else
    f.what = k == 1 ? replicas + " and " + ranks + " simulated as one"
                    : replicas + " simulated as " + as + ", and " + ranks + " as one";
  return f;
}

Platform folded_platform(const Platform& platform, const Folding& folding) {
  Platform folded = platform;
  folded.paths.clear();
  folded.path_source = std::make_shared<FoldedPaths>(platform, folding);
  return folded;
}

}  // namespace pipesim
