#include "layout/rank_map.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "sim/input_error.hpp"

namespace pipesim {
namespace {

// The pipeline platform's paths: the whole platform's, renumbered.
class RenumberedPaths : public PathSource {
 public:
  RenumberedPaths(const Platform& whole, std::vector<int> devices) : whole_(whole), devices_(std::move(devices)) {}
  const Path& path(int from, int to) const override { return whole_.path(devices_.at(from), devices_.at(to)); }

 private:
  Platform whole_;  // a copy: its path source is shared, its devices are small
  std::vector<int> devices_;
};

// The position of t, d, p in the flat rank, innermost first along `order`.
int flat_rank(const std::string& order, int t, int d, int p, int tp, int dp, int pp) {
  const std::map<std::string, std::pair<int, int>> axes = {{"tp", {t, tp}}, {"dp", {d, dp}}, {"pp", {p, pp}}};
  int rank = 0, stride = 1;
  for (std::size_t at = 0; at < order.size();) {
    const std::size_t dash = std::min(order.find('-', at), order.size());
    const auto [index, size] = axes.at(order.substr(at, dash - at));
    rank += index * stride;
    stride *= size;
    at = dash + 1;
  }
  return rank;
}

}  // namespace

std::vector<int> RankMap::pipeline(int t, int d) const {
  std::vector<int> out;
  for (int p = 0; p < pp; ++p) out.push_back(device(t, d, p));
  return out;
}

std::vector<int> RankMap::tp_group(int d, int p) const {
  std::vector<int> out;
  for (int t = 0; t < tp; ++t) out.push_back(device(t, d, p));
  return out;
}

std::vector<int> RankMap::dp_group(int t, int p) const {
  std::vector<int> out;
  for (int d = 0; d < dp; ++d) out.push_back(device(t, d, p));
  return out;
}

RankMap make_rank_map(const Workload& w, const Platform& platform) {
  const Parallel& par = w.parallel;
  std::vector<int> ranks;  // device of each flat rank
  if (!par.devices.empty()) {
    for (std::size_t i = 0; i < par.devices.size(); ++i) {
      const std::string field = "parallel.devices[" + std::to_string(i) + "]";
      const int d = platform.find(par.devices[i]);
      if (d < 0) throw InputError(w.file, field, "no host '" + par.devices[i] + "' in " + platform.file);
      if (is_host_memory(platform.devices[d]))
        throw InputError(w.file, field, "host '" + par.devices[i] + "' is host memory (kind host) and runs no rank");
      ranks.push_back(d);
    }
  } else {
    ranks = compute_devices(platform);
    if (par.gpus > static_cast<int>(ranks.size()))
      throw InputError(w.file, "parallel.gpus",
                       std::to_string(par.gpus) + " GPUs, but " + platform.file + " has " +
                           std::to_string(ranks.size()) + " compute devices");
    if (par.gpus > 0) ranks.resize(static_cast<std::size_t>(par.gpus));
  }
  RankMap map;
  map.tp = par.tp;
  map.dp = par.dp;
  const int n = static_cast<int>(ranks.size());
  const std::string where = !par.devices.empty() ? std::to_string(n) + " devices in parallel.devices"
                            : par.gpus > 0       ? std::to_string(n) + " GPUs in parallel.gpus"
                                                 : std::to_string(n) + " compute devices in " + platform.file;
  const long long replicas = static_cast<long long>(par.tp) * par.dp;
  if (par.pp > 0) {
    map.pp = par.pp;
    if (replicas * par.pp != n)
      throw InputError(w.file, "parallel",
                       "tp x pp x dp = " + std::to_string(par.tp) + " x " + std::to_string(par.pp) + " x " +
                           std::to_string(par.dp) + " = " + std::to_string(replicas * par.pp) +
                           " ranks, but there are " + where);
  } else {
    if (n % replicas != 0 || n < replicas)
      throw InputError(
          w.file, "parallel",
          "tp x dp = " + std::to_string(replicas) + " does not divide the " + where + " (give pp, or a device list)");
    map.pp = static_cast<int>(n / replicas);
  }
  map.devices.assign(ranks.size(), -1);
  for (int d = 0; d < map.dp; ++d)
    for (int t = 0; t < map.tp; ++t)
      for (int p = 0; p < map.pp; ++p)
        map.devices[(static_cast<std::size_t>(d) * map.tp + t) * map.pp + p] =
            ranks[flat_rank(par.order, t, d, p, map.tp, map.dp, map.pp)];
  return map;
}

Platform pipeline_platform(const Platform& platform, const std::vector<int>& devices, bool with_hosts) {
  std::vector<int> all = devices;
  if (with_hosts)
    for (const int h : host_memory_devices(platform)) all.push_back(h);
  Platform view;
  view.file = platform.file;
  view.links = platform.links;
  view.time_varying = platform.time_varying;
  for (const int d : all) view.devices.push_back(platform.devices.at(d));
  view.path_source = std::make_shared<RenumberedPaths>(platform, all);
  return view;
}

void map_pipeline_hosts(RankMap& map, const Platform& platform, const std::string& file) {
  const std::vector<int> hosts = host_memory_devices(platform);
  map.host_count = static_cast<int>(hosts.size());
  map.hosts.clear();
  for (int d = 0; d < map.dp; ++d)
    for (int t = 0; t < map.tp; ++t) {
      std::vector<int> mine = hosts;  // a host no rank offloads to stays itself
      std::vector<bool> set(hosts.size(), false);
      for (int p = 0; p < map.pp; ++p) {
        const int first = host_memory_of(platform, map.device(0, 0, p)),
                  own = host_memory_of(platform, map.device(t, d, p));
        if (first < 0 || own < 0) continue;  // the program says so, if this rank offloads
        const std::size_t j = static_cast<std::size_t>(std::find(hosts.begin(), hosts.end(), first) - hosts.begin());
        if (set[j] && mine[j] != own)
          throw InputError(file, "memory_saving",
                           "the GPUs of TP rank " + std::to_string(t) + ", replica " + std::to_string(d) +
                               " offload to different hosts where the first replica's share " +
                               platform.devices[first].name + ": give a platform whose boxes are alike");
        mine[j] = own, set[j] = true;
      }
      map.hosts.insert(map.hosts.end(), mine.begin(), mine.end());
    }
}

}  // namespace pipesim
