// scripts/make_platform.py cluster: the generated topologies, as SimGrid
// XML that pipesim runs.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

// The platform written by `make_platform.py cluster ARGS`, or "" on failure.
std::string generate(const std::string& args, const std::string& name) {
  const std::string out = temp_path(name);
  const std::string command =
      "python3 " + kRoot + "scripts/make_platform.py cluster " + args + " -o " + out + " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0 ? read_text(out) : "";
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

TEST(MakePlatformCluster, RailFatTreeEthernetAndMeshRoutes) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string rail = generate("--boxes 2 --gpus 4 --gpu H100 --network rail --nic 200Gbps", "rail.xml");
  // Another rail: over the box's NVSwitch to the GPU on the peer's rail first
  // (PXN), whichever way: two one-way routes.
  EXPECT_TRUE(
      has(rail,
          "<route src=\"box0-gpu0\" dst=\"box1-gpu1\" symmetrical=\"NO\"><link_ctn id=\"box0-gpu0-nvlink\" "
          "direction=\"UP\"/><link_ctn id=\"box0-gpu1-nvlink\" direction=\"DOWN\"/><link_ctn "
          "id=\"box0-gpu1-nic\" direction=\"UP\"/><link_ctn id=\"box1-gpu1-nic\" direction=\"DOWN\"/></route>"));
  EXPECT_TRUE(
      has(rail,
          "<route src=\"box1-gpu1\" dst=\"box0-gpu0\" symmetrical=\"NO\"><link_ctn id=\"box1-gpu1-nvlink\" "
          "direction=\"UP\"/><link_ctn id=\"box1-gpu0-nvlink\" direction=\"DOWN\"/><link_ctn "
          "id=\"box1-gpu0-nic\" direction=\"UP\"/><link_ctn id=\"box0-gpu0-nic\" direction=\"DOWN\"/></route>"));
  // One rail: one symmetrical route.
  EXPECT_TRUE(has(rail,
                  "<route src=\"box0-gpu2\" dst=\"box1-gpu2\"><link_ctn id=\"box0-gpu2-nic\" direction=\"UP\"/>"
                  "<link_ctn id=\"box1-gpu2-nic\" direction=\"DOWN\"/></route>"));
  EXPECT_TRUE(has(rail, "<host id=\"box1-gpu3\" speed=\"495Tf\">"));
  EXPECT_TRUE(has(rail, "<link id=\"box0-gpu0-nic\" bandwidth=\"25GBps\" latency=\"2us\""));
  EXPECT_TRUE(has(rail, "<link id=\"box0-gpu0-nvlink\" bandwidth=\"450GBps\""));

  const std::string tree =
      generate("--boxes 2 --gpus 8 --gpu MI300X --fabric nvlink-mesh --oversubscription 2", "t.xml");
  EXPECT_TRUE(has(tree, "<link id=\"box0-gpu0-1-nvlink\" bandwidth=\"64GBps\""));  // 448 / 7 peers
  EXPECT_TRUE(has(tree, "<link id=\"box1-uplink\" bandwidth=\"50GBps\""));         // 8 x 12.5 / 2
  EXPECT_TRUE(has(tree, "<prop id=\"memory\" value=\"192GB\"/>"));

  const std::string eth =
      generate("--boxes 3 --gpus 2 --gpu H200 --fabric pcie --network ethernet --nic 25Gbps", "e.xml");
  EXPECT_TRUE(has(eth,
                  "<route src=\"box0-gpu1\" dst=\"box2-gpu0\"><link_ctn id=\"box0-nic\" direction=\"UP\"/>"
                  "<link_ctn id=\"core\" direction=\"UP\"/><link_ctn id=\"box2-nic\" direction=\"DOWN\"/></route>"));
  EXPECT_TRUE(has(eth, "<link id=\"box0-gpu0-pcie\" bandwidth=\"50GBps\""));
  EXPECT_TRUE(has(eth, "<link id=\"core\" bandwidth=\"9.375GBps\""));  // 3 boxes x 3.125 GB/s

  for (const char* name : {"rail.xml", "t.xml", "e.xml"}) {
    const CliResult r = run_pipesim("run " + temp_path(name) + " " + kRoot + "workloads/examples/gpt2-xl-layers.yaml");
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  }
  EXPECT_EQ(generate("--gpus 0", "bad.xml"), "");  // refused
}

// The devices of a `pipesim run --json` file and the bytes its links carried (each hop counts).
struct RunTotals {
  std::size_t devices = 0, links_used = 0;
  double link_bytes = 0;
};
RunTotals totals(const std::string& json) {
  const nlohmann::json tree = read_json(json);
  RunTotals t;
  t.devices = tree.at("devices").size();
  for (const nlohmann::json& link : tree.at("links")) {
    const double bytes = link.at("bytes").get<double>();
    t.link_bytes += bytes;
    if (bytes > 0) ++t.links_used;
  }
  return t;
}

TEST(MakePlatformCluster, TorusAndDragonflyAreSimGridClustersOfOneGpuNodes) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string torus = generate("--network torus --torus-dims 2,2,2", "torus.xml");
  EXPECT_TRUE(has(torus,
                  "<cluster id=\"torus\" topology=\"TORUS\" topo_parameters=\"2,2,2\" prefix=\"gpu\" "
                  "radical=\"0-7\" suffix=\"\" speed=\"156Tf\" bw=\"12.5GBps\" lat=\"2us\">\n"
                  "    <prop id=\"memory\" value=\"80GiB\"/>\n  </cluster>"));
  const std::string dragonfly =
      generate("--network dragonfly --dragonfly '2,1;2,1;2,1;2' --gpu H100 --nic 200Gbps", "dragonfly.xml");
  EXPECT_TRUE(has(dragonfly,
                  "topology=\"DRAGONFLY\" topo_parameters=\"2,1;2,1;2,1;2\" prefix=\"gpu\" "
                  "radical=\"0-15\" suffix=\"\" speed=\"495Tf\" bw=\"25GBps\""));

  // tiny.yaml: 4 stages on gpu0..gpu3, 8 micro-batches of 16 MiB each way over 3 stage boundaries:
  // 6 x 128 MiB sent. The links carry more: some transfers cross several links.
  const double sent = 6 * 128.0 * 1024 * 1024;
  const std::string json = temp_path("direct.json");
  const CliResult t =
      run_pipesim("run " + temp_path("torus.xml") + " " + kRoot + "workloads/examples/tiny.yaml --json " + json);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const RunTotals on_torus = totals(json);
  EXPECT_EQ(on_torus.devices, 8u);
  EXPECT_EQ(on_torus.link_bytes, sent / 6 * 8);  // gpu1 and gpu2 differ in 2 coordinates: 2 hops each way
  EXPECT_EQ(on_torus.links_used, 6u);
  const CliResult d =
      run_pipesim("run " + temp_path("dragonfly.xml") + " " + kRoot + "workloads/examples/tiny.yaml --json " + json);
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const RunTotals on_dragonfly = totals(json);
  EXPECT_EQ(on_dragonfly.devices, 16u);
  // node - router - node within a router (2 links), node - router - router - node across routers (3).
  EXPECT_EQ(on_dragonfly.link_bytes, sent / 6 * 14);
  EXPECT_EQ(on_dragonfly.links_used, 10u);

  // Refused: no shape, a box of several GPUs per node, a malformed shape.
  EXPECT_EQ(generate("--network torus", "bad.xml"), "");
  EXPECT_EQ(generate("--network torus --torus-dims 2,2 --gpus 8", "bad.xml"), "");
  EXPECT_EQ(generate("--network dragonfly --dragonfly '2,1;2'", "bad.xml"), "");
  EXPECT_EQ(generate("--gpus 4 --torus-dims 2,2", "bad.xml"), "");
}

// Pipesim's error contract (README, exit status): one line, exit 2, nothing written; sizes
// refused with the figure before anything is built.
TEST(MakePlatformCluster, BadOutputsAndSizesAreOneLineErrorsAndWriteNothing) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  namespace fs = std::filesystem;
  const std::string dir = temp_path("make-platform-errors");
  fs::remove_all(dir);
  fs::create_directories(dir + "/sub");
  fs::create_symlink("loop-b", dir + "/loop-a");
  fs::create_symlink("loop-a", dir + "/loop-b");
  const std::string err = temp_path("make-platform.err");
  auto refused = [&](const std::string& args, const std::string& message) {
    const int status =
        std::system(("python3 " + kRoot + "scripts/make_platform.py " + args + " >/dev/null 2>" + err).c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << args;
    EXPECT_EQ(read_text(err), "make_platform.py" + message + "\n") << args;
  };
  refused("cluster --gpus 2 -o " + dir + "/sub", ": error: " + dir + "/sub: --output: is a directory");
  refused("cluster --gpus 2 -o " + dir + "/loop-a",
          ": error: " + dir + "/loop-a: --output: cannot open: Too many levels of symbolic links");
  refused("cluster --gpus 2 -o " + dir + "/no/such/dir.xml",
          ": error: " + dir + "/no/such/dir.xml: --output: cannot create a temporary file in '" + dir +
              "/no/such': No such file or directory");
  refused("--mobile pi -o /dev/full", ": error: /dev/full: --output: write error: No space left on device");
  refused("cluster --gpus 2 --nic nanGbps -o " + dir + "/nan.xml",
          " cluster: error: argument --nic: expected a positive finite rate like 100Gbps or 12.5GBps, got 'nanGbps'");
  refused("cluster --gpus 2 --oversubscription inf -o " + dir + "/inf.xml",
          " cluster: error: argument --oversubscription: expected a finite number, got 'inf'");
  // The 332 MB platform, and boxes enough to run out of memory building it.
  refused("cluster --network ethernet --boxes 2 --gpus 1000 -o " + dir + "/big.xml",
          " cluster: error: --boxes 2 --gpus 1000: about 317 MiB of XML (2,000 GPUs, 1,999,000 routes written out); "
          "pipesim reads "
          "platforms of at most 64 MiB (fewer GPUs, or --network torus or dragonfly)");
  refused("cluster --boxes 100000000 --gpus 8 -o " + dir + "/big.xml",
          " cluster: error: --boxes 100000000 --gpus 8: about 79,345,703,005,810 MiB of XML (800,000,000 GPUs, "
          "319,999,999,600,000,000 routes written out); pipesim reads platforms of at most 64 MiB (fewer GPUs, or "
          "--network torus or dragonfly)");
  refused("cluster --network torus --torus-dims 1000,1000,2 -o " + dir + "/big.xml",
          " cluster: error: --network torus: 2,000,000 GPUs; at most 1,000,000 (pipesim counts about 15 GiB to "
          "simulate a million-node 3-D torus)");
  // Nothing was written: no output, no temporary left beside one.
  std::vector<std::string> left;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"loop-a", "loop-b", "sub"}));
  // Through a symbolic link: the file it names is replaced, the link kept.
  fs::create_symlink("target.xml", dir + "/link.xml");
  ASSERT_EQ(
      std::system(("python3 " + kRoot + "scripts/make_platform.py cluster --gpus 2 -o " + dir + "/link.xml").c_str()),
      0);
  EXPECT_TRUE(fs::is_symlink(dir + "/link.xml"));
  EXPECT_TRUE(has(read_text(dir + "/target.xml"), "<host id=\"gpu1\""));
}

}  // namespace
}  // namespace pipesim
