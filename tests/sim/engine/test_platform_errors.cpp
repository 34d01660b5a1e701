// Platforms and --cfg values that SimGrid 3.32 aborts or segfaults on: each
// must end with exit code 2 and exactly one error line naming the file at
// fault (the platform, or --cfg), never a signal; valid ones keep running.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/engine/simgrid_guard.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kTiny = kRoot + "workloads/examples/tiny.yaml";
const std::string kOneDevice =
    "microbatches: 2\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB, weights: 1MiB, repeat: 2}\n"
    "schedule: 1f1b\nplacement:\n  - {layers: 0-1, host: gpu0}\n";

// platforms/nvswitch-4gpu.xml with the first `from` replaced by `to`. In that
// file gpu0 is on line 6 (its memory on 7), gpu1 on 9, the links on 19-22
// and the routes on 23-26.
std::string nvswitch_with(const std::string& name, const std::string& from, const std::string& to) {
  std::string xml = read_text(kRoot + "platforms/nvswitch-4gpu.xml");
  const size_t at = xml.find(from);
  if (at == std::string::npos)
    ADD_FAILURE() << "not in the platform: " << from;
  else
    xml.replace(at, from.size(), to);
  return write_file(name + ".xml", xml);
}

// Runs pipesim with --json and checks the error contract: exit 2, nothing on
// stdout, one stderr line equal to `expected`, no output file.
void expect_one_error_line(const std::string& args, const std::string& expected) {
  const std::string json = temp_path("platform-error.json");
  const CliResult r = run_pipesim(args + " --json " + json);
  EXPECT_EQ(r.exit_code, 2) << r.err;  // a signal would give 128 + its number
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, expected + "\n");
  EXPECT_FALSE(std::filesystem::exists(json));
}

// A run's JSON report (after checking it ran cleanly: exit 0, nothing on stderr).
nlohmann::json run_report(const std::string& args, const std::string& name) {
  const std::string json = temp_path(name + ".json");
  const CliResult r = run_pipesim(args + " --quiet --json " + json);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  if (!std::filesystem::exists(json)) return nlohmann::json::object();
  return nlohmann::json::parse(read_text(json));
}

// Each link's bytes, by name: where the transfers went.
std::map<std::string, double> link_bytes(const nlohmann::json& report) {
  std::map<std::string, double> bytes;
  for (const auto& link : report.value("links", nlohmann::json::array()))
    if (link["bytes"].get<double>() > 0) bytes[link["name"].get<std::string>()] = link["bytes"].get<double>();
  return bytes;
}

struct PlatformMutation {
  const char* name;
  std::string from, to;
  std::string message;  // after "pipesim: error: FILE: "
};

class BadPlatform : public ::testing::TestWithParam<PlatformMutation> {};

TEST_P(BadPlatform, OneErrorLineNamingThePlatform) {
  const PlatformMutation& m = GetParam();
  const std::string platform = nvswitch_with(m.name, m.from, m.to);
  expect_one_error_line("run " + platform + " " + kTiny, "pipesim: error: " + platform + ": " + m.message);
}

const std::string kLink0 = "link 'gpu0-nvlink'";
const std::string kBandwidth = "line 23: " + kLink0 + ": bandwidth: ";
const std::string kSpeed = "line 6: host 'gpu0': speed: expected a positive finite speed like '156Tf', got ";
const std::string kLatency = "line 23: " + kLink0 + ": latency: expected a finite latency >= 0 like '1us', got ";

INSTANTIATE_TEST_SUITE_P(
    Platform, BadPlatform,
    ::testing::Values(
        // SimGrid aborted on these.
        PlatformMutation{"duplicate_link", "<link id=\"gpu1-nvlink\"", "<link id=\"gpu0-nvlink\"",
                         "line 24: " + kLink0 + ": id: a link named 'gpu0-nvlink' is already declared at line 23"},
        PlatformMutation{"duplicate_route", "<route src=\"gpu1\"", "<route src=\"gpu0\"",
                         "line 28: route gpu0 -> nvswitch: src and dst: duplicate of the route declared at line 27 "
                         "(routes are symmetrical unless symmetrical=\"NO\")"},
        PlatformMutation{
            "reverse_of_a_symmetrical_route", "  </zone>",
            "<route src=\"nvswitch\" dst=\"gpu0\"><link_ctn id=\"gpu0-nvlink\" direction=\"DOWN\"/></route>"
            "\n  </zone>",
            "line 31: route nvswitch -> gpu0: src and dst: duplicate of the route declared at line 27 "
            "(routes are symmetrical unless symmetrical=\"NO\")"},
        PlatformMutation{"route_from_a_router_to_itself", "<route src=\"gpu3\"", "<route src=\"nvswitch\"",
                         "line 30: route nvswitch -> nvswitch: dst: a route from 'nvswitch' to itself is not allowed"},
        PlatformMutation{"bandwidth_nan", "bandwidth=\"300GBps\"", "bandwidth=\"nan\"",
                         kBandwidth + "expected a positive finite bandwidth like '25GBps', got 'nan'"},
        PlatformMutation{"bandwidth_inf", "bandwidth=\"300GBps\"", "bandwidth=\"inf\"",
                         kBandwidth + "expected a positive finite bandwidth like '25GBps', got 'inf'"},
        PlatformMutation{"bandwidth_1e308", "bandwidth=\"300GBps\"", "bandwidth=\"1e308\"",
                         kBandwidth + "expected at most 1e100Bps, got '1e308'"},
        PlatformMutation{"zero_cores", "<host id=\"gpu0\" speed=\"156Tf\"",
                         "<host id=\"gpu0\" speed=\"156Tf\" core=\"0\"",
                         "line 6: host 'gpu0': core: expected a whole number of cores from 1 to 2147483647, got '0'"},
        PlatformMutation{"unknown_routing", "routing=\"Floyd\"", "routing=\"Bogus\"",
                         "line 5: zone 'box': routing: expected one of Cluster, Dijkstra, DijkstraCache, Floyd, Full, "
                         "None, Vivaldi, Wifi, got 'Bogus'"},
        // SimGrid accepted these, and the run made no sense or blamed the workload.
        PlatformMutation{"bandwidth_negative", "bandwidth=\"300GBps\"", "bandwidth=\"-1GBps\"",
                         kBandwidth + "expected a positive finite bandwidth like '25GBps', got '-1GBps'"},
        PlatformMutation{
            "bandwidth_unknown_unit", "bandwidth=\"300GBps\"", "bandwidth=\"25GBPS\"",
            kBandwidth + "expected a positive finite bandwidth like '25GBps', got '25GBPS' (unknown unit: GBPS)"},
        PlatformMutation{"latency_nan", "latency=\"1us\"", "latency=\"nan\"", kLatency + "'nan'"},
        PlatformMutation{"latency_negative", "latency=\"1us\"", "latency=\"-1us\"", kLatency + "'-1us'"},
        PlatformMutation{"speed_nan", "speed=\"156Tf\"", "speed=\"nan\"", kSpeed + "'nan'"},
        PlatformMutation{"speed_inf", "speed=\"156Tf\"", "speed=\"inf\"", kSpeed + "'inf'"},
        PlatformMutation{"speed_zero", "speed=\"156Tf\"", "speed=\"0f\"", kSpeed + "'0f'"},
        PlatformMutation{"speed_negative", "speed=\"156Tf\"", "speed=\"-1Gf\"", kSpeed + "'-1Gf'"},
        PlatformMutation{"duplicate_host", "<host id=\"gpu1\"", "<host id=\"gpu0\"",
                         "line 10: host 'gpu0': id: a host or router named 'gpu0' is already declared at line 6"},
        PlatformMutation{"link_ctn_to_an_unknown_link", "<link_ctn id=\"gpu3-nvlink\"", "<link_ctn id=\"nvlink9\"",
                         "line 30: link_ctn: id: unknown link 'nvlink9' (declare it before the route)"},
        PlatformMutation{"route_to_an_unknown_node", "dst=\"nvswitch\"><link_ctn id=\"gpu3",
                         "dst=\"nvswitch2\"><link_ctn id=\"gpu3",
                         "line 30: route gpu3 -> nvswitch2: dst: unknown host or router 'nvswitch2' (declare it "
                         "before the route)"},
        PlatformMutation{"missing_bandwidth", " bandwidth=\"300GBps\"", "", kBandwidth + "missing (required)"},
        PlatformMutation{"missing_host_id", "<host id=\"gpu0\"", "<host", "line 6: host: id: missing (required)"},
        PlatformMutation{
            "memory_not_a_size", "value=\"80GiB\"", "value=\"lots\"",
            "line 7: host 'gpu0' property memory: expected a byte size like '16MiB' or '1.5GB', got 'lots'"},
        PlatformMutation{
            "memory_nan", "value=\"80GiB\"", "value=\"nan\"",
            "line 7: host 'gpu0' property memory: expected a byte size like '16MiB' or '1.5GB', got 'nan'"}),
    [](const auto& info) { return std::string(info.param.name); });

struct BadSetting {
  const char* name;
  std::string setting;
  std::string message;  // after "pipesim: error: --cfg: SETTING: "
};

class BadCfg : public ::testing::TestWithParam<BadSetting> {};

TEST_P(BadCfg, OneErrorLineNamingCfg) {
  const BadSetting& b = GetParam();
  expect_one_error_line("run " + kRoot + "platforms/nvswitch-4gpu.xml " + kTiny + " --cfg " + b.setting,
                        "pipesim: error: --cfg: " + b.setting + ": " + b.message);
}

const std::string kPrecision = "expected a number in (0, 1e-3]";

INSTANTIATE_TEST_SUITE_P(
    Cfg, BadCfg,
    ::testing::Values(
        BadSetting{"bandwidth_factor_zero", "network/bandwidth-factor:0", "expected a positive finite number"},
        BadSetting{"bandwidth_factor_nan", "network/bandwidth-factor:nan", "expected a positive finite number"},
        BadSetting{"latency_factor_negative", "network/latency-factor:-1", "expected a positive finite number"},
        BadSetting{"maxmin_precision_nan", "maxmin/precision:nan", kPrecision},
        BadSetting{"maxmin_precision_negative", "maxmin/precision:-1", kPrecision},
        BadSetting{"maxmin_precision_large", "maxmin/precision:10", kPrecision},
        BadSetting{"maxmin_precision_denormal", "maxmin/precision:1e-320", kPrecision},  // SimGrid: "out of range"
        BadSetting{"bandwidth_factor_denormal", "network/bandwidth-factor:1e-320", "expected a positive finite number"},
        BadSetting{"surf_precision_zero", "surf/precision:0", kPrecision},  // SimGrid loops forever
        BadSetting{"cpu_optim", "cpu/optim:Bogus", "expected one of TI, Lazy, Full"},
        BadSetting{"network_optim", "network/optim:Bogus", "expected one of Lazy, Full"},
        BadSetting{"network_model", "network/model:Bogus", "expected one of CM02, LV08, IB, SMPI, Constant"},
        BadSetting{"tcp_gamma_negative", "network/TCP-gamma:-5",
                   "expected a finite number >= 0 (bytes; 0 removes the cap)"},
        BadSetting{"crosstraffic", "network/crosstraffic:2", "expected one of 0, 1, yes, no, on, off, true, false"},
        BadSetting{"contexts_factory", "contexts/factory:bogus",
                   "unsupported setting 'contexts/factory' (supported: network/model, network/optim, cpu/optim, "
                   "host/model, network/crosstraffic, network/TCP-gamma, network/bandwidth-factor, "
                   "network/latency-factor, network/weight-S, maxmin/precision, surf/precision)"},
        BadSetting{"unknown_key", "foo:bar",
                   "unsupported setting 'foo' (supported: network/model, network/optim, cpu/optim, host/model, "
                   "network/crosstraffic, network/TCP-gamma, network/bandwidth-factor, network/latency-factor, "
                   "network/weight-S, maxmin/precision, surf/precision)"},
        BadSetting{"no_colon", "foo", "expected a SimGrid setting KEY:VALUE such as network/model:LV08"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(PlatformErrors, ConstantModelNeedsAPlatformWithoutLinks) {
  const std::string platform = kRoot + "platforms/nvswitch-4gpu.xml";
  expect_one_error_line("run " + platform + " " + kTiny + " --cfg network/model:Constant",
                        "pipesim: error: --cfg: network/model:Constant: needs a platform without links, but " +
                            platform +
                            " declares link 'gpu0-nvlink' at line 23 (SimGrid's Constant model has no links)");
}

const std::string kTwoHostsNoLink =
    "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"ROUTING\">\n"
    "    <host id=\"gpu0\" speed=\"1Tf\"><prop id=\"memory\" value=\"80GiB\"/></host>\n"
    "    <host id=\"gpu1\" speed=\"1Tf\"><prop id=\"memory\" value=\"80GiB\"/></host>\nLINKS  </zone>\n</platform>\n";

std::string two_hosts(const std::string& name, const std::string& routing, const std::string& links = "") {
  std::string xml = kTwoHostsNoLink;
  xml.replace(xml.find("ROUTING"), 7, routing);
  xml.replace(xml.find("LINKS"), 5, links);
  return write_file(name + ".xml", xml);
}

// One device runs 2 micro-batches of 2 layers of 1 ms + 2 ms back to back: 12 ms.
TEST(PlatformErrors, ConstantModelRunsOnAPlatformWithoutLinks) {
  const nlohmann::json report = run_report("run " + two_hosts("constant", "Full") + " " +
                                               write_file("one.yaml", kOneDevice) + " --cfg network/model:Constant",
                                           "constant");
  EXPECT_TRUE(report.value("completed", false));
  EXPECT_NEAR(report.value("makespan", 0.0), 12e-3, 1e-12);
}

// What validation lets through and SimGrid still aborts on is contained.
TEST(SimGridContainment, AbortWhileLoadingBecomesOneLine) {
  const std::string platform = two_hosts("wifi", "Wifi",
                                         "<link id=\"a\" bandwidth=\"1GBps\" latency=\"0s\"/>\n"
                                         "<link id=\"b\" bandwidth=\"1GBps\" latency=\"0s\"/>\n");
  expect_one_error_line("run " + platform + " " + write_file("one.yaml", kOneDevice),
                        "pipesim: error: " + platform +
                            ": SimGrid rejected the platform: WIFI netzone z contains more than one link. Please only "
                            "declare one, the wifi link.");
}

TEST(SimGridContainment, AbortWhileRoutingBecomesOneLine) {
  const std::string platform = two_hosts("empty-zone", "None");
  expect_one_error_line("run " + platform + " " + kTiny,
                        "pipesim: error: " + platform +
                            ": SimGrid rejected the platform: There can't be route in an "
                            "Empty zone");
}

TEST(SimGridContainmentDeathTest, SegfaultPrintsSimGridsCriticalMessage) {
  EXPECT_EXIT(
      {
        SimGridGuard guard("p.xml");
        std::fprintf(stderr, "[0.000000] ./src/x.cpp:9: [root/CRITICAL] The Impossible Did Happen\nBacktrace:\n");
        std::raise(SIGSEGV);
      },
      ::testing::ExitedWithCode(2),
      "^pipesim: error: p\\.xml: SimGrid rejected the platform: The Impossible Did Happen\n$");
}

TEST(SimGridContainmentDeathTest, AbortWithoutMessageNamesTheSignal) {
  EXPECT_EXIT(
      {
        SimGridGuard guard("p.xml");
        std::abort();
      },
      ::testing::ExitedWithCode(2),
      "^pipesim: error: p\\.xml: SimGrid rejected the platform: it aborted \\(SIGABRT\\)\n$");
}

TEST(SimGridContainment, GuardRestoresStderrAndHandlers) {
  struct sigaction before {};  // SIG_DFL, or a sanitizer's own handler
  sigaction(SIGSEGV, nullptr, &before);
  { SimGridGuard guard("p.xml"); }
  struct sigaction current {};
  sigaction(SIGSEGV, nullptr, &current);
  EXPECT_EQ(current.sa_handler, before.sa_handler);
  ::testing::internal::CaptureStderr();
  std::fprintf(stderr, "visible\n");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "visible\n");
}

// A layer of 1e300 s is inf flops on a 156 Tf device: SimGrid ran past the
// Exec and crashed at exit (exit 139).
// A cost whose flops overflow (1e300 s on a 156 Tf device) used to crash
// SimGrid at exit; the workload loader now refuses it, naming the field
// (the engine also refuses non-finite amounts: EngineAmounts tests).
TEST(PlatformErrors, InfiniteComputeIsAnErrorNotACrash) {
  std::string workload = read_text(kTiny);
  workload.replace(workload.find("forward: 1ms"), 12, "forward: 1e300s");
  workload.replace(workload.find("schedule: 1f1b"), 14, "schedule: pipedream");
  const std::string file = write_file("huge.yaml", workload);
  expect_one_error_line("run " + kRoot + "platforms/nvswitch-4gpu.xml " + file,
                        "pipesim: error: " + file +
                            ": line 8: layers[0].forward: expected a cost of at most 1e100 s "
                            "or 1e100 flops (larger ones overflow the simulated times), got '1e300s'");
}

TEST(PlatformErrors, HugeButFiniteComputeRuns) {
  std::string workload = read_text(kTiny);
  workload.replace(workload.find("forward: 1ms"), 12, "forward: 1e90s");
  workload.replace(workload.find("schedule: 1f1b"), 14, "schedule: pipedream");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " + write_file("big.yaml", workload));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("verdict               VALID"), std::string::npos) << r.out;
}

// Valid inputs keep running.
TEST(ValidPlatforms, EveryShippedPlatformRuns) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRoot + "platforms")) {
    if (entry.path().extension() != ".xml" && entry.path().extension() != ".yaml") continue;
    ++count;
    SCOPED_TRACE(entry.path().string());
    const nlohmann::json report = run_report("run " + entry.path().string() + " " + kTiny, "shipped");
    EXPECT_TRUE(report.value("completed", false));
    EXPECT_TRUE(report.value("valid", false));
    // Every one of tiny's 8 micro-batches ran its forward and backward on every stage.
    int tasks = 0, stages = 0;
    double busiest = 0;
    for (const auto& device : report.value("devices", nlohmann::json::array())) {
      tasks += device["tasks"].get<int>();
      stages += device["tasks"].get<int>() > 0;
      busiest = std::max(busiest, device["busy_time"].get<double>());
    }
    EXPECT_GT(stages, 0);
    EXPECT_EQ(tasks, 2 * 8 * stages);
    EXPECT_GE(report.value("makespan", 0.0), busiest);
  }
  EXPECT_EQ(count, 25);  // with the two clusters of docs/whatif.md, the two single GPUs, twelve cluster descriptions
}

TEST(ValidPlatforms, MultiCoreHostsRunByDefault) {
  const std::string platform =
      nvswitch_with("cores", "<host id=\"gpu0\" speed=\"156Tf\"", "<host id=\"gpu0\" speed=\"156Tf\" core=\"4\"");
  // Each task uses one core at the host's speed per core: the same times as one core.
  const nlohmann::json cores = run_report("run " + platform + " " + kTiny, "cores");
  const nlohmann::json one = run_report("run " + kRoot + "platforms/nvswitch-4gpu.xml " + kTiny, "one-core");
  EXPECT_TRUE(cores.value("completed", false));
  EXPECT_GT(cores.value("makespan", 0.0), 0);
  EXPECT_NEAR(cores.value("makespan", 0.0), one.value("makespan", -1.0), 1e-12);
}

// cpu/optim:TI, when asked for, handles one core per host: SimGrid would abort.
TEST(PlatformUnderTi, MultiCoreHostGivesOneErrorLine) {
  const std::string platform = nvswitch_with("huge_core_count", "<host id=\"gpu0\" speed=\"156Tf\"",
                                             "<host id=\"gpu0\" speed=\"156Tf\" core=\"1000000000\"");
  expect_one_error_line("run " + platform + " " + kTiny + " --cfg cpu/optim:TI",
                        "pipesim: error: " + platform +
                            ": line 6: host 'gpu0': core: 1000000000 cores need cpu/optim:Lazy (pipesim's default) or "
                            "Full: --cfg cpu/optim:TI handles one core per host");
}

TEST(ValidPlatforms, OneWayRoutesInBothDirections) {
  const std::string platform = nvswitch_with(
      "one-way", "<route src=\"gpu0\" dst=\"nvswitch\"><link_ctn id=\"gpu0-nvlink\" direction=\"UP\"/></route>",
      "<route src=\"gpu0\" dst=\"nvswitch\" symmetrical=\"NO\"><link_ctn id=\"gpu0-nvlink\" direction=\"UP\"/></route>"
      "<route src=\"nvswitch\" dst=\"gpu0\" symmetrical=\"NO\"><link_ctn id=\"gpu0-nvlink\" "
      "direction=\"DOWN\"/></route>");
  // The same routes written one way each: the same run, on the same link directions.
  const nlohmann::json one_way = run_report("run " + platform + " " + kTiny, "one-way");
  const nlohmann::json both = run_report("run " + kRoot + "platforms/nvswitch-4gpu.xml " + kTiny, "both-ways");
  EXPECT_TRUE(one_way.value("completed", false));
  EXPECT_GT(one_way.value("makespan", 0.0), 0);
  EXPECT_NEAR(one_way.value("makespan", 0.0), both.value("makespan", -1.0), 1e-12);
  EXPECT_FALSE(link_bytes(one_way).empty());
  EXPECT_EQ(link_bytes(one_way), link_bytes(both));
}

// The fat tree of docs/platform-format.md: SimGrid names the cluster's hosts and links.
TEST(ValidPlatforms, ClusterFromTheDocsRuns) {
  const std::string platform = write_file(
      "fat-tree.xml",
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform "
      "version=\"4.1\">\n"
      "  <cluster id=\"ft\" prefix=\"gpu\" suffix=\"\" radical=\"0-7\" speed=\"156Tf\" bw=\"25GBps\" lat=\"1us\"\n"
      "           topology=\"FAT_TREE\" topo_parameters=\"2;4,2;1,2;1,2\">\n"
      "    <prop id=\"memory\" value=\"80GiB\"/>\n  </cluster>\n</platform>\n");
  const nlohmann::json report = run_report("run " + platform + " " + kTiny, "fat-tree");
  EXPECT_TRUE(report.value("completed", false));
  // tiny's 4 stages land on gpu0..gpu3; its 16 MiB activations and gradients
  // cross the leaf links SimGrid named (8 each way on the ends, 16 inside).
  const double mib = 1024 * 1024;
  const std::map<std::string, double> expected = {
      {"link_from_0_15_0_UP", 128 * mib},   {"link_from_0_15_0_DOWN", 128 * mib}, {"link_from_1_15_1_UP", 256 * mib},
      {"link_from_1_15_1_DOWN", 256 * mib}, {"link_from_2_15_2_UP", 256 * mib},   {"link_from_2_15_2_DOWN", 256 * mib},
      {"link_from_3_15_3_UP", 128 * mib},   {"link_from_3_15_3_DOWN", 128 * mib}};
  EXPECT_EQ(link_bytes(report), expected);
  // A leaf link carries at most its 25 GBps.
  for (const auto& link : report.value("links", nlohmann::json::array()))
    EXPECT_GE(link["busy_time"].get<double>(), link["bytes"].get<double>() / 25e9 * (1 - 1e-9)) << link["name"];
}

}  // namespace
}  // namespace pipesim
