// The outputs shown in the README and docs/outputs.md are what pipesim
// prints: a changed report must come with its regenerated example.
#include <string>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

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
  const CliResult r =
      run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + kRoot + "workloads/examples/gpt2-xl.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(code_block_after("README.md", "## The example"), r.out);
}

TEST(ReportDocs, PatternFormatExampleIsWhatTheRunPrints) {
  const CliResult r =
      run_pipesim("run " + kRoot + "platforms/complete-4.xml " + kRoot + "workloads/examples/two-f-two-b.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(code_block_after("docs/pattern-format.md", "## Example: 2F2B from seed 000"),
            "$ pipesim run platforms/complete-4.xml workloads/examples/two-f-two-b.yaml\n" + r.out);
}

// `expand -t 5` with trailing blanks removed: how docs/outputs.md shows a
// tab-separated diagram.
std::string expand_tabs(const std::string& text) {
  std::string out, line;
  for (char c : text) {
    if (c == '\t') {
      line += std::string(5 - line.size() % 5, ' ');
    } else if (c == '\n') {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + '\n';
      line.clear();
    } else {
      line += c;
    }
  }
  return out + line;
}

TEST(ReportDocs, OutputsDiagramExampleIsRealOutput) {
  // tiny.yaml with 4 micro-batches.
  std::string tiny = read_text(kRoot + "workloads/examples/tiny.yaml");
  const std::size_t at = tiny.find("microbatches: 8");
  ASSERT_NE(at, std::string::npos);
  tiny.replace(at, 15, "microbatches: 4");
  const std::string workload = write_file("tiny4.yaml", tiny);
  const std::string txt = temp_path("tiny4.txt"), svg = temp_path("tiny4.svg");
  const std::string run = "run " + kRoot + "platforms/nvswitch-4gpu.xml " + workload + " --quiet --diagram ";
  ASSERT_EQ(run_pipesim(run + txt).exit_code, 0);
  ASSERT_EQ(run_pipesim(run + svg).exit_code, 0);
  EXPECT_EQ(code_block_after("docs/outputs.md", "## `--diagram FILE`"), expand_tabs(read_text(txt)));
  EXPECT_EQ(read_text(kRoot + "docs/outputs/diagram-tiny4.svg"), read_text(svg));
}

TEST(ReportDocs, OutputsWorkersExampleIsRealOutput) {
  const std::string workers = temp_path("workers.txt");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " + kRoot +
                                  "workloads/examples/tiny.yaml --quiet --workers " + workers);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(code_block_after("docs/outputs.md", "## `--workers FILE`"), read_text(workers));
}

}  // namespace
}  // namespace pipesim
