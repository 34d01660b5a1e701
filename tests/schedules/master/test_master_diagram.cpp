// Seed 003's pipeline diagrams from simulated master-scheduler runs:
// identical unit stages (F = B = 1 s = one column), free transfers.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "reports/pipeline_diagram.hpp"
#include "schedules/master/master_scheduler_internal.hpp"
#include "tests/schedules/master/master_test_support.hpp"

namespace pipesim {
namespace {

// Seed 003, "Formal definitions of distributed schedules": the DDP diagram
// for 8 workers, 8 batches and 4 stages, verbatim (tab-separated, padded to
// 12 columns; the batch id is the cell's colour in the seed, so the text
// shows the stage only).
const std::string kSeedDDP =
    "\tDistributedDataParallel\t\t\t\t\t\t\t\t\t\t\t\n"
    "\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\n"
    "w0\tf0\tf1\tf2\tf3\tv3\tv2\tv1\tv0\t\t\t\t\n"
    "w1\tf0\tf1\tf2\tf3\tv3\tv2\tv1\tv0\t\t\t\t\n"
    "w2\tf0\tf1\tf2\tf3\tv3\tv2\tv1\tv0\t\t\t\t\n"
    "w3\tf0\tf1\tf2\tf3\tv3\tv2\tv1\tv0\t\t\t\t\n"
    "w4\tf0\tf1\tf2\tf3\tv3\tv2\tv1\tv0\t\t\t\t\n"
    "w5\tf0\tf1\tf2\tf3\tv3\tv2\tv1\tv0\t\t\t\t\n"
    "w6\tf0\tf1\tf2\tf3\tv3\tv2\tv1\tv0\t\t\t\t\n"
    "w7\tf0\tf1\tf2\tf3\tv3\tv2\tv1\tv0\t\t\t\t\n";

// LPP with 8 workers, 8 batches and 4 stages in G = 2 groups (so R = 4), the
// configuration of the seed's LPP figure. The figure itself is an image that
// the seed's text does not carry, so this is the diagram its definitions
// imply, checked by hand: group 0 (w0..w3) runs batches 0, 2, 4, 6 and group 1
// (w4..w7) batches 1, 3, 5, 7, each as a 4-stage GPipe with the greedy 1F1B
// rule; 14 columns = 2 (S + B/G - 1), Table 1's latency 7 in units of F + B.
const std::string kLPP =
    "\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n"
    "w0\tf0\tf0\tf0\tf0\t\t\t\tv0\t\tv0\t\tv0\t\tv0\n"
    "w1\t\tf1\tf1\tf1\tf1\t\tv1\t\tv1\t\tv1\t\tv1\t\n"
    "w2\t\t\tf2\tf2\tf2\tv2\tf2\tv2\t\tv2\t\tv2\t\t\n"
    "w3\t\t\t\tf3\tv3\tf3\tv3\tf3\tv3\tf3\tv3\t\t\t\n"
    "w4\tf0\tf0\tf0\tf0\t\t\t\tv0\t\tv0\t\tv0\t\tv0\n"
    "w5\t\tf1\tf1\tf1\tf1\t\tv1\t\tv1\t\tv1\t\tv1\t\n"
    "w6\t\t\tf2\tf2\tf2\tv2\tf2\tv2\t\tv2\t\tv2\t\t\n"
    "w7\t\t\t\tf3\tv3\tf3\tv3\tf3\tv3\tf3\tv3\t\t\t\n";

// The same with batch ids in the cells.
const std::string kLPPBatches =
    "\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n"
    "w0\tf0b0\tf0b2\tf0b4\tf0b6\t\t\t\tv0b0\t\tv0b2\t\tv0b4\t\tv0b6\n"
    "w1\t\tf1b0\tf1b2\tf1b4\tf1b6\t\tv1b0\t\tv1b2\t\tv1b4\t\tv1b6\t\n"
    "w2\t\t\tf2b0\tf2b2\tf2b4\tv2b0\tf2b6\tv2b2\t\tv2b4\t\tv2b6\t\t\n"
    "w3\t\t\t\tf3b0\tv3b0\tf3b2\tv3b2\tf3b4\tv3b4\tf3b6\tv3b6\t\t\t\n"
    "w4\tf0b1\tf0b3\tf0b5\tf0b7\t\t\t\tv0b1\t\tv0b3\t\tv0b5\t\tv0b7\n"
    "w5\t\tf1b1\tf1b3\tf1b5\tf1b7\t\tv1b1\t\tv1b3\t\tv1b5\t\tv1b7\t\n"
    "w6\t\t\tf2b1\tf2b3\tf2b5\tv2b1\tf2b7\tv2b3\t\tv2b5\t\tv2b7\t\t\n"
    "w7\t\t\t\tf3b1\tv3b1\tf3b3\tv3b3\tf3b5\tv3b5\tf3b7\tv3b7\t\t\t\n";

// GPipe, 4 stages, 4 batches, B = 2 F: a backward fills two columns; 21 columns
// = (S + B - 1)(F + B).
const std::string kGPipeLongBackward =
    "\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t15\t16\t17\t18\t19\t20\t21\n"
    "w0\tf0\tf0\tf0\tf0\t\t\t\t\t\t\tv0\tv0\t\tv0\tv0\t\tv0\tv0\t\tv0\tv0\n"
    "w1\t\tf1\tf1\tf1\tf1\t\t\t\tv1\tv1\t\tv1\tv1\t\tv1\tv1\t\tv1\tv1\t\t\n"
    "w2\t\t\tf2\tf2\tf2\tf2\tv2\tv2\t\tv2\tv2\t\tv2\tv2\t\tv2\tv2\t\t\t\t\n"
    "w3\t\t\t\tf3\tv3\tv3\tf3\tv3\tv3\tf3\tv3\tv3\tf3\tv3\tv3\t\t\t\t\t\t\n";

class MasterDiagrams : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const MasterSpec ddp{MasterScheme::DDP, MasterPriority::OneFOneB, 0, 0};
    const MasterSpec lpp{MasterScheme::LPP, MasterPriority::OneFOneB, 2, 4};
    const MasterSpec gpipe{MasterScheme::GPipe, MasterPriority::OneFOneB, 0, 0};
    graphs_ = new std::vector<TaskGraph>{
        build_master_graph(ddp, testing::unit_stages(4), 8, 8), build_master_graph(lpp, testing::unit_stages(4), 8, 8),
        build_master_graph(gpipe, uniform_master_stages(4, testing::kUnitFlops, 2 * testing::kUnitFlops, 0, 0), 4, 4)};
    timelines_ = new std::vector<Timeline>(
        testing::run_side_by_side({&(*graphs_)[0], &(*graphs_)[1], &(*graphs_)[2]}, testing::hosts_platform(20)));
  }
  static void TearDownTestSuite() {
    delete graphs_;
    delete timelines_;
  }
  static std::vector<TaskGraph>* graphs_;
  static std::vector<Timeline>* timelines_;
};
std::vector<TaskGraph>* MasterDiagrams::graphs_ = nullptr;
std::vector<Timeline>* MasterDiagrams::timelines_ = nullptr;

// One test per process (gtest_discover_tests): every TEST_F runs its own
// SetUpTestSuite, hence its own single SimGrid run.
TEST_F(MasterDiagrams, DDPIsTheSeedsDiagramVerbatim) {
  DiagramOptions o;
  o.title = "DistributedDataParallel";
  o.min_columns = 12;
  o.seed_notation = true;
  EXPECT_EQ(pipeline_diagram_text((*graphs_)[0], (*timelines_)[0], o), kSeedDDP);
}

TEST_F(MasterDiagrams, LPPEightWorkersEightBatchesFourStages) {
  const TaskGraph& g = (*graphs_)[1];
  const Timeline& tl = (*timelines_)[1];
  EXPECT_DOUBLE_EQ(tl.makespan, 14.0);
  DiagramOptions o;
  o.seed_notation = true;
  EXPECT_EQ(pipeline_diagram_text(g, tl, o), kLPP);
  o.batch_ids = true;
  EXPECT_EQ(pipeline_diagram_text(g, tl, o), kLPPBatches);
}

TEST_F(MasterDiagrams, LongerBackwardFillsTwoColumns) {
  DiagramOptions seed;
  seed.seed_notation = true;
  EXPECT_EQ(pipeline_diagram_text((*graphs_)[2], (*timelines_)[2], seed), kGPipeLongBackward);
  const PipelineDiagram d = pipeline_diagram((*graphs_)[2], (*timelines_)[2], {});
  EXPECT_DOUBLE_EQ(d.column_seconds, 1.0);  // the shortest task, a forward
  EXPECT_EQ(d.overlaps, 0);
  // A column twice as coarse puts two forwards in one cell on w0: the first stays.
  DiagramOptions coarse;
  coarse.column_seconds = 2;
  const PipelineDiagram c = pipeline_diagram((*graphs_)[2], (*timelines_)[2], coarse);
  EXPECT_GT(c.overlaps, 0);
  EXPECT_EQ(c.cells[0][0], "F0");
  EXPECT_EQ(c.batches[0][0], 0);
}

TEST_F(MasterDiagrams, SvgDrawsEveryJobColouredByBatchAndIsDeterministic) {
  const TaskGraph& g = (*graphs_)[1];
  const Timeline& tl = (*timelines_)[1];
  DiagramOptions o;
  o.title = "LPP <G=2, R=4>";
  const std::string svg = pipeline_diagram_svg(g, tl, testing::named_devices(8), o);
  EXPECT_EQ(svg, pipeline_diagram_svg(g, tl, testing::named_devices(8), o));
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("LPP &lt;G=2, R=4&gt;"), std::string::npos);  // escaped
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  std::size_t cells = 0;
  for (std::size_t at = 0; (at = svg.find("<g><title>", at)) != std::string::npos; ++at) ++cells;
  EXPECT_EQ(cells, 64u);  // 2 S B jobs
  // F(0, 0) on w0 at 0 s, batch 0's colour; F(0, 1) on w4, batch 1's.
  EXPECT_NE(svg.find("<title>forward stage 0 batch 0 on w0: 0.00 s .. 1.00 s</title><rect x=\"44\" y=\"28\" "
                     "width=\"28\" height=\"20\" fill=\"" +
                     batch_colour(0) + "\""),
            std::string::npos);
  EXPECT_NE(svg.find("<title>forward stage 0 batch 1 on w4: 0.00 s .. 1.00 s</title><rect x=\"44\" y=\"116\" "
                     "width=\"28\" height=\"20\" fill=\"" +
                     batch_colour(1) + "\""),
            std::string::npos);
  // B(0, 0) on w0 from 7 s, labelled B0.
  EXPECT_NE(svg.find("<title>backward stage 0 batch 0 on w0: 7.00 s .. 8.00 s</title><rect x=\"240\" y=\"28\" "
                     "width=\"28\" height=\"20\" fill=\"" +
                     batch_colour(0) +
                     "\" stroke=\"#ffffff\"/>"
                     "<text x=\"254\" y=\"42\" text-anchor=\"middle\" fill=\"#000000\">B0</text>"),
            std::string::npos)
      << svg;
  // 14 columns of 28 px: at most 4 ticks, every 5 s.
  for (const char* tick : {">0 s</text>", ">5 s</text>", ">10 s</text>"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(svg.find(">15 s</text>"), std::string::npos);
  for (const char* legend : {">b0</text>", ">b7</text>"}) EXPECT_NE(svg.find(legend), std::string::npos);
}

}  // namespace
}  // namespace pipesim
