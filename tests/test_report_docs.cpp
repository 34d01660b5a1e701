// The outputs shown in the README are what pipesim prints: a changed report
// must come with its regenerated example.
#include <string>

#include <gtest/gtest.h>

#include "tests/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

// The first code block after `heading` in `file`, without its fences.
std::string code_block_after(const std::string& file, const std::string& heading) {
  const std::string text = read_text(kRoot + file);
  const std::size_t at = text.find(heading);
  if (at == std::string::npos) return "no heading '" + heading + "' in " + file;
  const std::size_t open = text.find("```", at);
  const std::size_t begin = text.find('\n', open) + 1;
  return text.substr(begin, text.find("```", begin) - begin);
}

TEST(ReportDocs, ReadmeExampleIsTheFirstCommandsOutput) {
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + kRoot +
                                  "workloads/examples/gpt2-xl.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(code_block_after("README.md", "## The example"), r.out);
}

}  // namespace
}  // namespace pipesim
