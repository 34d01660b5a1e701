// What a periodic pattern promises, for the reports: its exact period (event
// graph), the critical cycle that sets it, and its analytic peak memory.
#pragma once

#include <string>
#include <vector>

#include "patterns/pattern_analysis.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

struct PatternSummary {
  int copies = 1;                           // micro-batches per period
  double period = 0;                        // the pattern's own T
  double exact_period = 0;                  // maximum cycle ratio of its event graph
  double simulated_period = 0;              // measured in the run (see simulated_period())
  std::vector<std::string> critical_cycle;  // node names, in order
  std::vector<double> analytic_peak;        // per device, seed 000 §6.2 model; empty with a note
  std::string analytic_memory_note;         // why there is no analytic peak ("" when there is one)
  std::vector<int> stash_counts;            // per layer: most stashed activations at once
};

struct Metrics;
// The simulated time of one pattern period: an iteration when a period is an
// iteration (flush schedules, copies = micro-batches), else the spacing of
// micro-batch completions over the middle half of the last iteration, over a
// whole number of periods (copies of one period complete at different offsets).
double simulated_period(const PatternSummary& pattern, const Metrics& metrics, const TaskGraph& graph,
                        const Timeline& timeline);
// The same for a schedule that repeats every `copies` micro-batches.
double simulated_period(int copies, const Metrics& metrics, const TaskGraph& graph, const Timeline& timeline);

PatternSummary summarize_pattern(const Pattern& pattern, const PatternTiming& timing, const Workload& workload,
                                 int device_count);

}  // namespace pipesim
