// pipesim run with schedule master: --schedule-param, --diagram (text, SVG),
// --workers.
#include <string>

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

// Seed 003's LPP configuration (8 workers, 8 batches, 4 stages, G = 2),
// identical unit stages (1 s each way on 1 Tf), free transfers.
const std::string kWorkload =
    "name: lpp-seed\n"
    "microbatches: 8\n"
    "layers:\n  - {forward: 1s, backward: 1s, activation: 0, repeat: 4}\n"
    "schedule: {name: master, scheme: lpp, G: 2, R: 4}\n";

TEST(MasterCli, DiagramsAndWorkerReport) {
  const std::string plat = complete_platform(8);
  const std::string w = write_file("master-cli.yaml", kWorkload);
  const std::string txt = temp_path("lpp.txt"), svg = temp_path("lpp.svg"), workers = temp_path("workers.txt");
  const CliResult r = run_pipesim("run " + plat + " " + w + " --quiet --diagram " + txt + " --diagram " + svg +
                                  " --workers " + workers);
  // The last --diagram wins, like the other file options.
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::string picture = read_text(svg);
  EXPECT_EQ(picture.rfind("<svg ", 0), 0u);
  EXPECT_NE(picture.find(">lpp-seed</text>"), std::string::npos);
  // Rows named after the platform's hosts; a time axis in seconds.
  EXPECT_NE(picture.find("<text x=\"4\" y=\"43\">gpu0</text>"), std::string::npos) << picture;
  EXPECT_NE(picture.find(">10 s</text>"), std::string::npos) << picture;
  const std::string report = read_text(workers);
  EXPECT_NE(report.find("  gpu1      8 8.00 s 13.00 s 0.5714      4       4         0      0 B       4       1      1"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("latency L = 14.00 s"), std::string::npos) << report;
  EXPECT_NE(report.find("bound M / S = 4 / 4 = 1.0000"), std::string::npos) << report;

  // Text, and the same workload as DDP through --schedule-param.
  const CliResult t = run_pipesim("run " + plat + " " + w + " --quiet --diagram " + txt);
  EXPECT_EQ(t.exit_code, 0) << t.err;
  const std::string lpp = read_text(txt);
  EXPECT_EQ(lpp.substr(0, lpp.find('\n')), "\tlpp-seed" + std::string(13, '\t'));
  // The header: the unit, then each column's start time (a column is a 1 s job).
  EXPECT_NE(lpp.find("\ns\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\n"), std::string::npos) << lpp;
  // Rows are named w<device index> while cli/ calls the text diagram without
  // the platform (with it, they are named gpu0, gpu1, ...).
  EXPECT_NE(lpp.find("\ngpu0\tF0b0\tF0b2\tF0b4\tF0b6\t\t\t\tB0b0\t\tB0b2\t\tB0b4\t\tB0b6\n"), std::string::npos) << lpp;
  const CliResult d = run_pipesim("run " + plat + " " + w +
                                  " --quiet --schedule-param scheme=ddp --schedule-param G= --schedule-param R= "
                                  "--diagram " +
                                  txt);
  EXPECT_EQ(d.exit_code, 0) << d.err;
  const std::string ddp = read_text(txt);
  EXPECT_NE(ddp.find("\ngpu7\tF0b7\tF1b7\tF2b7\tF3b7\tB3b7\tB2b7\tB1b7\tB0b7\n"), std::string::npos) << ddp;
}

}  // namespace
}  // namespace pipesim
