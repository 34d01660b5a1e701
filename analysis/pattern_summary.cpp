#include "analysis/pattern_summary.hpp"

#include "analysis/metrics.hpp"
#include "sim/exact_period.hpp"

namespace pipesim {

double simulated_period(const PatternSummary& pattern, const Metrics& metrics, const TaskGraph& graph,
                        const Timeline& timeline) {
  return simulated_period(pattern.copies, metrics, graph, timeline);
}

double simulated_period(int copies, const Metrics& metrics, const TaskGraph& graph, const Timeline& timeline) {
  const int k = copies, M = metrics.microbatches;
  if (k >= M) return metrics.iteration_time;
  const int first = (M / 4 + k - 1) / k * k;
  const int periods = (M - 1 - M / 4 - first) / k;
  if (periods < 1) return metrics.time_per_microbatch * k;
  return steady_time_per_microbatch(graph, timeline, metrics.iterations - 1, first, first + periods * k) * k;
}

PatternSummary summarize_pattern(const Pattern& pattern, const PatternTiming& timing, const Workload& workload,
                                 int device_count) {
  PatternSummary s;
  s.copies = pattern.copies;
  s.period = pattern.period;
  const TimedEventGraph graph = pattern_event_graph(pattern, timing);
  const ExactPeriod exact = exact_period(graph);
  s.exact_period = exact.period;
  for (int node : exact.critical_cycle) s.critical_cycle.push_back(graph.nodes[node]);
  const PatternMemory memory = pattern_memory(pattern, timing, workload, device_count);
  s.stash_counts = memory.stash_counts;
  if (declares_training_state(workload)) {
    // One truth: a figure that leaves out what the run holds is not printed beside it.
    s.analytic_memory_note =
        "not computed: seed 000's pattern memory holds the chain alone, not the workload's training state "
        "(stashes beyond layer inputs, workspaces, optimizer state, reserve); the simulated peaks hold it";
    return s;
  }
  for (const auto& d : memory.devices) s.analytic_peak.push_back(d.peak);
  return s;
}

}  // namespace pipesim
