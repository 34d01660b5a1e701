#include "patterns/link_resources.hpp"

#include <algorithm>

namespace pipesim {

LinkResources::LinkResources(const Platform& platform, LinkModel model) : platform_(platform), model_(model) {}

int LinkResources::id(long long key, const std::string& name) {
  const auto [it, added] = ids_.try_emplace(key, static_cast<int>(names_.size()));
  if (added) names_.push_back(name);
  return it->second;
}

std::vector<int> LinkResources::route(int from, int to) {
  const Path& path = platform_.path(from, to);
  if (model_ == LinkModel::Pair || path.links.empty()) {
    const int a = std::min(from, to), b = std::max(from, to);
    const long long key = -1 - (static_cast<long long>(a) * platform_.size() + b);
    return {id(key, platform_.devices[a].name + "-" + platform_.devices[b].name)};
  }
  std::vector<int> out;
  for (int link : path.links) {
    const NetworkLink& l = platform_.links.at(link);
    if (l.sharing == LinkSharing::FatPipe) continue;
    const int r = id(link, l.name);
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

bool LinkResources::share(int from1, int to1, int from2, int to2) {
  const std::vector<int> a = route(from1, to1), b = route(from2, to2);
  for (int r : a)
    if (std::find(b.begin(), b.end(), r) != b.end()) return true;
  return false;
}

}  // namespace pipesim
