// Memory over time: the task graph's memory effects replayed at the times
// the engine recorded, per device and category.
#pragma once

#include <array>
#include <functional>
#include <vector>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

struct MemorySample {
  double time;
  int device;
  MemoryCategory category;
  double bytes;  // level of (device, category) after the event
};

// Static memory first (one sample per device and category, at time 0), then
// every effect whose task started (AtStart) or finished (AtFinish), sorted by
// time. At equal times frees come before allocations, so a buffer freed when
// a task finishes is reusable by a task starting at that instant; remaining
// ties go AtFinish before AtStart, then by task id, then by insertion order.
// Effects of tasks that never started or finished are skipped.
std::vector<MemorySample> memory_trace(const TaskGraph& graph, const Timeline& timeline);
// The same samples in the same order, handed to visit one by one instead of
// stored: millions of effects need not be held twice.
void for_each_memory_sample(const TaskGraph& graph, const Timeline& timeline,
                            const std::function<void(const MemorySample&)>& visit);

struct DevicePeak {
  double total = 0;                  // highest sum over categories
  double time = 0;                   // first instant at which it was reached
  MemoryBreakdown breakdown{};       // per category at that instant
  MemoryBreakdown category_peaks{};  // each category's own highest level
};

struct MemoryViolation {
  int device = 0;
  double time = 0;  // first instant the device's total exceeded its capacity
  double used = 0;  // total at that instant
  double capacity = 0;
  MemoryBreakdown breakdown{};
  // The category that grew most at that instant: what pushed it over (at
  // time 0, the largest static one).
  MemoryCategory pushed_over = MemoryCategory::Weights;
};

// Calls visit(time, device, levels) for every device whose memory changed at
// an instant, once all of that instant's events are applied; devices in
// ascending order within an instant.
using InstantVisitor = std::function<void(double time, int device, const MemoryBreakdown& levels)>;
void for_each_memory_instant(const std::vector<MemorySample>& trace, int device_count, const InstantVisitor& visit);
void for_each_memory_instant(const TaskGraph& graph, const Timeline& timeline, const InstantVisitor& visit);

// Levels are evaluated once all events of an instant are applied.
// One entry per device of the graph.
std::vector<DevicePeak> peak_memory(const std::vector<MemorySample>& trace, int device_count);
std::vector<DevicePeak> peak_memory(const TaskGraph& graph, const Timeline& timeline);

// Devices whose total exceeds Device::memory (0 = unlimited), by device.
std::vector<MemoryViolation> memory_violations(const std::vector<MemorySample>& trace, const Platform& platform);
std::vector<MemoryViolation> memory_violations(const TaskGraph& graph, const Timeline& timeline,
                                               const Platform& platform);

// Peaks and violations in one pass over the streamed trace (what the run's
// metrics need, without storing the trace).
struct MemoryOutcome {
  std::vector<DevicePeak> peaks;            // one per device of the graph
  std::vector<MemoryViolation> violations;  // by device
};
MemoryOutcome memory_outcome(const TaskGraph& graph, const Timeline& timeline, const Platform& platform);

}  // namespace pipesim
