// --diagram is bounded before it is built, so that no run asks for more
// memory than its own report: a task far
// shorter than the run widens the columns instead of asking for billions of
// cells, and an SVG of more tasks than kMaxSvgTasks is refused.
#include <filesystem>
#include <stdexcept>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "reports/pipeline_diagram.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

// Two devices: a 1 ns forward on gpu0 at 0, a 1000 s backward on gpu1 after it.
struct TinyAndLong {
  Platform platform;
  TaskGraph g{2};
  Timeline tl;
  TinyAndLong() {
    platform.devices = {{"gpu0", 1e12, 0, "gpu"}, {"gpu1", 1e12, 0, "gpu"}};
    Task f;
    f.kind = TaskKind::Forward;
    f.device = 0;
    f.stage = 0;
    g.add(f);
    Task b = f;
    b.kind = TaskKind::Backward;
    b.device = 1;
    b.stage = 1;
    g.add(b);
    tl.start = {0, 1e-9};
    tl.finish = {1e-9, 1000};
    tl.makespan = 1000;
  }
};

TEST(DiagramLimits, ATinyTaskWidensTheColumnsToTheCellLimit) {
  const TinyAndLong run;
  const PipelineDiagram d = pipeline_diagram(run.g, run.tl, DiagramOptions{}, &run.platform);
  // 10^12 columns of 1 ns asked; 2 rows of kMaxDiagramCells / 2 columns given.
  EXPECT_TRUE(d.widened);
  EXPECT_EQ(d.columns, static_cast<int>(kMaxDiagramCells / 2));
  EXPECT_DOUBLE_EQ(d.column_seconds, 1000 / (kMaxDiagramCells / 2));
  EXPECT_EQ(d.cells[0][0], "F0");
  EXPECT_EQ(d.cells[1][d.columns - 1], "B1");
  // So is a column the caller asks for, and min_columns.
  DiagramOptions fine;
  fine.column_seconds = 1e-300;
  fine.min_columns = 1 << 30;
  EXPECT_EQ(pipeline_diagram(run.g, run.tl, fine, &run.platform).columns, static_cast<int>(kMaxDiagramCells / 2));
  // A run that fits keeps its shortest task as the column.
  DiagramOptions coarse;
  coarse.column_seconds = 100;
  const PipelineDiagram fits = pipeline_diagram(run.g, run.tl, coarse, &run.platform);
  EXPECT_FALSE(fits.widened);
  EXPECT_EQ(fits.columns, 10);
  // The text is bounded with it: a header and two rows of kMaxDiagramCells / 2 cells.
  EXPECT_LT(pipeline_diagram_text(run.g, run.tl, run.platform, DiagramOptions{}).size(), 16u << 20);
}

TEST(DiagramLimits, AnSvgOfTooManyTasksIsRefusedBeforeDrawing) {
  Platform platform;
  platform.devices = {{"gpu0", 1e12, 0, "gpu"}};
  TaskGraph g{1};
  Timeline tl;
  Task f;
  f.kind = TaskKind::Forward;
  f.device = 0;
  f.stage = 0;
  for (std::size_t i = 0; i <= kMaxSvgTasks; ++i) {
    f.microbatch = static_cast<int>(i);
    g.add(f);
    tl.start.push_back(static_cast<double>(i));
    tl.finish.push_back(static_cast<double>(i + 1));
  }
  tl.makespan = static_cast<double>(kMaxSvgTasks + 1);
  try {
    pipeline_diagram_svg(g, tl, platform, DiagramOptions{});
    FAIL() << "no error";
  } catch (const std::length_error& e) {
    EXPECT_STREQ(e.what(),
                 "an SVG of 1000001 tasks (about 286 MiB); SVG diagrams draw at most 1000000 (a FILE not "
                 "ending in .svg gives a text diagram)");
  }
}

// The reproducer: split with the backward given almost all of each
// resource makes forwards a millionth as fast; it ended in std::bad_alloc.
TEST(DiagramLimits, SplitWithAnExtremeBetaDrawsABoundedDiagram) {
  const std::string root = std::string(PIPESIM_SOURCE_DIR) + "/";
  for (const char* name : {"extreme.txt", "extreme.svg"}) {
    const std::string diagram = testing::temp_path(name);
    const testing::CliResult r =
        testing::run_pipesim("run " + root + "platforms/mobile-4.xml " + root +
                             "workloads/examples/mobile-cnn.yaml --schedule-param "
                             "allocation=none --schedule-param beta=0.999999 --quiet --diagram " +
                             diagram);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GT(std::filesystem::file_size(diagram), 0u);
    EXPECT_LT(std::filesystem::file_size(diagram), 16u << 20) << name;
  }
}

}  // namespace
}  // namespace pipesim
