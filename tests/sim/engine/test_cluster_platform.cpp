// Cluster descriptions (docs/platform-format.md, "Cluster descriptions"):
// the platform pipesim builds from a few lines of YAML is the one
// make_platform.py's XML declares, device for device and route for route;
// bad descriptions are one error line.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "sim/engine/cluster_description.hpp"
#include "sim/engine/cluster_zone.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "studies/forked_run.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

// Everything generators and the engine read of a platform: devices, links,
// and the route of every ordered pair of devices (of every STRIDE-th device).
std::string dump(const std::string& file, int stride = 1) {
  return run_forked([&] {
    Simulation simulation(file);
    const Platform& p = simulation.platform();
    std::string out;
    for (const Device& d : p.devices)
      out += d.name + " " + number(d.speed) + " " + number(d.memory) + " " + d.kind + " " + d.type + " " + d.node +
             " " + std::to_string(d.resources.size()) + "\n";
    for (const NetworkLink& l : p.links)
      out += l.name + " " + number(l.bandwidth) + " " + number(l.latency) + " " +
             std::to_string(static_cast<int>(l.sharing)) + "\n";
    for (int i = 0; i < p.size(); i += stride)
      for (int j = 0; j < p.size(); j += stride) {
        if (i == j) continue;
        const Path& path = p.path(i, j);
        out += std::to_string(i) + ">" + std::to_string(j) + " " + std::to_string(path.exists) + " " +
               number(path.latency) + " " + number(path.bandwidth) + " " + std::to_string(path.hops) + ":";
        for (int l : path.links) out += " " + p.links[l].name;
        out += "\n";
      }
    return out;
  });
}

// make_platform.py cluster ARGS -o NAME: the file's path, or "" when it refused.
std::string generate(const std::string& args, const std::string& name) {
  const std::string out = temp_path(name);
  const std::string command =
      "python3 " + kRoot + "scripts/make_platform.py cluster " + args + " -o " + out + " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0 ? out : "";
}

TEST(ClusterPlatform, DescriptionsBuildWhatTheXmlDeclares) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  int compared = 0;
  for (const char* gpu : {"A100", "H100", "H200", "MI300X"})
    for (const char* fabric : {"nvswitch", "nvlink-mesh", "pcie"})
      for (const char* network : {"fat-tree", "rail", "ethernet"}) {
        // Every preset with every fabric and network, on 3 boxes of 3 GPUs; one box and
        // one GPU per box once each (no network links, no fabric links in use).
        std::string shape = "--boxes 3 --gpus 3";
        if (compared == 1) shape = "--boxes 1 --gpus 4";
        if (compared == 2) shape = "--boxes 3 --gpus 1";
        const std::string args = shape + " --gpu " + gpu + " --fabric " + fabric + " --network " + network +
                                 " --nic 200Gbps" + (std::string(network) == "rail" ? "" : " --oversubscription 2");
        const std::string xml = generate(args, "c.xml"), yaml = generate(args, "c.yaml");
        ASSERT_NE(xml, "") << args;
        ASSERT_NE(yaml, "") << args;
        const std::string from_xml = dump(xml), from_yaml = dump(yaml);
        EXPECT_GT(from_xml.size(), 100u) << args;
        EXPECT_EQ(from_yaml, from_xml) << args;
        // The memory estimate's counts (count_cluster) are what is built.
        EXPECT_EQ(run_forked([&] {
                    Simulation simulation(yaml);
                    const ClusterCounts c = count_cluster(parse_cluster_description(yaml, read_text(yaml)));
                    const Platform& p = simulation.platform();
                    return std::to_string(c.hosts - p.size()) + " " + std::to_string(c.links - p.links.size());
                  }),
                  "0.000000 0.000000")
            << args;
        ++compared;
      }
  EXPECT_EQ(compared, 36);
}

// The whole command: the same run on either file gives the same report, the file's name aside.
TEST(ClusterPlatform, ARunOnADescriptionReportsWhatTheXmlRunReports) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string args = "--boxes 4 --gpus 8 --network rail --nic 200Gbps";
  const std::string xml = generate(args, "r.xml"), yaml = generate(args, "r.yaml");
  ASSERT_NE(xml, "");
  ASSERT_NE(yaml, "");
  auto report = [&](const std::string& platform) {
    const std::string json = temp_path("r.json");
    const CliResult r =
        run_pipesim("run " + platform + " " + kRoot + "workloads/examples/gpt3-13b-tp8.yaml --json " + json);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string text = read_text(json);
    for (std::size_t at; (at = text.find(platform)) != std::string::npos;) text.replace(at, platform.size(), "P");
    return text;
  };
  const std::string on_xml = report(xml), on_yaml = report(yaml);
  EXPECT_NE(on_xml.find("\"iteration_time\""), std::string::npos);
  EXPECT_EQ(on_yaml, on_xml);
}

// docs/platform-format.md's example, comments and all, is the shipped 1,024-GPU description.
TEST(ClusterPlatform, TheDocumentedExampleIsTheShippedDescription) {
  const std::string doc = read_text(kRoot + "docs/platform-format.md");
  const std::size_t section = doc.find("## Cluster descriptions");
  ASSERT_NE(section, std::string::npos);
  const std::size_t open = doc.find("```yaml\n", section);
  ASSERT_NE(open, std::string::npos);
  const std::size_t begin = open + 8, end = doc.find("```", begin);
  const std::string example = temp_path("example.yaml");
  write_text(example, doc.substr(begin, end - begin));
  EXPECT_EQ(dump(example, 37), dump(kRoot + "platforms/a100-128x8-rail-200g.yaml", 37));
}

// Each mistake names its line and field, exit 2, as every input's errors do.
TEST(ClusterPlatform, BadDescriptionsAreOneErrorLine) {
  struct Case {
    std::string text, error;
  };
  const std::vector<Case> cases = {
      {"cluster:\n  boxes: 2\n", "line 2: cluster.gpus: missing required field: expected GPUs per box"},
      {"cluster:\n  gpus: 0\n", "line 2: cluster.gpus: expected a whole number of GPUs per box"},
      {"cluster:\n  gpus: 8\n  boxes: 200000\n",
       "line 2: cluster: expected at most 1000000 GPUs, got 200000 boxes of 8"},
      {"cluster:\n  gpus: 8\n  gpu: V100\n",
       "line 3: cluster.gpu: expected one of A100, H100, H200, MI300X, got 'V100'"},
      {"cluster:\n  gpus: 8\n  network: torus\n",
       "line 3: cluster.network: expected one of fat-tree, rail, ethernet, got 'torus'"},
      {"cluster:\n  gpus: 8\n  fabric: nvlink\n",
       "line 3: cluster.fabric: expected one of nvswitch, nvlink-mesh, pcie, got 'nvlink'"},
      {"cluster:\n  gpus: 8\n  nic: 100Gb\n", "line 3: cluster.nic: expected a positive finite NIC rate"},
      {"cluster:\n  gpus: 8\n  nic: -1Gbps\n", "line 3: cluster.nic: expected a positive finite NIC rate"},
      {"cluster:\n  gpus: 8\n  oversubscription: 0.5\n",
       "line 3: cluster.oversubscription: expected a downlink/uplink ratio of at least 1, got '0.5'"},
      {"cluster:\n  gpus: 8\n  network: rail\n  oversubscription: 2\n",
       "line 4: cluster.oversubscription: a rail network is non-blocking"},
      {"cluster:\n  gpus: 8\n  nics: 2\n", "line 3: cluster.nics: unknown key 'nics' (did you mean 'nic'?)"},
      {"boxes: 2\n", "line 1: boxes: unknown key 'boxes'; expected one of: cluster"},
      {"cluster: [1]\n", "line 1: cluster: expected a map like {boxes: 128, gpus: 8, network: rail}"},
      {"<platform/>\n", "line 1: document: expected a map with one key 'cluster'"},
      {"cluster: {gpus: 8\n", "YAML syntax error"},
  };
  for (const Case& c : cases) {
    const std::string file = temp_path("bad.yaml");
    write_text(file, c.text);
    const CliResult r = run_pipesim("run " + file + " " + kRoot + "workloads/examples/tiny.yaml");
    EXPECT_EQ(r.exit_code, 2) << c.text;
    EXPECT_EQ(r.err.rfind("pipesim: error: " + file + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.text << " -> " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// Large descriptions are cheap to load, and one too large for the memory
// limit is refused with the figure before anything is built.
TEST(ClusterPlatform, AThousandGpusLoadAndAMillionAreRefusedUnderALimit) {
  const std::string file = temp_path("big.yaml");
  write_text(file, "cluster:\n  boxes: 128\n  gpus: 8\n  network: rail\n  nic: 200Gbps\n");
  const std::string devices = run_forked([&] {
    Simulation simulation(file);
    const Platform& p = simulation.platform();
    return std::to_string(p.size()) + " " + p.devices.back().name + " " + std::to_string(p.links.size()) + " " +
           std::to_string(p.path(0, 1023).hops);
  });
  EXPECT_EQ(devices, "1024 box127-gpu7 4096 4");  // NVLink and NIC per GPU, both ways; PXN then the rail

  write_text(file, "cluster:\n  boxes: 125000\n  gpus: 8\n");
  const CliResult r = run_pipesim("run " + file + " " + kRoot + "workloads/examples/tiny.yaml --max-memory 1GiB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pipesim: error: " + file + ": platform: this platform needs about"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace pipesim
