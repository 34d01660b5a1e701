// Pipeline diagrams (--diagram) on a hand-made timeline: device names, F/B
// cells, the time header and axis, batch colours.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "reports/pipeline_diagram.hpp"

namespace pipesim {
namespace {

// GPipe on two stages, 3 micro-batches, F = 1 ms, B = 2 ms (in ms):
//   gpu0: F0 m over [m, m+1], B0 m over [6+2m, 8+2m]
//   gpu1: F1 m over [m+1, m+2], B1 m over [4+2m, 6+2m]
struct Toy {
  Platform platform;
  TaskGraph g{2};
  Timeline tl;
  Toy() {
    platform.devices = {{"gpu0", 1e12, 0, "gpu"}, {"gpu1", 1e12, 0, "gpu"}};
    auto add = [&](TaskKind kind, int device, int mb, double start, double finish) {
      Task t;
      t.kind = kind;
      t.device = device;
      t.stage = device;
      t.microbatch = mb;
      g.add(t);
      tl.start.push_back(start * 1e-3);
      tl.finish.push_back(finish * 1e-3);
    };
    for (int m = 0; m < 3; ++m) {
      add(TaskKind::Forward, 0, m, m, m + 1);
      add(TaskKind::Forward, 1, m, m + 1, m + 2);
      add(TaskKind::Backward, 1, m, 4 + 2 * m, 6 + 2 * m);
      add(TaskKind::Backward, 0, m, 6 + 2 * m, 8 + 2 * m);
    }
    tl.makespan = 12e-3;
  }
};

TEST(PipelineDiagram, TextHasDeviceNamesForwardBackwardAndColumnTimes) {
  const Toy toy;
  DiagramOptions o;
  o.title = "toy";
  o.batch_ids = true;
  EXPECT_EQ(pipeline_diagram_text(toy.g, toy.tl, toy.platform, o),
            "\ttoy" + std::string(11, '\t') +
                "\n"
                "ms\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\n"
                "gpu0\tF0b0\tF0b1\tF0b2\t\t\t\tB0b0\tB0b0\tB0b1\tB0b1\tB0b2\tB0b2\n"
                "gpu1\t\tF1b0\tF1b1\tF1b2\tB1b0\tB1b0\tB1b1\tB1b1\tB1b2\tB1b2\t\t\n");
  // Without the platform the rows are w<index>; the seed's notation keeps
  // its f, v and column numbers.
  o.title.clear();
  o.batch_ids = false;
  EXPECT_EQ(
      pipeline_diagram_text(toy.g, toy.tl, o).rfind("ms\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\nw0\tF0\tF0\tF0\t", 0),
      0u);
  o.seed_notation = true;
  EXPECT_EQ(pipeline_diagram_text(toy.g, toy.tl, toy.platform, o),
            "\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\n"
            "w0\tf0\tf0\tf0\t\t\t\tv0\tv0\tv0\tv0\tv0\tv0\n"
            "w1\t\tf1\tf1\tf1\tv1\tv1\tv1\tv1\tv1\tv1\t\t\n");
}

TEST(PipelineDiagram, ColumnTimesUseTheColumnsUnit) {
  const Toy toy;
  DiagramOptions o;
  o.column_seconds = 2.5e-3;
  const std::string text = pipeline_diagram_text(toy.g, toy.tl, toy.platform, o);
  EXPECT_EQ(text.substr(0, text.find('\n')), "ms\t0\t2.5\t5\t7.5\t10");
  o.column_seconds = 4e-6;  // 3000 columns of 4 us
  const std::string fine = pipeline_diagram_text(toy.g, toy.tl, toy.platform, o);
  EXPECT_EQ(fine.rfind("us\t0\t4\t8\t12\t16\t20\t", 0), 0u);
}

TEST(PipelineDiagram, SvgRowsAxisLabelsAndLegend) {
  const Toy toy;
  const std::string svg = pipeline_diagram_svg(toy.g, toy.tl, toy.platform, {});
  EXPECT_EQ(svg, pipeline_diagram_svg(toy.g, toy.tl, toy.platform, {}));
  EXPECT_NE(svg.find("<text x=\"4\" y=\"21\">gpu0</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<text x=\"4\" y=\"43\">gpu1</text>"), std::string::npos) << svg;
  // B1 of micro-batch 0 over [4, 6] ms: x = 44 + 4 columns of 28 px.
  EXPECT_NE(svg.find("<title>backward stage 1 batch 0 on gpu1: 4.00 ms .. 6.00 ms</title><rect x=\"156\" y=\"28\" "
                     "width=\"56\" height=\"20\" fill=\"" +
                     batch_colour(0) +
                     "\" stroke=\"#ffffff\"/><text x=\"184\" "
                     "y=\"42\" text-anchor=\"middle\" fill=\"#000000\">B1</text>"),
            std::string::npos)
      << svg;
  // 12 columns of 28 px hold 4 ticks: every 5 ms, under the grid.
  EXPECT_NE(svg.find("<line x1=\"44\" y1=\"52\" x2=\"44\" y2=\"57\" stroke=\"#666666\"/><text x=\"44\" y=\"69\" "
                     "text-anchor=\"middle\" fill=\"#666666\">0 ms</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">5 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">10 ms</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">15 ms</text>"), std::string::npos);
  for (int b = 0; b < 3; ++b)
    EXPECT_NE(svg.find("fill=\"" + batch_colour(b) + "\"/><text x=\""), std::string::npos) << b;
  EXPECT_NE(svg.find(">b2</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">b3</text>"), std::string::npos);
}

TEST(PipelineDiagram, LongRowNamesWidenTheLeftMargin) {
  Toy toy;
  toy.platform.devices[0].name = "node3-gpu7-a100";  // 15 characters: 12 + 7 x 15 = 117 px
  const std::string svg = pipeline_diagram_svg(toy.g, toy.tl, toy.platform, {});
  EXPECT_NE(svg.find(">node3-gpu7-a100</text>"), std::string::npos);
  EXPECT_NE(svg.find("<rect x=\"117\" y=\"6\" width=\"336\""), std::string::npos) << svg;
}

TEST(TimeAxis, RoundStepsAndTheirUnit) {
  // The README's 1.66 s iteration: at most 10 ticks, every 200 ms.
  const TimeAxis a = time_axis(1.66, 10);
  EXPECT_DOUBLE_EQ(a.step, 0.2);
  std::vector<std::string> labels;
  for (double t : a.ticks) labels.push_back(tick_label(t, a.unit));
  EXPECT_EQ(labels, (std::vector<std::string>{"0 ms", "200 ms", "400 ms", "600 ms", "800 ms", "1000 ms", "1200 ms",
                                              "1400 ms", "1600 ms"}));
  const TimeAxis b = time_axis(0.35, 8);  // 0.05 exactly fits 8 ticks
  EXPECT_DOUBLE_EQ(b.step, 0.05);
  EXPECT_EQ(tick_label(b.ticks.back(), b.unit), "350 ms");
  const TimeAxis c = time_axis(14, 10);
  EXPECT_DOUBLE_EQ(c.step, 2);
  EXPECT_EQ(tick_label(c.ticks.back(), c.unit), "14 s");
  const TimeAxis d = time_axis(3e-6, 4);
  EXPECT_EQ(tick_label(d.ticks[1], d.unit), "1 us");
  EXPECT_EQ(time_axis(0).ticks, std::vector<double>{0});
}

TEST(BatchColour, GoldenRatioHuesDoNotCycle) {
  // HSL(0.58 + b / phi turns, 55 %, 62 %), as Python's colorsys gives them.
  EXPECT_EQ(batch_colour(0), "#69a0d3");
  EXPECT_EQ(batch_colour(1), "#bfd369");
  EXPECT_EQ(batch_colour(2), "#c869d3");
  EXPECT_EQ(batch_colour(3), "#69d3a9");
  EXPECT_EQ(batch_colour(-1), "#ffffff");
  std::set<std::string> colours;
  for (int b = 0; b < 200; ++b) colours.insert(batch_colour(b));
  EXPECT_EQ(colours.size(), 200u);
}

}  // namespace
}  // namespace pipesim
