// What a periodic pattern implies without simulating it: its timed event
// graph (whose maximum cycle ratio is the exact steady-state period of the
// unrolled schedule) and its steady-state memory per device (seed 000 §6.2).
// Header-only use of schedules/: this library does not link it.
#pragma once

#include <vector>

#include "patterns/pattern.hpp"
#include "patterns/pattern_timing.hpp"
#include "sim/event_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// One node per op and per transfer; firing i of a node is its instance in
// period i. Arcs (delay = duration of the source):
//  - data, producer -> transfer -> consumer (or producer -> consumer on one
//    device), tokens = shift(producer) - shift(consumer): period i of the
//    consumer handles the micro-batch its producer handled in period
//    i - tokens;
//  - device order: each device's ops in period order (start, task number,
//    copy), 0 tokens, the last back to the first with 1 token;
//  - link order: the same for the transfers that hold each link resource
//    (timing.transfer_links: under pattern.links = Platform every Shared
//    link of the route, under Pair the unordered device pair); a transfer
//    holding several is on several cycles; transfers of 0 bytes hold none.
// These are exactly the constraints of unroll_pattern's task graph, so the
// maximum cycle ratio (exact_period) is its steady-state time per period.
// Throws std::invalid_argument if the timing does not fit the pattern or a
// cross-device pair has no transfer.
TimedEventGraph pattern_event_graph(const Pattern& pattern, const PatternTiming& timing);

struct PatternDeviceMemory {
  double peak = 0;              // steady state: the largest total while one of its ops runs
  MemoryBreakdown breakdown{};  // at the peak (the first op reaching it in period order)
  int peak_op = -1;             // that op; -1 if the device runs no op of positive duration
  int in_flight = 0;            // most micro-batches of one layer between its F start and B end
};

struct PatternMemory {
  std::vector<PatternDeviceMemory> devices;  // one per device
  std::vector<MemoryBreakdown> during;       // per op: its device's memory while it runs (seed 000's M_l)
  std::vector<int> stash_counts;             // per layer: most a_{l-1} stashed at once, all copies of it on one device
};

// Seed 000 §6.2 from the shifts and the device orders alone (Lemmas 8-11,
// generalised to any shifts and k copies); the categories and effects are
// those of unroll_pattern (docs/memory-model.md). A simulation that reaches
// the steady state peaks at exactly `peak`. Ops of zero duration are skipped
// for the peak: the engine starts and ends them in one instant.
PatternMemory pattern_memory(const Pattern& pattern, const PatternTiming& timing, const Workload& workload,
                             int device_count);

}  // namespace pipesim
