#include "studies/study.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "analysis/metrics.hpp"
#include "analysis/pattern_summary.hpp"
#include "reports/csv_field.hpp"
#include "sim/format.hpp"

namespace pipesim {
namespace {

std::string csv_number(double v) { return std::isfinite(v) ? fmt::number(v) : ""; }

// Inside a Markdown table cell a '|' must be escaped, even in code.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

// Axis ticks at 1, 2 or 5 x 10^k covering [lo, hi].
std::vector<double> ticks(double lo, double hi) {
  const double raw = (hi - lo) / 8;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step)
    t.push_back(std::abs(v) < 1e-12 * step ? 0 : v);
  return t;
}

}  // namespace

bool StudyPoint::measured() const { return std::isfinite(peak_memory) && std::isfinite(period); }

std::vector<StudyPoint> pareto_front(const std::vector<StudyPoint>& points, const std::string& source) {
  std::vector<StudyPoint> mine;
  for (const StudyPoint& p : points)
    if (p.source == source && p.measured()) mine.push_back(p);
  std::stable_sort(mine.begin(), mine.end(), [](const StudyPoint& a, const StudyPoint& b) {
    return a.peak_memory != b.peak_memory ? a.peak_memory < b.peak_memory : a.period < b.period;
  });
  std::vector<StudyPoint> front;
  for (const StudyPoint& p : mine)
    if (front.empty() || p.period < front.back().period) front.push_back(p);
  return front;
}

const StudyPoint* best_within(const std::vector<StudyPoint>& points, const std::string& source, double limit) {
  const StudyPoint* best = nullptr;
  for (const StudyPoint& p : points)
    if (p.source == source && p.measured() && p.peak_memory <= limit && (!best || p.period < best->period)) best = &p;
  return best;
}

void write_study_csv(std::ostream& out, const std::vector<StudyPoint>& points) {
  out << "source,memory_limit,peak_memory,period,predicted_peak,predicted_period,status,config,analytic_peak,gap\n";
  for (const StudyPoint& p : points)
    out << csv_field(p.source) << ',' << csv_number(p.memory_limit) << ',' << csv_number(p.peak_memory) << ','
        << csv_number(p.period) << ',' << csv_number(p.predicted_peak) << ',' << csv_number(p.predicted_period) << ','
        << csv_field(p.status) << ',' << csv_field(p.config) << ',' << csv_number(p.analytic_peak) << ','
        << csv_number(p.gap) << '\n';
}

void write_study_table(std::ostream& out, const std::vector<StudyPoint>& points, const std::vector<double>& limits) {
  // Peaks: simulated / analytic (its pattern's, "-" without one).
  out << "| memory limit | PipeDream best period | its peak (simulated / analytic) | its configuration | ILP period | "
         "ILP peak (simulated / analytic) | ILP status, gap | PipeDream / ILP |\n"
      << "|---|---|---|---|---|---|---|---|\n";
  auto peaks = [](const StudyPoint& p) {
    return fmt::bytes(p.peak_memory) + " / " + (std::isnan(p.analytic_peak) ? "-" : fmt::bytes(p.analytic_peak));
  };
  for (double limit : limits) {
    const StudyPoint* pd = best_within(points, "pipedream", limit);
    const StudyPoint* ilp = nullptr;
    std::string ilp_status = "not run";
    for (const StudyPoint& p : points)
      if (p.source == "ilp" && p.memory_limit == limit) {
        ilp_status = p.status;
        if (p.measured()) ilp = &p;
      }
    out << "| " << fmt::bytes(limit) << " | " << (pd ? fmt::time(pd->period) : "none fits") << " | "
        << (pd ? peaks(*pd) : "") << " | " << (pd ? "`" + cell(pd->config) + "`" : "") << " | "
        << (ilp ? fmt::time(ilp->period) : ilp_status) << " | " << (ilp ? peaks(*ilp) : "") << " | "
        << (ilp ? ilp_status + (std::isnan(ilp->gap) ? "" : ", " + fmt::percent(ilp->gap)) : "") << " | "
        << (pd && ilp ? fmt::fixed(pd->period / ilp->period, 2) : "") << " |\n";
  }
}

std::string study_svg(const std::vector<StudyPoint>& points, const StudyPlot& plot) {
  const double W = 760, H = 500, left = 80, right = 190, top = 50, bottom = 60;
  const double GiB = 1024.0 * 1024 * 1024;
  double x0 = std::numeric_limits<double>::infinity(), x1 = 0, y0 = x0, y1 = 0;
  for (const StudyPoint& p : points)
    if (p.measured()) {
      x0 = std::min(x0, p.peak_memory / GiB), x1 = std::max(x1, p.peak_memory / GiB);
      y0 = std::min(y0, p.period * 1e3), y1 = std::max(y1, p.period * 1e3);
    }
  for (double l : plot.limits) x0 = std::min(x0, l / GiB), x1 = std::max(x1, l / GiB);
  if (!std::isfinite(x0)) x0 = 0, x1 = 1;
  if (!std::isfinite(y0)) y0 = 0, y1 = 1;
  auto pad = [](double& lo, double& hi) {
    const double span = hi > lo ? hi - lo : std::max(std::abs(hi), 1.0);
    lo = std::max(0.0, lo - 0.05 * span), hi += 0.05 * span;
  };
  pad(x0, x1), pad(y0, y1);
  auto X = [&](double gib) { return left + (gib - x0) / (x1 - x0) * (W - left - right); };
  auto Y = [&](double ms) { return H - bottom - (ms - y0) / (y1 - y0) * (H - top - bottom); };
  auto n = [](double v) { return fmt::fixed(v, 1); };

  std::ostringstream s;
  s.exceptions(std::ios::badbit);  // out of memory throws, never a silently truncated plot
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
    << ' ' << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!plot.title.empty())
    s << "<text x=\"" << n(W / 2) << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" << xml(plot.title)
      << "</text>\n";
  // Axes, ticks, grid.
  s << "<g stroke=\"#ddd\">\n";
  for (double t : ticks(x0, x1))
    s << "<line x1=\"" << n(X(t)) << "\" y1=\"" << top << "\" x2=\"" << n(X(t)) << "\" y2=\"" << H - bottom << "\"/>\n";
  for (double t : ticks(y0, y1))
    s << "<line x1=\"" << left << "\" y1=\"" << n(Y(t)) << "\" x2=\"" << W - right << "\" y2=\"" << n(Y(t)) << "\"/>\n";
  s << "</g>\n<g>\n";
  for (double t : ticks(x0, x1))
    s << "<text x=\"" << n(X(t)) << "\" y=\"" << H - bottom + 16 << "\" text-anchor=\"middle\">" << fmt::number(t, 6)
      << "</text>\n";
  for (double t : ticks(y0, y1))
    s << "<text x=\"" << left - 6 << "\" y=\"" << n(Y(t) + 4) << "\" text-anchor=\"end\">" << fmt::number(t, 6)
      << "</text>\n";
  s << "</g>\n<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << W - left - right << "\" height=\""
    << H - top - bottom << "\" fill=\"none\" stroke=\"black\"/>\n"
    << "<text x=\"" << n((left + W - right) / 2) << "\" y=\"" << H - 18
    << "\" text-anchor=\"middle\">peak memory per device (GiB, largest device)</text>\n"
    << "<text transform=\"translate(20 " << n((top + H - bottom) / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">period (ms per micro-batch)</text>\n";
  // Memory limits.
  for (double l : plot.limits)
    s << "<line x1=\"" << n(X(l / GiB)) << "\" y1=\"" << top << "\" x2=\"" << n(X(l / GiB)) << "\" y2=\"" << H - bottom
      << "\" stroke=\"#888\" stroke-dasharray=\"4 3\"><title>limit " << xml(fmt::bytes(l)) << "</title></line>\n";
  // PipeDream's front as a staircase, then the points.
  const std::vector<StudyPoint> front = pareto_front(points, "pipedream");
  if (!front.empty()) {
    s << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.2\" points=\"";
    for (std::size_t i = 0; i < front.size(); ++i) {
      const double x = X(front[i].peak_memory / GiB), y = Y(front[i].period * 1e3);
      if (i > 0) s << n(x) << ',' << n(Y(front[i - 1].period * 1e3)) << ' ';
      s << n(x) << ',' << n(y) << ' ';
    }
    s << n(X(x1)) << ',' << n(Y(front.back().period * 1e3)) << "\"/>\n";
  }
  for (const StudyPoint& p : points) {
    if (!p.measured()) continue;
    const double x = X(p.peak_memory / GiB), y = Y(p.period * 1e3);
    const std::string tip =
        "<title>" +
        xml(p.source + " " + p.config + ": peak " + fmt::bytes(p.peak_memory) + ", period " + fmt::time(p.period)) +
        "</title>";
    if (p.source == "ilp")
      s << "<rect x=\"" << n(x - 4.5) << "\" y=\"" << n(y - 4.5) << "\" width=\"9\" height=\"9\" fill=\"#d62728\">"
        << tip << "</rect>\n";
    else
      s << "<circle cx=\"" << n(x) << "\" cy=\"" << n(y) << "\" r=\"3.5\" fill=\"#1f77b4\" fill-opacity=\"0.55\">"
        << tip << "</circle>\n";
  }
  // Legend.
  const double lx = W - right + 16;
  s << "<circle cx=\"" << lx << "\" cy=\"" << top + 10 << "\" r=\"3.5\" fill=\"#1f77b4\"/><text x=\"" << lx + 10
    << "\" y=\"" << top + 14 << "\">PipeDream (simulated)</text>\n"
    << "<line x1=\"" << lx - 6 << "\" y1=\"" << top + 30 << "\" x2=\"" << lx + 6 << "\" y2=\"" << top + 30
    << "\" stroke=\"#1f77b4\"/><text x=\"" << lx + 10 << "\" y=\"" << top + 34 << "\">PipeDream front</text>\n"
    << "<rect x=\"" << lx - 4.5 << "\" y=\"" << top + 45.5 << "\" width=\"9\" height=\"9\" fill=\"#d62728\"/><text x=\""
    << lx + 10 << "\" y=\"" << top + 54 << "\">ILP</text>\n"
    << "<line x1=\"" << lx - 6 << "\" y1=\"" << top + 70 << "\" x2=\"" << lx + 6 << "\" y2=\"" << top + 70
    << "\" stroke=\"#888\" stroke-dasharray=\"4 3\"/><text x=\"" << lx + 10 << "\" y=\"" << top + 74
    << "\">memory limit</text>\n"
    << "</svg>\n";
  return s.str();
}

double RunMeasure::peak() const {
  double m = 0;
  for (double p : device_peaks) m = std::max(m, p);
  return m;
}

RunMeasure measure_run(const TaskGraph& graph, const Timeline& timeline, const Platform& platform, int copies) {
  const Metrics metrics = compute_metrics(graph, timeline, platform, 1);
  RunMeasure m;
  m.completed = metrics.completed;
  // A schedule that repeats every k micro-batches is measured over whole periods.
  m.period = copies > 1 ? simulated_period(copies, metrics, graph, timeline) / copies : metrics.time_per_microbatch;
  for (const DeviceMetrics& d : metrics.devices) m.device_peaks.push_back(d.peak.total);
  return m;
}

std::string encode(const RunMeasure& m) {
  std::string s = std::to_string(m.completed ? 1 : 0) + ' ' + fmt::number(m.period, 17) + ' ' +
                  std::to_string(m.device_peaks.size());
  for (double p : m.device_peaks) s += ' ' + fmt::number(p, 17);
  return s;
}

RunMeasure decode(const std::string& text) {
  std::istringstream in(text);
  RunMeasure m;
  int completed = 0;
  std::size_t n = 0;
  std::string period;
  if (!(in >> completed >> period >> n)) throw std::runtime_error("bad run measure '" + text + "'");
  m.completed = completed != 0;
  m.period = period == "nan" ? std::numeric_limits<double>::quiet_NaN() : std::stod(period);
  m.device_peaks.resize(n);
  for (double& p : m.device_peaks)
    if (!(in >> p)) throw std::runtime_error("bad run measure '" + text + "'");
  return m;
}

}  // namespace pipesim
