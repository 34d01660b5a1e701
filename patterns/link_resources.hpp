// Which link resources a transfer holds exclusively, under a LinkModel:
// what the pattern timing, its event graph, validation, the generators and
// the ILP serialize (docs/pattern-format.md, "links").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "patterns/pattern.hpp"
#include "sim/platform.hpp"

namespace pipesim {

class LinkResources {
 public:
  // The platform must outlive this object.
  LinkResources(const Platform& platform, LinkModel model);

  // The resources a transfer from -> to (two different devices) holds for
  // its whole duration, as dense ids in route order (assigned on first use):
  //  - Pair: one resource per unordered device pair (seed 000 eq. 9);
  //  - Platform: every Shared (and WIFI / NONLINEAR: Other) link of the
  //    route, so a SPLITDUPLEX link's two directions are two resources and
  //    a multi-hop route holds all of them; FatPipe links hold nothing (each
  //    flow gets their full bandwidth). A path without links (a hand-filled
  //    path table) holds the unordered pair, as under Pair.
  std::vector<int> route(int from, int to);
  // Whether the two routes hold a common resource.
  bool share(int from1, int to1, int from2, int to2);
  // Per id: the link's name, or "A-B" (device names) for a device pair.
  const std::vector<std::string>& names() const { return names_; }

 private:
  int id(long long key, const std::string& name);

  const Platform& platform_;
  LinkModel model_;
  std::map<long long, int> ids_;  // link index, or -1 - (min * P + max) for a pair
  std::vector<std::string> names_;
};

}  // namespace pipesim
