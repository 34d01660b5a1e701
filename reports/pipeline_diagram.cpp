#include "reports/pipeline_diagram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sim/format.hpp"

namespace pipesim {
namespace {

bool ran(const Timeline& tl, TaskId t) { return !std::isnan(tl.start[t]) && !std::isnan(tl.finish[t]); }

// Seed 003 writes f and v; otherwise the F/B of traces and pattern files.
std::string kind_letter(TaskKind kind, bool seed) {
  switch (kind) {
    case TaskKind::Forward:
      return seed ? "f" : "F";
    case TaskKind::Backward:
      return seed ? "v" : "B";
    case TaskKind::BackwardInput:
      return seed ? "vi" : "BI";
    case TaskKind::BackwardWeight:
      return seed ? "vw" : "BW";
    case TaskKind::Recompute:
      return seed ? "r" : "R";
    case TaskKind::Update:
      return seed ? "u" : "U";
    case TaskKind::GradientNorm:
      return seed ? "n" : "N";
    case TaskKind::Communication:
      return seed ? "c" : "C";
    default:
      return "?";
  }
}

std::string label(const Task& t, bool seed) {
  return kind_letter(t.kind, seed) + (t.stage >= 0 ? std::to_string(t.stage) : "");
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A time in `unit` with at most two decimals, no trailing zeros ("3.57", "10").
std::string short_time(double seconds, const TimeUnit& unit) {
  return fmt::number(std::round(seconds / unit.seconds * 100) / 100);
}

}  // namespace

TimeUnit time_unit_for(double seconds) {
  // A hair more, so that a simulated 0.999999999999 ms still reads in ms.
  const double a = std::abs(seconds) * (1 + 1e-9);
  if (!(a > 0) || a >= 1) return {"s", 1};
  if (a >= 1e-3) return {"ms", 1e-3};
  if (a >= 1e-6) return {"us", 1e-6};
  return {"ns", 1e-9};
}

TimeAxis time_axis(double end, int max_ticks) {
  TimeAxis axis;
  if (!(end > 0) || !std::isfinite(end)) {
    axis.step = 1;
    axis.ticks = {0};
    return axis;
  }
  // The smallest 1, 2 or 5 times 10^k with at most max_ticks ticks from 0.
  const double least = end / std::max(1, max_ticks - 1);
  const double power = std::pow(10.0, std::floor(std::log10(least)));
  axis.step = 10 * power;
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= least * (1 - 1e-12)) {
      axis.step = m * power;
      break;
    }
  axis.unit = time_unit_for(axis.step);
  for (int i = 0; i * axis.step <= end * (1 + 1e-12); ++i) axis.ticks.push_back(i * axis.step);
  return axis;
}

std::string tick_label(double seconds, const TimeUnit& unit) {
  return fmt::number(seconds / unit.seconds, 6) + " " + unit.name;
}

std::string batch_colour(int batch) {
  if (batch < 0) return "#ffffff";
  // Hue: the golden-ratio sequence (each batch a third of a turn or so from
  // the last, never repeating); saturation and lightness keep black text
  // readable. HSL to RGB as in CSS Color 4.
  const double h = std::fmod(0.58 + batch * 0.6180339887498949, 1.0) * 6;
  const double s = 0.55, l = 0.62;
  const double c = (1 - std::abs(2 * l - 1)) * s;
  const double x = c * (1 - std::abs(std::fmod(h, 2.0) - 1));
  double rgb[3] = {0, 0, 0};
  const int sector = static_cast<int>(h) % 6;
  const int order[6][3] = {{0, 1, 2}, {1, 0, 2}, {1, 2, 0}, {2, 1, 0}, {2, 0, 1}, {0, 2, 1}};  // where c, x, 0 go
  rgb[order[sector][0]] = c;
  rgb[order[sector][1]] = x;
  static const char hex[] = "0123456789abcdef";
  std::string out = "#";
  for (double v : rgb) {
    const int byte = static_cast<int>(std::lround((v + l - c / 2) * 255));
    out += hex[byte >> 4];
    out += hex[byte & 15];
  }
  return out;
}

PipelineDiagram pipeline_diagram(const TaskGraph& graph, const Timeline& timeline, const DiagramOptions& options,
                                 const Platform* platform) {
  PipelineDiagram d;
  for (const Task& task : graph.tasks())
    if (!is_transfer(task.kind)) d.lane_count = std::max(d.lane_count, task.lane + 1);
  const auto key = [&](const Task& task) { return task.device * d.lane_count + task.lane; };
  std::vector<int> row_of(static_cast<std::size_t>(graph.device_count()) * d.lane_count, -1);
  double shortest = std::numeric_limits<double>::infinity(), end = 0;
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (is_transfer(task.kind) || !ran(timeline, t)) continue;
    row_of[key(task)] = 0;
    const double len = timeline.finish[t] - timeline.start[t];
    if (len > 0) shortest = std::min(shortest, len);
    end = std::max(end, timeline.finish[t]);
  }
  const bool names = platform != nullptr && !options.seed_notation;
  for (int dev = 0; dev < graph.device_count(); ++dev)
    for (int lane = 0; lane < d.lane_count; ++lane)
      if (row_of[dev * d.lane_count + lane] == 0) {
        row_of[dev * d.lane_count + lane] = static_cast<int>(d.devices.size());
        d.devices.push_back(dev);
        d.lanes.push_back(lane);
        d.row_names.push_back(
            (names && dev < platform->size() ? platform->devices[dev].name : "w" + std::to_string(dev)) +
            (d.lane_count > 1 ? " lane " + std::to_string(lane) : ""));
      }
  d.column_seconds = options.column_seconds > 0 ? options.column_seconds : (std::isfinite(shortest) ? shortest : 1);
  // At most kMaxDiagramCells cells: a column far shorter than the run (one
  // tiny task) is widened, and the tasks it then holds together overlap.
  const double max_columns = std::max(1.0, std::floor(kMaxDiagramCells / std::max<double>(1, d.devices.size())));
  if (end / d.column_seconds > max_columns) {
    d.column_seconds = end / max_columns;
    d.widened = true;
  }
  auto column = [&](double time) {
    return static_cast<int>(std::llround(std::min(time / d.column_seconds, max_columns)));
  };
  d.columns = std::max(std::min(options.min_columns, static_cast<int>(max_columns)), column(end));
  d.cells.assign(d.devices.size(), std::vector<std::string>(d.columns));
  d.batches.assign(d.devices.size(), std::vector<int>(d.columns, -1));
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (is_transfer(task.kind) || !ran(timeline, t)) continue;
    const int row = row_of[key(task)];
    const int first = column(timeline.start[t]);
    const int last = std::max(first + 1, column(timeline.finish[t]));
    if (last > d.columns) {
      d.columns = last;
      for (auto& r : d.cells) r.resize(d.columns);
      for (auto& r : d.batches) r.resize(d.columns, -1);
    }
    std::string text = label(task, options.seed_notation);
    if (options.batch_ids && task.microbatch >= 0) text += "b" + std::to_string(task.microbatch);
    for (int c = first; c < last; ++c) {
      if (!d.cells[row][c].empty()) {
        // Another resource's part of the same pass is not an overlap.
        if (task.resource == 0 || d.cells[row][c] != text || d.batches[row][c] != task.microbatch) ++d.overlaps;
        continue;
      }
      d.cells[row][c] = text;
      d.batches[row][c] = task.microbatch;
    }
  }
  return d;
}

namespace {

std::string diagram_text(const PipelineDiagram& d, const DiagramOptions& options) {
  std::string out;
  if (!options.title.empty()) out += "\t" + options.title + std::string(d.columns > 0 ? d.columns - 1 : 0, '\t') + "\n";
  if (options.seed_notation) {
    for (int c = 0; c < d.columns; ++c) out += "\t" + std::to_string(c + 1);
  } else {
    const TimeUnit unit = time_unit_for(d.column_seconds);
    out += unit.name;
    for (int c = 0; c < d.columns; ++c) out += "\t" + short_time(c * d.column_seconds, unit);
  }
  out += "\n";
  for (std::size_t r = 0; r < d.devices.size(); ++r) {
    out += d.row_names[r];
    for (const std::string& cell : d.cells[r]) out += "\t" + cell;
    out += "\n";
  }
  return out;
}

}  // namespace

std::string pipeline_diagram_text(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                                  const DiagramOptions& options) {
  return diagram_text(pipeline_diagram(graph, timeline, options, &platform), options);
}

std::string pipeline_diagram_text(const TaskGraph& graph, const Timeline& timeline, const DiagramOptions& options) {
  return diagram_text(pipeline_diagram(graph, timeline, options), options);
}

std::string pipeline_diagram_svg(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                                 const DiagramOptions& options) {
  std::size_t drawn = 0;
  for (TaskId t = 0; t < graph.size(); ++t) drawn += !is_transfer(graph.task(t).kind) && ran(timeline, t);
  if (drawn > kMaxSvgTasks)
    throw std::length_error("an SVG of " + std::to_string(drawn) + " tasks (about " +
                            std::to_string(drawn * 300 >> 20) + " MiB); SVG diagrams draw at most " +
                            std::to_string(kMaxSvgTasks) + " (a FILE not ending in .svg gives a text diagram)");
  const PipelineDiagram d = pipeline_diagram(graph, timeline, options, &platform);
  constexpr double kCell = 28, kRow = 22, kGap = 2, kChar = 7;  // kChar: a monospace 11 px glyph, rounded up
  std::size_t longest = 0;
  for (const std::string& name : d.row_names) longest = std::max(longest, name.size());
  const double left = std::max(44.0, 12 + kChar * longest);
  const double top = (options.title.empty() ? 6 : 28) + (options.seed_notation ? 16 : 0);
  int max_batch = -1;
  for (TaskId t = 0; t < graph.size(); ++t)
    if (!is_transfer(graph.task(t).kind)) max_batch = std::max(max_batch, graph.task(t).microbatch);
  const double grid_width = d.columns * kCell;
  const double grid_bottom = top + d.devices.size() * kRow;
  // The time axis: ticks at a round step, about one per 80 px at most.
  const TimeAxis axis = time_axis(d.columns * d.column_seconds, std::max(2, static_cast<int>(grid_width / 80)));
  const double axis_bottom = grid_bottom + 26;
  // The legend: one entry per batch.
  const int entries = max_batch + 1;
  const int per_row = std::max(4, d.columns / 3);
  const int legend_rows = entries == 0 ? 0 : (entries + per_row - 1) / per_row;
  const double width = std::max(left + grid_width, left + std::min(entries, per_row) * 3 * kCell) + 30;
  const double height = axis_bottom + 10 + legend_rows * kRow + 6;
  auto num = [](double v) { return fmt::number(v, 10); };
  auto x_of = [&](double seconds) { return left + seconds / d.column_seconds * kCell; };

  std::ostringstream s;
  s.exceptions(std::ios::badbit);  // out of memory throws, never a silently truncated diagram
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
    << "\" font-family=\"monospace\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  if (!options.title.empty())
    s << "<text x=\"" << num(left) << "\" y=\"16\" font-size=\"14\">" << escape(options.title) << "</text>\n";
  if (options.seed_notation) {
    // Column numbers, as in the seed (every column while they fit, else every tenth).
    const int every = d.columns <= 60 ? 1 : 10;
    for (int c = 0; c < d.columns; ++c)
      if ((c + 1) % every == 0 || every == 1)
        s << "<text x=\"" << num(left + (c + 0.5) * kCell) << "\" y=\"" << num(top - 6)
          << "\" text-anchor=\"middle\" fill=\"#666666\">" << c + 1 << "</text>\n";
  }
  for (std::size_t r = 0; r < d.devices.size(); ++r) {
    const double y = top + r * kRow;
    s << "<text x=\"4\" y=\"" << num(y + kRow / 2 + 4) << "\">" << escape(d.row_names[r]) << "</text>\n";
    s << "<rect x=\"" << num(left) << "\" y=\"" << num(y) << "\" width=\"" << num(grid_width) << "\" height=\""
      << num(kRow - kGap) << "\" fill=\"#f4f4f4\"/>\n";
  }
  std::vector<int> row_of(static_cast<std::size_t>(graph.device_count()) * d.lane_count, -1);
  for (std::size_t r = 0; r < d.devices.size(); ++r)
    row_of[d.devices[r] * d.lane_count + d.lanes[r]] = static_cast<int>(r);
  const auto row = [&](const Task& task) { return row_of[task.device * d.lane_count + task.lane]; };
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (is_transfer(task.kind) || !ran(timeline, t)) continue;
    const double x = x_of(timeline.start[t]);
    const double w = std::max(1.0, (timeline.finish[t] - timeline.start[t]) / d.column_seconds * kCell);
    const double y = top + row(task) * kRow;
    s << "<g><title>"
      << escape(std::string(to_string(task.kind)) + " stage " + std::to_string(task.stage) + " batch " +
                std::to_string(task.microbatch) + " on " + d.row_names[row(task)] + ": " +
                fmt::time(timeline.start[t]) + " .. " + fmt::time(timeline.finish[t]))
      << "</title><rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w) << "\" height=\""
      << num(kRow - kGap) << "\" fill=\"" << batch_colour(task.microbatch) << "\" stroke=\"#ffffff\"/>";
    if (w >= 14)
      s << "<text x=\"" << num(x + w / 2) << "\" y=\"" << num(y + kRow / 2 + 3)
        << "\" text-anchor=\"middle\" fill=\"#000000\">" << escape(label(task, options.seed_notation)) << "</text>";
    s << "</g>\n";
  }
  // Time axis under the grid.
  s << "<line x1=\"" << num(left) << "\" y1=\"" << num(grid_bottom + 2) << "\" x2=\"" << num(left + grid_width)
    << "\" y2=\"" << num(grid_bottom + 2) << "\" stroke=\"#666666\"/>\n";
  for (double tick : axis.ticks)
    s << "<line x1=\"" << num(x_of(tick)) << "\" y1=\"" << num(grid_bottom + 2) << "\" x2=\"" << num(x_of(tick))
      << "\" y2=\"" << num(grid_bottom + 7) << "\" stroke=\"#666666\"/><text x=\"" << num(x_of(tick)) << "\" y=\""
      << num(grid_bottom + 19) << "\" text-anchor=\"middle\" fill=\"#666666\">" << tick_label(tick, axis.unit)
      << "</text>\n";
  for (int b = 0; b < entries; ++b) {
    const double x = left + (b % per_row) * 3 * kCell;
    const double y = axis_bottom + 10 + (b / per_row) * kRow;
    s << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(kCell) << "\" height=\""
      << num(kRow - kGap) << "\" fill=\"" << batch_colour(b) << "\"/><text x=\"" << num(x + kCell + 4) << "\" y=\""
      << num(y + kRow / 2 + 3) << "\">b" << b << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace pipesim
