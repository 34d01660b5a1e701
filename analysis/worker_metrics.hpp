// Seed 003's per-worker quantities (Table 1 and the throughput bound), read
// from a task graph and its timeline: receives of activations, gradients and
// weights, stash and weight-copy counts, latency and throughput per worker.
// Counts are in the seed's units (one stash = one (stage, micro-batch)
// activation, one weight copy = one stage's weights), so they do not depend
// on byte sizes; bytes are reported beside them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/memory.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

struct WorkerMetrics {
  int device = 0;
  std::string name;
  int jobs = 0;  // compute tasks run on it
  // Sum of its compute tasks' durations, each times its Task::share (1 but
  // for split): resource-seconds, so a device with several resources can
  // exceed L.
  double busy_time = 0;
  double last_finish = 0;  // when its last compute task finished (its own latency)
  double rho = 0;          // busy_time / L: this worker's share of the round spent computing
  // Receives (seed 003, "Latency, network, and memory usage"): transfers into
  // this worker. An activation receive is a Transfer fed by a Forward (the
  // input of F(s, b) computed elsewhere: the seed's count); a gradient receive
  // one fed by a Backward; a weight receive a WeightFetch.
  int activation_receives = 0;
  int gradient_receives = 0;
  int weight_receives = 0;
  double activation_bytes_received = 0;
  double gradient_bytes_received = 0;
  double weight_bytes_received = 0;
  double bytes_sent = 0;  // every transfer out of it
  // Peak number of stashes held at once: a stash is held from the start of
  // F(s, b) to the end of the B(s, b) of the same stage, micro-batch and
  // iteration on this worker (frees before allocations at equal times).
  int peak_activations = 0;
  // Stages whose weights this worker owns (the seed's "weight storage"): it
  // sends them (is the source of a WeightFetch of that stage) or runs a
  // Forward of that stage without fetching them.
  int owned_weights = 0;
  // Owned stages plus fetched copies held at once; a copy is held from the
  // start of its WeightFetch to the end of the compute task it feeds or, for
  // a forward's copy, of the B(s, b) of the same stage and micro-batch on
  // this worker unless that backward has a WeightFetch of its own.
  int peak_weights = 0;
  DevicePeak memory;  // bytes, from the graph's memory effects
};

struct WorkerReport {
  int stages = 0;        // S: distinct stages of the compute tasks
  int microbatches = 0;  // B: distinct micro-batches of the compute tasks
  int workers = 0;       // W: devices that run at least one compute task
  double latency = 0;    // L: the makespan (the seed's max_j t(j); the round starts at 0)
  double work = 0;       // sum of all compute durations
  // Throughput per worker: work / (W L), the fraction of worker time spent
  // computing. With identical stages whose F + B takes one unit of time,
  // work = S B units and this is the seed's rho = S B / (L W), L in units.
  double rho = 0;
  int peak_activations = 0;  // M: the largest peak_activations over workers
  double rho_bound = 0;      // the seed's theorem: rho <= M / S
  double activation_bytes_moved = 0;
  double gradient_bytes_moved = 0;
  double weight_bytes_moved = 0;
  std::vector<WorkerMetrics> per_worker;  // the W workers, in device order
};

// Reads only finished tasks; a deadlocked run gives partial numbers.
WorkerReport compute_worker_metrics(const TaskGraph& graph, const Timeline& timeline, const Platform& platform);

// A fixed-width table, one row per worker, then the round's totals.
void write_worker_report(std::ostream& out, const WorkerReport& report);

}  // namespace pipesim
