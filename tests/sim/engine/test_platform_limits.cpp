// A platform goes through the checks of every input before SimGrid sees
// it: a regular file of at most 64 MiB (its profile files too), and a size
// SimGrid can build within the memory limit, so a huge or hostile file is
// an error line rather than an out-of-memory kill.
#include <sys/stat.h>
#include "tests/support/build_paths.hpp"

#include <filesystem>

#include <gtest/gtest.h>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "sim/engine/platform_size.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/input_error.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kTiny = kRoot + "workloads/examples/tiny.yaml";

// `timeout 60 pipesim ARGS`: a platform that blocks the reader fails the test instead of hanging it.
CliResult run_bounded(const std::string& args) {
  const std::string out = temp_path("limits.out"), err = temp_path("limits.err");
  const int status = std::system(
      ("timeout 60 " + std::string(PIPESIM_BINARY) + " " + args + " >" + out + " 2>" + err + " </dev/null").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
}

// Exit 2, one line naming FILE and containing FRAGMENT, no JSON written.
void expect_refused(const std::string& platform, const std::string& fragment, const std::string& extra = "") {
  const std::string json = temp_path("limits.json");
  std::filesystem::remove(json);
  const CliResult r = run_bounded("run " + platform + " " + kTiny + " --json " + json + " " + extra);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: " + platform + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(json));
}

// One device gpu0 (1 GiB) whose host element carries HOST_ATTRIBUTES; its host is on line 5.
std::string platform_with(const std::string& host_attributes) {
  return hosts_platform_xml(1, "gpu", "1Tf", "1GiB", host_attributes);
}

TEST(PlatformLimits, SpecialFilesAreRefusedBeforeSimGridReadsThem) {
  const std::string fifo = temp_path("platform.fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  expect_refused(fifo, "expected a platform file, got a FIFO");
  expect_refused("/dev/zero", "expected a platform file, got a character device");
  const std::string dir = temp_path("platform-dir");
  std::filesystem::create_directories(dir);
  expect_refused(dir, "expected a platform file, got a directory");
  // A profile SimGrid would read: the same checks, named by its attribute.
  const std::string profiled = write_file("profiled.xml", platform_with("speed_file=\"" + fifo + "\""));
  expect_refused(profiled, "line 5: host 'gpu0': speed_file: " + fifo + ": expected a profile file, got a FIFO");
  const std::string missing = write_file("missing-profile.xml", platform_with("speed_file=\"no-such-profile.txt\""));
  expect_refused(missing, "speed_file: 'no-such-profile.txt': no such file");
  // Not well-formed: refused by the check, before SimGrid's parser builds what it has read.
  expect_refused(write_file("broken.xml",
                            "<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"g\" suffix=\"\" "
                            "radical=\"0-99999999\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0us\"/>\n<zone"),
                 "line 3: XML syntax error: ");
}

PlatformSize count(const std::string& xml) {
  boost::property_tree::ptree tree;
  std::istringstream in(xml);
  boost::property_tree::read_xml(in, tree);
  return count_platform(tree);
}

TEST(PlatformLimits, SizeIsCountedFromTheXml) {
  // The 4-device complete graph: 4 hosts, 6 SPLITDUPLEX links, 6 symmetrical routes of one link each;
  // a Full zone of 4.
  const PlatformSize complete = count(complete_platform_xml(4));
  EXPECT_EQ(complete.hosts, 4);
  EXPECT_EQ(complete.links, 12);
  EXPECT_EQ(complete.routes, 12);
  EXPECT_EQ(complete.route_links, 12);
  EXPECT_EQ(complete.table_bytes, 8 * 4 * 4);
  // A 100 x 100 x 100 torus: a million hosts, six links each, a loopback and a limiter.
  const PlatformSize torus = count(
      "<platform><cluster id=\"t\" topology=\"TORUS\" topo_parameters=\"100,100,100\" prefix=\"g\" suffix=\"\" "
      "radical=\"0-499999,500000-999999\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0us\"/></platform>");
  EXPECT_EQ(torus.hosts, 1e6);
  EXPECT_EQ(torus.links, 8e6 + 1);
  EXPECT_EQ(estimated_platform_bytes(torus), 1e6 * kBytesPerHost + (8e6 + 1) * kBytesPerLink);
  // A plain cluster: a private link each way, loopback and limiter per host, one backbone.
  EXPECT_EQ(count("<platform><cluster id=\"c\" radical=\"1-8,10\"/></platform>").links, 4 * 9 + 1);
}

TEST(PlatformLimits, APlatformTooLargeForTheMemoryLimitIsRefusedWithTheFigure) {
  // The million-host torus (SimGrid then ends in std::bad_alloc): refused in a moment.
  const std::string torus = write_file(
      "huge-torus.xml",
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform "
      "version=\"4.1\">\n"
      "<cluster id=\"t\" topology=\"TORUS\" topo_parameters=\"100,100,100\" prefix=\"gpu\" radical=\"0-999999\" "
      "suffix=\"\" speed=\"1Tf\" bw=\"1GBps\" lat=\"0us\"><prop id=\"memory\" "
      "value=\"1GiB\"/></cluster>\n</platform>\n");
  expect_refused(torus,
                 "platform: this platform needs about 15.3 GiB of memory to simulate (1000000 hosts, 8000001 links); "
                 "the limit is 1.00 GiB (raise it with --max-memory)",
                 "--max-memory 1GiB");
  // A Full zone of 5,000 hosts: its routing table (8 bytes per pair) is most of the figure.
  std::string hosts;
  for (int i = 0; i < 5000; ++i) hosts += "<host id=\"gpu" + std::to_string(i) + "\" speed=\"1Tf\"/>\n";
  std::string full_xml = platform_with("");
  full_xml.insert(full_xml.find("</zone>"), hosts);
  const std::string full = write_file("wide-full.xml", full_xml);
  expect_refused(full, "(5001 hosts, the routing table of the Full zone 'z' of 5001 nodes); the limit is 128 MiB",
                 "--max-memory 128MiB");
  // Text alone: its tree is counted before it is built (34 bytes per byte measured, 40 counted).
  std::string padded = platform_with("");
  padded.insert(padded.find("<platform"), "<!--" + std::string(8 << 20, ' ') + "-->\n");
  expect_refused(write_file("padded.xml", padded),
                 "platform: this platform needs about 320 MiB of memory to simulate (8.00 MiB of XML); the limit is "
                 "256 MiB",
                 "--max-memory 256MiB");
  // Under the limit: the shipped platforms load.
  const CliResult ok =
      run_bounded("run " + kRoot + "platforms/nvswitch-4gpu.xml " + kTiny + " --max-memory 128MiB --quiet");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  // The engine takes the limit too (0: the default).
  EXPECT_THROW(Simulation(torus, {}, 1 << 30), InputError);
}

}  // namespace
}  // namespace pipesim
