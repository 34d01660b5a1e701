#include "studies/study_runs.hpp"

#include <algorithm>
#include <iostream>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/ilp/ilp.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "schedules/pipedream/pipedream_baseline.hpp"
#include "sim/format.hpp"
#include "studies/forked_run.hpp"

namespace pipesim {
namespace {

// Evaluates the graph in this process with the analytic engine when that is
// exact (the same timeline as SimGrid's), else runs it on SimGrid in a child
// of this process (the platform is loaded, the engine has not run), and measures it.
StudyPoint simulate(Simulation& simulation, const TaskGraph& graph, StudyPoint point, int copies) {
  try {
    AnalyticOutcome analytic = simulation.run_analytic(graph);
    const Platform& platform = simulation.platform();
    const RunMeasure m =
        analytic.timeline
            ? measure_run(graph, *analytic.timeline, platform, copies)
            : decode(run_forked([&] { return encode(measure_run(graph, simulation.run(graph), platform, copies)); }));
    if (!m.completed) point.status = "deadlock";
    point.peak_memory = m.peak();
    point.period = m.period;
  } catch (const std::exception& e) {
    point.status = std::string("simulation failed: ") + e.what();
  }
  return point;
}

// The pattern's analytic peak (pattern_memory under its own buffer policy), largest device.
double peak_of(const Pattern& pattern, const Workload& workload, const Platform& platform) {
  const PatternMemory memory =
      pattern_memory(pattern, pattern_timing(pattern, workload, platform), workload, platform.size());
  double peak = 0;
  for (const PatternDeviceMemory& d : memory.devices) peak = std::max(peak, d.peak);
  return peak;
}

}  // namespace

std::vector<StudyPoint> pipedream_points(Simulation& simulation, const Workload& workload,
                                         const std::vector<double>& limits, const StudySettings& o) {
  const Platform& platform = simulation.platform();
  BaselineOptions options;
  options.memory_targets = limits;
  options.noams = o.noams;
  const std::vector<BaselineConfig> configs = pipedream_configurations(workload, platform, options);
  std::cerr << "pipedream: " << configs.size() << " configurations, " << o.microbatches << " micro-batches each\n";
  std::vector<StudyPoint> points;
  for (const BaselineConfig& c : configs) {
    StudyPoint p;
    p.source = "pipedream";
    p.memory_limit = c.memory_target;
    p.predicted_period = c.plan.bottleneck;
    p.predicted_peak = *std::max_element(c.plan.estimate.begin(), c.plan.estimate.end());
    p.config = describe(c);
    // What `schedule: pipedream` runs, under the ILP answers' accounting (seed 000's buffers).
    auto [graph, pattern] =
        pipedream_run(c.plan.allocation, c.noam, workload, platform, o.microbatches, BufferPolicy::Seed000);
    const int copies = pattern ? pattern->copies : 1;
    if (pattern) {
      p.analytic_peak = peak_of(*pattern, workload, platform);
      if (o.keep_patterns) p.pattern = std::move(pattern);
    }
    points.push_back(simulate(simulation, graph, p, copies));
  }
  return points;
}

std::vector<StudyPoint> ilp_points(Simulation& simulation, const Workload& workload, const std::vector<double>& limits,
                                   const StudySettings& o) {
  std::vector<StudyPoint> points;
  for (double limit : limits) {
    Platform limited = simulation.platform();
    for (Device& d : limited.devices) d.memory = limit;
    IlpOptions options;
    options.time_limit = o.ilp_time_limit;
    options.threads = o.ilp_threads;
    options.allocation_search = o.ilp_allocation_search;
    options.weights = o.ilp_weights;
    if (o.ilp_log) options.log = [](const std::string& line) { std::cerr << "  " << line << "\n"; };
    options.progress = [&](const std::string& line) {
      std::cerr << "ilp " << fmt::bytes(limit) << ": " << line << "\n";
    };
    const IlpResult r = solve_optimal_pattern(workload, limited, options);
    StudyPoint p;
    p.source = "ilp";
    p.memory_limit = limit;
    // Time limit 0: CBC is not run, the point is the heuristic warm start.
    p.status = o.ilp_time_limit <= 0 && r.pattern ? "heuristic" : std::string(to_string(r.status));
    std::cerr << "ilp " << fmt::bytes(limit) << ": " << p.status << " in " << fmt::fixed(r.seconds, 1) << " s"
              << (r.pattern
                      ? ", " + fmt::time(r.period / r.pattern->copies) + " per micro-batch, gap " + fmt::percent(r.gap)
                      : "")
              << "\n";
    if (!r.pattern) {
      if (r.heuristic_memory_needed > 0) p.config = "heuristic needs " + fmt::bytes(r.heuristic_memory_needed);
      points.push_back(p);
      continue;
    }
    const Pattern& pattern = *r.pattern;
    const PatternTiming timing = pattern_timing(pattern, workload, limited);
    p.predicted_period = r.period / pattern.copies;
    p.predicted_peak = p.analytic_peak = peak_of(pattern, workload, limited);
    p.gap = r.gap;
    Allocation allocation(workload.layers.size(), 0);
    for (const PatternOp& op : pattern.ops) allocation[op.layer] = op.device;
    p.config = "allocation=" + to_string(allocation) + " gap=" + fmt::percent(r.gap);
    if (o.keep_patterns) p.pattern = pattern;
    p = simulate(simulation, unroll_pattern(pattern, timing, limited.size(), o.microbatches), p,
                 pattern.copies);  // keeps the status
    points.push_back(p);
  }
  return points;
}

}  // namespace pipesim
