// Headline numbers of one simulated run: times, throughput, per-device
// utilisation and memory, per-link traffic, validity.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/collective_metrics.hpp"
#include "analysis/memory.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

// One compute resource of a device, when tasks run in lanes or on shares of a
// resource (seed 004's split): busy is share-weighted, sum of share x duration.
struct ResourceMetrics {
  std::string type;        // ComputeResource::type (the device's kind if it lists none)
  double busy_time = 0;    // sum over its tasks of share x (finish - start)
  double utilization = 0;  // busy_time / makespan
};

struct DeviceMetrics {
  std::string name;
  double busy_time = 0;        // union of its compute tasks' intervals
  double idle_time = 0;        // makespan - busy_time
  double bubble_fraction = 0;  // idle_time / makespan
  DevicePeak peak;
  int tasks = 0;  // compute tasks placed on it; 0 = unused device
  // Empty unless some compute task of the graph has a resource or lane other
  // than 0 or a share below 1; then one entry per resource of the device.
  // busy_time above stays the union (time when anything ran on the device).
  std::vector<ResourceMetrics> resources{};
};

struct LinkMetrics {
  std::string name;
  double bytes = 0;        // of the transfers that crossed it and finished
  double busy_time = 0;    // union of intervals of transfers crossing it
  double utilization = 0;  // busy_time / makespan
};

struct Metrics {
  double makespan = 0;
  double iteration_time = 0;  // makespan / iterations
  // The last iteration's end after the one before's (iteration_time with one
  // iteration): what a training log prints once iterations overlap, as they
  // do when each device steps on its own (optimizer.post_validation).
  double steady_iteration_time = 0;
  // iteration_time / microbatches: what a user divides by, fill and drain
  // included; the summary's "time per micro-batch".
  double iteration_time_per_microbatch = 0;
  // Steady-state spacing of micro-batch completions (see
  // steady_time_per_microbatch); the summary's "steady state" line. studies/
  // reads it as the measured period.
  double time_per_microbatch = 0;
  double throughput = 0;               // samples/s: microbatches * samples_per_mb * iterations / makespan
  int microbatches = 0;                // max micro-batch index + 1
  int iterations = 0;                  // max iteration index + 1
  std::vector<DeviceMetrics> devices;  // every platform device, in platform order
  std::vector<LinkMetrics> links;      // every timeline link, in timeline order
  std::vector<MemoryViolation> violations;
  std::vector<CollectiveMetrics> collectives;  // per purpose; empty without collectives
  bool completed = true;                       // no deadlock
  std::size_t blocked_tasks = 0;
  std::string deadlock;  // the engine's explanation when not completed
  bool valid = true;     // completed and no violations
};

// (c[last_mb] - c[first_mb]) / (last_mb - first_mb), where c lists the
// completions (latest finish of each micro-batch's tasks in that iteration)
// in time order, so micro-batches finishing out of index order are fine.
// NaN if a micro-batch of the iteration did not finish; throws if last_mb <= first_mb.
double steady_time_per_microbatch(const TaskGraph& graph, const Timeline& timeline, int iteration, int first_mb,
                                  int last_mb);

// time_per_microbatch uses the last iteration and skips the first and last
// quarter of micro-batches (fill and drain); with fewer than two micro-batches
// left it falls back to iteration_time / microbatches. With a folding
// (sim/folding.hpp) the graph is one replica's, and every device and link
// gets the figures of the one it is an image of.
Metrics compute_metrics(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                        int samples_per_microbatch, const Folding* folding = nullptr);

}  // namespace pipesim
