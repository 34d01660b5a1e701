// The scripts behind docs/mobile.md's figures: make_platform.py --mobile
// writes a platform pipesim runs (byte for byte the shipped one for the
// same devices), and mobile_figures.py's workload pieces (profile to flops,
// merged layers, Theorem 1's beta). The figures themselves are not run here.
#include <cstdlib>
#include <filesystem>
#include <string>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

// Runs `command` (stdout and stderr into one file): its exit status and output.
std::pair<int, std::string> shell(const std::string& command) {
  const std::string out = temp_path("script.out");
  const int status = std::system((command + " >" + out + " 2>&1").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out)};
}

TEST(MobileScripts, MakePlatformMobileWritesARunnablePlatform) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string script = "python3 " + kRoot + "scripts/make_platform.py";
  // The shipped laptops platform, from the same two devices.
  const std::string laptops = temp_path("laptops.xml");
  ASSERT_EQ(shell(script + " --mobile laptop-i7,laptop-i5 --network wifi -o " + laptops).first, 0);
  EXPECT_EQ(read_text(laptops), read_text(kRoot + "platforms/mobile-laptops-wifi.xml"));
  // Two kinds over 10 Gbit/s: split runs on it, one worker per device; the
  // exact partition leaves the Raspberry Pis (48 Gflop/s against 1.85 Tflop/s) idle.
  const std::string mixed = temp_path("mixed.xml");
  ASSERT_EQ(shell(script + " --mobile pi,laptop-i7,pi --network 10gbe -o " + mixed).first, 0);
  EXPECT_NE(read_text(mixed).find("<link id=\"pi-1-10gbe\" bandwidth=\"1.25GBps\" latency=\"100us\""),
            std::string::npos);
  const CliResult r = run_pipesim("run " + mixed + " " + kRoot + "workloads/examples/mobile-cnn.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("devices               3 (1 used)"), std::string::npos) << r.out;
  // An unknown model: an error, no file.
  const std::string bad = temp_path("bad.xml");
  std::filesystem::remove(bad);
  const auto [code, text] = shell(script + " --mobile laptop-i7,phone -o " + bad);
  EXPECT_EQ(code, 2);
  EXPECT_NE(text.find("make_platform.py: error: --mobile: unknown model 'phone' (expected laptop-i7, laptop-i5, pi)"),
            std::string::npos)
      << text;
  EXPECT_FALSE(std::filesystem::exists(bad));
}

// mobile_figures.py's AlexNet: 21 imported layers, the three with no time
// on a pass merged into the one before (18), both passes positive, flops
// = ms x 7.85 Tflop/s x 32/256 (conv1: 22.316 ms forward), and Theorem 1's
// beta of the whole chain F / (F + G) = 0.5251 as docs/mobile.md reports.
TEST(MobileScripts, FiguresWorkloadPieces) {
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string code =
      "import sys; sys.path.insert(0, '" + kRoot +
      "scripts'); import mobile_figures as m; "
      "i, L = m.chain('" +
      std::string(PIPESIM_BINARY) +
      "', 'alexnet'); "
      "print(len(L), all(l[1] > 0 and l[2] > 0 for l in L), '%.6g' % L[0][1], '%.4f' % m.theorem1_beta(L), "
      "L[12][0], '%.0f' % i)";
  const auto [status, out] = shell("python3 -c \"" + code + "\"");
  ASSERT_EQ(status, 0) << out;
  // 22.316e-3 s x 7.85e12 flop/s x 32 / 256; layer 12: the pool, view and dropout merged; input 154140672 / 8.
  EXPECT_EQ(out, "18 True 2.18976e+10 0.5251 node14+node15-node16+node17 19267584\n");
}

}  // namespace
}  // namespace pipesim
