// Seed 003's pipeline diagrams: one row per worker, one column per time step;
// a cell says what the worker computes then, "f" + stage for a forward and
// "v" + stage for a backward (the seed's notation), the batch id given by the
// cell's colour (SVG) or, on request, appended ("f2b5", text).
#pragma once

#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "sim/timeline.hpp"

namespace pipesim {

struct DiagramOptions {
  std::string title;          // a title line (text) or heading (SVG); none if empty
  double column_seconds = 0;  // the duration of one column; 0 = the shortest compute task
  int min_columns = 0;        // pad the grid with empty columns up to this many
  bool batch_ids = false;     // text cells carry the micro-batch too: "f0b3"
};

// The grid behind both renderings. Rows are the devices that run a compute
// task, in device order, named "w<device index>". A task running over
// [start, finish) fills columns round(start / col) .. round(finish / col) - 1
// (at least one); a cell two tasks would share (only with a column coarser
// than the tasks) keeps the first task by id, and `overlaps` counts them.
struct PipelineDiagram {
  double column_seconds = 0;
  int columns = 0;
  std::vector<int> devices;
  std::vector<std::string> row_names;
  std::vector<std::vector<std::string>> cells;  // [row][column], "" when idle
  std::vector<std::vector<int>> batches;        // [row][column], -1 when idle
  int overlaps = 0;
};

PipelineDiagram pipeline_diagram(const TaskGraph& graph, const Timeline& timeline, const DiagramOptions& options);

// Tab-separated like the seed's DDP diagram: an optional title line
// ("\tTITLE" then a tab per further column), the column numbers from 1, then
// one line per worker ("w0\tf0\tf1..."), every line with the same number of
// fields. Deterministic.
std::string pipeline_diagram_text(const TaskGraph& graph, const Timeline& timeline, const DiagramOptions& options);

// The same as an SVG picture: cells drawn at their simulated start and
// duration, coloured by micro-batch (10 colours, cycled), labelled like the
// text; a legend of batch colours; a tooltip per cell. Deterministic.
std::string pipeline_diagram_svg(const TaskGraph& graph, const Timeline& timeline, const Platform& platform,
                                 const DiagramOptions& options);

}  // namespace pipesim
