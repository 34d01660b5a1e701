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
// The same for the TP ranks of each replica and stage.
std::string tp_devices_differ(const Platform& platform, const RankMap& map);

// The folding of a job by the shift of k replicas (k divides map.dp), d ->
// d + k: `replica0` is the job built with replica 0 alone (and the DP
// collectives' steps from replica 0 to replica 1); the pairs replicas
// 0..k-1 connect are its pairs and their images, and every one's route is
// checked against its images k replicas on. copies = map.dp / k when the
// links map, each simulated device standing for its images; else copies = 1
// and `what` says which route does not. k = 1 when each replica's routes
// are the next one's; 2 when two replicas share a box (TP 4 in boxes of 8),
// the DP ring then crossing the box's NVLink and its NIC by turns.
// fold_tp: TP rank t -> t + 1 too (replica0 then holds TP rank 0 alone),
// every relabelling the two shifts generate checked on every pair; k = dp
// then folds the TP ranks alone.
Folding fold_replicas(const Platform& platform, const RankMap& map, const TaskGraph& replica0, int k = 1,
                      bool fold_tp = false);

// The platform a folded graph runs on: the same devices and links, each path
// through the canonical link of each orbit, weighted (Path::weights).
Platform folded_platform(const Platform& platform, const Folding& folding);

}  // namespace pipesim
