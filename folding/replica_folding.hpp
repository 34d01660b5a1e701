// Data-parallel replicas that do the same work on the same hardware, found
// and folded: the job is simulated for replica 0 alone (docs/folding.md).
// Folding is exact when one relabelling, replica d -> d + 1, maps the
// platform onto itself as far as the job can see it: every device onto an
// equal one, and every route a transfer of the job takes onto the route of
// its image, link by link, with equal bandwidth, latency and sharing. The
// flows of the whole job are then the images of replica 0's, the max-min
// sharing gives every image the same rate, and one replica's timeline is
// every replica's. Knows only the contracts and the layout.
#pragma once

#include <string>

#include "layout/rank_map.hpp"
#include "sim/folding.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"

namespace pipesim {

// Why the replicas' devices are not alike (speed, memory, device type,
// compute resources, or how they sit in nodes); empty when they are.
std::string replica_devices_differ(const Platform& platform, const RankMap& map);

// The folding of a job whose graph `replica0` holds replica 0's tasks (and
// the DP collectives' steps from replica 0 to replica 1): every transfer's
// route checked against its images. copies = map.dp when the links map; else
// copies = 1 and `what` says which route does not.
Folding fold_replicas(const Platform& platform, const RankMap& map, const TaskGraph& replica0);

// The platform a folded graph runs on: the same devices and links, each path
// through the canonical link of each orbit, weighted (Path::weights).
Platform folded_platform(const Platform& platform, const Folding& folding);

}  // namespace pipesim
