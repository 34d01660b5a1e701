#include "studies/study_runs.hpp"

#include <algorithm>
#include <iostream>
#include <limits>
#include <set>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/ilp/ilp.hpp"
#include "schedules/pipedream/pipedream.hpp"
#include "schedules/pipedream/pipedream_baseline.hpp"
#include "sim/exact_period.hpp"
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

// One configuration's point: what `schedule: pipedream` runs, under the
// ILP answers' accounting (seed 000's buffers), simulated.
StudyPoint pipedream_point(Simulation& simulation, const Workload& workload, const BaselineConfig& c,
                           const StudySettings& o, const std::string& tag) {
  const Platform& platform = simulation.platform();
  StudyPoint p;
  p.source = "pipedream";
  p.memory_limit = c.memory_target;
  p.predicted_period = c.plan.bottleneck;
  p.predicted_peak = *std::max_element(c.plan.estimate.begin(), c.plan.estimate.end());
  p.config = describe(c) + tag;
  auto [graph, pattern] =
      pipedream_run(c.plan.allocation, c.noam, workload, platform, o.microbatches, BufferPolicy::Seed000);
  const int copies = pattern ? pattern->copies : 1;
  if (pattern) p.analytic_peak = peak_of(*pattern, workload, platform);
  p.pattern = std::move(pattern);  // the ILP's candidate, if the best within its limit
  return simulate(simulation, graph, p, copies);
}

// The tied configurations worth simulating: each evaluated by its pattern
// (unrolled, its simulation has the pattern's exact period and analytic
// peak), kept when no configuration, simulated or tied, is as small and as
// fast; those without a pattern are kept too.
std::vector<BaselineConfig> tied_front(const std::vector<BaselineConfig>& tied, const std::vector<StudyPoint>& own,
                                       const Workload& workload, const Platform& platform) {
  struct Candidate {
    double peak, period;
    int index;  // into tied; -1: a simulated point
  };
  std::vector<Candidate> candidates;
  for (const StudyPoint& p : own)
    if (p.measured()) candidates.push_back({p.peak_memory, p.period, -1});
  std::vector<BaselineConfig> kept;
  for (std::size_t i = 0; i < tied.size(); ++i) {
    try {
      Pattern pattern = pipedream_pattern(tied[i].plan.allocation, tied[i].noam, workload, platform);
      pattern.buffers = BufferPolicy::Seed000;
      const PatternTiming timing = pattern_timing(pattern, workload, platform);
      const double period = exact_period(pattern_event_graph(pattern, timing)).period / pattern.copies;
      candidates.push_back({peak_of(pattern, workload, platform), period, static_cast<int>(i)});
    } catch (const std::invalid_argument&) {
      kept.push_back(tied[i]);
    }
  }
  // By peak, then period, simulated points first: a candidate is on the front
  // when it is faster than everything at most as large before it.
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.peak != b.peak ? a.peak < b.peak : a.period != b.period ? a.period < b.period : a.index < b.index;
  });
  double fastest = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates) {
    if (!(c.period < fastest)) continue;
    fastest = c.period;
    if (c.index >= 0) kept.push_back(tied[c.index]);
  }
  return kept;
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
  for (const BaselineConfig& c : configs) points.push_back(pipedream_point(simulation, workload, c, o, ""));
  if (o.pipedream_ties <= 1) return points;

  options.ties = o.pipedream_ties;
  bool capped = false;
  std::vector<BaselineConfig> tied = pipedream_configurations(workload, platform, options, &capped);
  std::set<std::pair<std::vector<int>, int>> own;
  for (const BaselineConfig& c : configs) own.emplace(c.plan.last_layer, c.noam);
  tied.erase(std::remove_if(tied.begin(), tied.end(),
                            [&](const BaselineConfig& c) {
                              return own.count({c.plan.last_layer, c.noam}) > 0;
                            }),
             tied.end());
  const std::vector<BaselineConfig> front = tied_front(tied, points, workload, platform);
  std::cerr << "pipedream: " << tied.size() << " more configurations of tied partitions ("
            << (capped ? "at most " + std::to_string(o.pipedream_ties) + " partitions per plan: not all of them"
                       : std::string("all of them"))
            << "), " << front.size() << " of them on the time/memory front, simulated\n";
  for (const BaselineConfig& c : front) points.push_back(pipedream_point(simulation, workload, c, o, " tied"));
  return points;
}

// The fastest point of `source` within the limit among those with a pattern.
const StudyPoint* best_pattern_within(const std::vector<StudyPoint>& points, const std::string& source, double limit) {
  const StudyPoint* best = nullptr;
  for (const StudyPoint& p : points)
    if (p.source == source && p.measured() && p.pattern && p.peak_memory <= limit && (!best || p.period < best->period))
      best = &p;
  return best;
}

std::vector<StudyPoint> ilp_points(Simulation& simulation, const Workload& workload, const std::vector<double>& limits,
                                   const StudySettings& o, const std::vector<StudyPoint>& baseline) {
  std::vector<StudyPoint> points;
  for (double limit : limits) {
    Platform limited = simulation.platform();
    for (Device& d : limited.devices) d.memory = limit;
    IlpOptions options;
    options.time_limit = o.ilp_time_limit;
    options.threads = o.ilp_threads;
    options.allocation_search = o.ilp_allocation_search;
    if (const StudyPoint* best = best_pattern_within(baseline, "pipedream", limit))
      options.candidates.push_back(*best->pattern);
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
