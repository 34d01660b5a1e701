#include "reports/pipeline_diagram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "sim/format.hpp"

namespace pipesim {
namespace {

bool ran(const Timeline& tl, TaskId t) { return !std::isnan(tl.start[t]) && !std::isnan(tl.finish[t]); }

std::string kind_letter(TaskKind kind) {
  switch (kind) {
    case TaskKind::Forward: return "f";
    case TaskKind::Backward: return "v";
    case TaskKind::BackwardInput: return "vi";
    case TaskKind::BackwardWeight: return "vw";
    case TaskKind::Recompute: return "r";
    case TaskKind::Update: return "u";
    default: return "?";
  }
}

std::string label(const Task& t) { return kind_letter(t.kind) + (t.stage >= 0 ? std::to_string(t.stage) : ""); }

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Tableau 10.
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
const char* colour(int batch) { return batch < 0 ? "#ffffff" : kPalette[batch % 10]; }

}  // namespace

PipelineDiagram pipeline_diagram(const TaskGraph& graph, const Timeline& timeline, const DiagramOptions& options) {
  PipelineDiagram d;
  std::vector<int> row_of(graph.device_count(), -1);
  double shortest = std::numeric_limits<double>::infinity(), end = 0;
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (is_transfer(task.kind) || !ran(timeline, t)) continue;
    row_of[task.device] = 0;
    const double len = timeline.finish[t] - timeline.start[t];
    if (len > 0) shortest = std::min(shortest, len);
    end = std::max(end, timeline.finish[t]);
  }
  for (int dev = 0; dev < graph.device_count(); ++dev)
    if (row_of[dev] == 0) {
      row_of[dev] = static_cast<int>(d.devices.size());
      d.devices.push_back(dev);
      d.row_names.push_back("w" + std::to_string(dev));
    }
  d.column_seconds = options.column_seconds > 0 ? options.column_seconds : (std::isfinite(shortest) ? shortest : 1);
  auto column = [&](double time) { return static_cast<int>(std::llround(time / d.column_seconds)); };
  d.columns = std::max(options.min_columns, column(end));
  d.cells.assign(d.devices.size(), std::vector<std::string>(d.columns));
  d.batches.assign(d.devices.size(), std::vector<int>(d.columns, -1));
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (is_transfer(task.kind) || !ran(timeline, t)) continue;
    const int row = row_of[task.device];
    const int first = column(timeline.start[t]);
    const int last = std::max(first + 1, column(timeline.finish[t]));
    if (last > d.columns) {
      d.columns = last;
      for (auto& r : d.cells) r.resize(d.columns);
      for (auto& r : d.batches) r.resize(d.columns, -1);
    }
    std::string text = label(task);
    if (options.batch_ids && task.microbatch >= 0) text += "b" + std::to_string(task.microbatch);
    for (int c = first; c < last; ++c) {
      if (!d.cells[row][c].empty()) {
        ++d.overlaps;
        continue;
      }
      d.cells[row][c] = text;
      d.batches[row][c] = task.microbatch;
    }
  }
  return d;
}

std::string pipeline_diagram_text(const TaskGraph& graph, const Timeline& timeline, const DiagramOptions& options) {
  const PipelineDiagram d = pipeline_diagram(graph, timeline, options);
  std::string out;
  if (!options.title.empty()) out += "\t" + options.title + std::string(d.columns > 0 ? d.columns - 1 : 0, '\t') + "\n";
  for (int c = 0; c < d.columns; ++c) out += "\t" + std::to_string(c + 1);
  out += "\n";
  for (std::size_t r = 0; r < d.devices.size(); ++r) {
    out += d.row_names[r];
    for (const std::string& cell : d.cells[r]) out += "\t" + cell;
    out += "\n";
  }
  return out;
}

std::string pipeline_diagram_svg(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                                 const DiagramOptions& options) {
  const PipelineDiagram d = pipeline_diagram(graph, timeline, options);
  constexpr double kCell = 28, kRow = 22, kLeft = 44, kGap = 2;
  const double top = options.title.empty() ? 22 : 44;
  int max_batch = -1;
  for (TaskId t = 0; t < graph.size(); ++t)
    if (!is_transfer(graph.task(t).kind)) max_batch = std::max(max_batch, graph.task(t).microbatch);
  // The legend: one entry per batch, or per colour (b mod 10) beyond 10 batches.
  const int entries = std::min(max_batch + 1, 10);
  const int per_row = std::max(4, d.columns / 3);
  const int legend_rows = entries == 0 ? 0 : (entries + per_row - 1) / per_row;
  const double width = std::max(kLeft + d.columns * kCell, kLeft + std::min(entries, per_row) * 3 * kCell) + 10;
  const double grid_bottom = top + d.devices.size() * kRow;
  const double height = grid_bottom + 10 + legend_rows * kRow + 6;
  auto num = [](double v) { return fmt::number(v, 10); };

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
    << "\" font-family=\"monospace\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  if (!options.title.empty())
    s << "<text x=\"" << num(kLeft) << "\" y=\"16\" font-size=\"14\">" << escape(options.title) << "</text>\n";
  // Column numbers, as in the seed (every column while they fit, else every tenth).
  const int every = d.columns <= 60 ? 1 : 10;
  for (int c = 0; c < d.columns; ++c)
    if ((c + 1) % every == 0 || every == 1)
      s << "<text x=\"" << num(kLeft + (c + 0.5) * kCell) << "\" y=\"" << num(top - 6)
        << "\" text-anchor=\"middle\" fill=\"#666666\">" << c + 1 << "</text>\n";
  for (std::size_t r = 0; r < d.devices.size(); ++r) {
    const double y = top + r * kRow;
    s << "<text x=\"4\" y=\"" << num(y + kRow / 2 + 4) << "\">" << escape(d.row_names[r]) << "</text>\n";
    s << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(y) << "\" width=\"" << num(d.columns * kCell)
      << "\" height=\"" << num(kRow - kGap) << "\" fill=\"#f4f4f4\"/>\n";
  }
  std::vector<int> row_of(graph.device_count(), -1);
  for (std::size_t r = 0; r < d.devices.size(); ++r) row_of[d.devices[r]] = static_cast<int>(r);
  for (TaskId t = 0; t < graph.size(); ++t) {
    const Task& task = graph.task(t);
    if (is_transfer(task.kind) || !ran(timeline, t)) continue;
    const double x = kLeft + timeline.start[t] / d.column_seconds * kCell;
    const double w = std::max(1.0, (timeline.finish[t] - timeline.start[t]) / d.column_seconds * kCell);
    const double y = top + row_of[task.device] * kRow;
    const std::string name = task.device < platform.size() ? platform.devices[task.device].name : "";
    s << "<g><title>" << escape(std::string(to_string(task.kind)) + " stage " + std::to_string(task.stage) +
                                " batch " + std::to_string(task.microbatch) + " on " + name + ": " +
                                fmt::time(timeline.start[t]) + " .. " + fmt::time(timeline.finish[t]))
      << "</title><rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w) << "\" height=\""
      << num(kRow - kGap) << "\" fill=\"" << colour(task.microbatch) << "\" stroke=\"#ffffff\"/>";
    if (w >= 14)
      s << "<text x=\"" << num(x + w / 2) << "\" y=\"" << num(y + kRow / 2 + 3)
        << "\" text-anchor=\"middle\" fill=\"#000000\">" << escape(label(task)) << "</text>";
    s << "</g>\n";
  }
  for (int b = 0; b < entries; ++b) {
    const double x = kLeft + (b % per_row) * 3 * kCell;
    const double y = grid_bottom + 10 + (b / per_row) * kRow;
    s << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(kCell) << "\" height=\""
      << num(kRow - kGap) << "\" fill=\"" << colour(b) << "\"/><text x=\"" << num(x + kCell + 4) << "\" y=\""
      << num(y + kRow / 2 + 3) << "\">" << (max_batch >= 10 ? "b%10=" : "b") << b << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace pipesim
