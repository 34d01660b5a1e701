// scripts/make_platform.py cluster: the generated topologies, as SimGrid
// XML that pipesim runs.
#include <gtest/gtest.h>

#include "tests/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

// The platform written by `make_platform.py cluster ARGS`, or "" on failure.
std::string generate(const std::string& args, const std::string& name) {
  const std::string out = temp_path(name);
  const std::string command = "python3 " + kRoot + "scripts/make_platform.py cluster " + args + " -o " + out +
                              " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0 ? read_text(out) : "";
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

TEST(MakePlatformCluster, RailFatTreeEthernetAndMeshRoutes) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string rail = generate("--boxes 2 --gpus 4 --gpu H100 --network rail --nic 200Gbps", "rail.xml");
  // Another rail: over the box's NVSwitch to the GPU on the peer's rail first (PXN).
  EXPECT_TRUE(has(rail, "<route src=\"box0-gpu0\" dst=\"box1-gpu1\"><link_ctn id=\"box0-gpu0-nvlink\" direction=\"UP\"/>"
                        "<link_ctn id=\"box0-gpu1-nvlink\" direction=\"DOWN\"/><link_ctn id=\"box0-gpu1-nic\" "
                        "direction=\"UP\"/><link_ctn id=\"box1-gpu1-nic\" direction=\"DOWN\"/></route>"));
  EXPECT_TRUE(has(rail, "<host id=\"box1-gpu3\" speed=\"495Tf\">"));
  EXPECT_TRUE(has(rail, "<link id=\"box0-gpu0-nic\" bandwidth=\"25GBps\" latency=\"2us\""));
  EXPECT_TRUE(has(rail, "<link id=\"box0-gpu0-nvlink\" bandwidth=\"450GBps\""));

  const std::string tree = generate("--boxes 2 --gpus 8 --gpu MI300X --fabric nvlink-mesh --oversubscription 2", "t.xml");
  EXPECT_TRUE(has(tree, "<link id=\"box0-gpu0-1-nvlink\" bandwidth=\"64GBps\""));  // 448 / 7 peers
  EXPECT_TRUE(has(tree, "<link id=\"box1-uplink\" bandwidth=\"50GBps\""));          // 8 x 12.5 / 2
  EXPECT_TRUE(has(tree, "<prop id=\"memory\" value=\"192GB\"/>"));

  const std::string eth = generate("--boxes 3 --gpus 2 --gpu H200 --fabric pcie --network ethernet --nic 25Gbps", "e.xml");
  EXPECT_TRUE(has(eth, "<route src=\"box0-gpu1\" dst=\"box2-gpu0\"><link_ctn id=\"box0-nic\" direction=\"UP\"/>"
                       "<link_ctn id=\"core\" direction=\"UP\"/><link_ctn id=\"box2-nic\" direction=\"DOWN\"/></route>"));
  EXPECT_TRUE(has(eth, "<link id=\"box0-gpu0-pcie\" bandwidth=\"50GBps\""));
  EXPECT_TRUE(has(eth, "<link id=\"core\" bandwidth=\"9.375GBps\""));  // 3 boxes x 3.125 GB/s

  for (const char* name : {"rail.xml", "t.xml", "e.xml"}) {
    const CliResult r = run_pipesim("run " + temp_path(name) + " " + kRoot + "workloads/examples/gpt2-xl.yaml");
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  }
  EXPECT_EQ(generate("--gpus 0", "bad.xml"), "");  // refused
}

}  // namespace
}  // namespace pipesim
