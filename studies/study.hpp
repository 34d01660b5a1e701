// Seed 000 §7's memory-period study (its Figures 11-16): the measured points
// of each method, their Pareto fronts, and the CSV, table and SVG plot that
// `pipesim study` writes; plus measuring one run and running work in a
// forked child (studies/forked_run.hpp).
#pragma once

#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "patterns/pattern.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

struct StudyPoint {
  std::string source;       // "pipedream" or "ilp"
  double memory_limit = 0;  // pipedream: the planner's memory target; ilp: the per-device limit it was given
  double peak_memory = std::numeric_limits<double>::quiet_NaN();       // simulated: max over devices, bytes
  double period = std::numeric_limits<double>::quiet_NaN();            // simulated: steady seconds per micro-batch
  double predicted_peak = std::numeric_limits<double>::quiet_NaN();    // PipeDream's estimate / ILP's model
  double predicted_period = std::numeric_limits<double>::quiet_NaN();  // DP bottleneck / pattern's exact period
  std::string status = "ok";  // else why there is no point ("infeasible", "deadlock", ...)
  std::string config;         // "noam=2 stages=0-5|6-25", an allocation, ...
  double analytic_peak = std::numeric_limits<double>::quiet_NaN();  // its pattern's (pattern_memory), when it has one
  double gap = std::numeric_limits<double>::quiet_NaN();            // ilp: the solver's relative gap
  std::optional<Pattern> pattern;  // the point's periodic pattern, when kept (StudySettings::keep_patterns)
  bool measured() const;           // finite peak and period
};

// The measured points of `source` that no other of its points beats on both
// peak memory and period (ties: the first), by increasing peak.
std::vector<StudyPoint> pareto_front(const std::vector<StudyPoint>& points, const std::string& source);

// The measured point of `source` with the smallest period among those whose
// peak fits `limit`; nullptr if none.
const StudyPoint* best_within(const std::vector<StudyPoint>& points, const std::string& source, double limit);

// One row per point: source,memory_limit,peak_memory,period,predicted_peak,
// predicted_period,status,config,analytic_peak,gap (bytes, seconds; empty
// when unknown).
void write_study_csv(std::ostream& out, const std::vector<StudyPoint>& points);

// Markdown table, one row per limit: the best PipeDream point that fits it
// and the ILP's point for it, and their period ratio.
void write_study_table(std::ostream& out, const std::vector<StudyPoint>& points, const std::vector<double>& limits);

struct StudyPlot {
  std::string title;
  std::vector<double> limits;  // dashed vertical lines
};
// Scatter plot, peak memory (GiB) against period (ms): PipeDream points in
// blue with their Pareto front, ILP points in red; deterministic SVG.
std::string study_svg(const std::vector<StudyPoint>& points, const StudyPlot& plot);

// ---- Measuring a run ----

struct RunMeasure {
  bool completed = false;
  double period = 0;                 // Metrics::time_per_microbatch (middle half of the run), over whole
                                     // periods of `copies` micro-batches (simulated_period)
  std::vector<double> device_peaks;  // simulated peak per device, bytes
  double peak() const;               // the largest
};
RunMeasure measure_run(const TaskGraph& graph, const Timeline& timeline, const Platform& platform, int copies = 1);
std::string encode(const RunMeasure& m);  // text through a pipe; decode(encode(m)) == m exactly
RunMeasure decode(const std::string& text);

}  // namespace pipesim
