// A cluster description built in SimGrid: the hosts and links that
// make_platform.py's XML declares, in one zone of SimGrid's routing
// interface (NetZoneImpl) that computes a route from the two hosts' box and
// rank when SimGrid asks for it, instead of a Full zone's table of every
// pair. The routes are those the XML writes, link for link and direction for
// direction (tests/sim/engine/test_cluster_platform.cpp), so a run gives the
// same bytes on either; memory grows with the GPUs, not their pairs.
#pragma once

#include "sim/engine/cluster_description.hpp"

namespace pipesim {

// Builds the description as the platform's root zone and seals it. Call once,
// on a new Engine that has loaded no platform.
void build_cluster_platform(const ClusterDescription& description);

// Hosts and links (a SPLITDUPLEX link counts twice, as SimGrid holds it)
// that the description makes, for the memory estimate (platform_size.hpp).
struct ClusterCounts {
  double hosts = 0;
  double links = 0;
};
ClusterCounts count_cluster(const ClusterDescription& description);

}  // namespace pipesim
