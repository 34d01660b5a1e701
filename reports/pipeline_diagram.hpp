// Pipeline diagrams in the style of seed 003: one row per device that
// computes, one column per time step; a cell says what the device computes
// then, "F" + stage for a forward and "B" + stage for a backward, the batch
// given by the cell's colour (SVG) or, on request, appended ("F2b5", text).
// `seed_notation` gives the seed's own text instead: rows "w<index>",
// forwards "f", backwards "v", columns numbered from 1.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

// The most cells a grid holds (rows x columns): about 40 MB of grid and
// 10 MB of text, far more than anyone reads.
constexpr double kMaxDiagramCells = 1 << 20;
// The most compute tasks an SVG draws (each is about 300 bytes of SVG);
// pipeline_diagram_svg throws std::length_error above it.
constexpr std::size_t kMaxSvgTasks = 1'000'000;

struct DiagramOptions {
  std::string title;           // a title line (text) or heading (SVG); none if empty
  double column_seconds = 0;   // the duration of one column; 0 = the shortest compute task (both widened
                               // if the grid would have more than kMaxDiagramCells cells)
  int min_columns = 0;         // pad the grid with empty columns up to this many
  bool batch_ids = false;      // text cells carry the micro-batch too: "F0b3"
  bool seed_notation = false;  // rows w<index>, f/v cells, numbered columns (seed 003's text)
};

// The grid behind both renderings. Rows are the devices that run a compute
// task, in device order, named after the platform's devices ("w<device
// index>" without a platform or with seed_notation). A task running over
// [start, finish) fills columns round(start / col) .. round(finish / col) - 1
// (at least one); a cell two tasks would share (only with a column coarser
// than the tasks) keeps the first task by id, and `overlaps` counts them.
// When tasks run in lanes (Task::lane, seed 004's split), each device has a
// row per lane it uses, named "<device> lane <n>"; parts of one pass on
// several resources of a lane run together and share that row.
struct PipelineDiagram {
  double column_seconds = 0;
  bool widened = false;  // column_seconds was widened to keep to kMaxDiagramCells
  int columns = 0;
  std::vector<int> devices;  // per row
  std::vector<int> lanes;    // per row
  int lane_count = 1;        // largest lane + 1
  std::vector<std::string> row_names;
  std::vector<std::vector<std::string>> cells;  // [row][column], "" when idle
  std::vector<std::vector<int>> batches;        // [row][column], -1 when idle
  int overlaps = 0;
};

PipelineDiagram pipeline_diagram(const TaskGraph& graph, const Timeline& timeline, const DiagramOptions& options,
                                 const Platform* platform = nullptr);

// A time unit for labels: the largest of s, ms, us, ns in which `seconds`
// is at least 1, give or take 1e-9 of round-off ("s" for 0).
struct TimeUnit {
  const char* name;
  double seconds;  // one unit in seconds
};
TimeUnit time_unit_for(double seconds);

// Axis ticks: a step of 1, 2 or 5 times a power of ten giving at most
// `max_ticks` ticks over [0, end], and the unit its labels use (the step's
// unit, so labels are whole or short numbers: "0 ms", "50 ms", ...).
struct TimeAxis {
  double step = 0;  // seconds
  TimeUnit unit{"s", 1};
  std::vector<double> ticks;  // 0, step, 2 step, ... <= end (seconds)
};
TimeAxis time_axis(double end, int max_ticks = 10);
// "50 ms": a tick value in the axis unit, at most 6 significant digits.
std::string tick_label(double seconds, const TimeUnit& unit);

// Tab-separated like the seed's DDP diagram: an optional title line
// ("\tTITLE" then a tab per further column), a header line, then one line
// per device ("gpu0\tF0\tF1..."), every line with the same number of
// fields. The header gives each column's start time: its first field is the
// unit ("ms"), then the times ("0\t3.57\t7.14..."); with seed_notation the
// columns are numbered from 1 under an empty first field. Deterministic.
std::string pipeline_diagram_text(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                                  const DiagramOptions& options);
// Without a platform the rows are "w<device index>".
std::string pipeline_diagram_text(const TaskGraph& graph, const Timeline& timeline, const DiagramOptions& options);

// The same as an SVG picture: rows named after the devices, cells drawn at
// their simulated start and duration, coloured by micro-batch (one hue per
// batch from the golden-ratio sequence, so no two nearby batches look alike
// and colours do not cycle), labelled like the text; a time axis under the
// grid with ticks at a round step ("0 ms", "50 ms", ...); a legend of batch
// colours; a tooltip per cell. Deterministic. Throws std::length_error,
// before drawing, for more than kMaxSvgTasks compute tasks that ran.
std::string pipeline_diagram_svg(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                                 const DiagramOptions& options);

// The fill colour of micro-batch `batch` ("#rrggbb"; white for -1).
std::string batch_colour(int batch);

}  // namespace pipesim
