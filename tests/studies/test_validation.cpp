// The validation suite (docs/validation.md): every case of
// sweeps/validation/validation.yaml runs, gives the iteration time and peak
// memory that docs/validation/results.csv holds (so each published error is
// pinned), and the page's tables are what those results give.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;
namespace fs = std::filesystem;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

// Rows of a CSV without quoted fields, as lists of cells, the header first.
std::vector<std::vector<std::string>> csv_rows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(read_text(path));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

int column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// case -> (steady iteration time, peak memory) as recorded for the docs.
std::map<std::string, std::pair<double, double>> recorded() {
  const auto rows = csv_rows(kRoot + "docs/validation/results.csv");
  std::map<std::string, std::pair<double, double>> out;
  for (std::size_t i = 1; i < rows.size(); ++i) out[rows[i][0]] = {std::stod(rows[i][1]), std::stod(rows[i][2])};
  return out;
}

// Runs a validation sweep and checks each case's iteration time and peak
// memory against docs/validation/results.csv.
void expect_recorded_results(const std::string& sweep, const std::string& name) {
  const std::string out = temp_path(name);
  fs::remove_all(out);
  const CliResult r = run_pipesim("sweep " + kRoot + sweep + " -o " + out + " -j 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(out + "/results.csv");
  ASSERT_GT(rows.size(), 1u);
  const int workload = column(rows[0], "workload"), status = column(rows[0], "status");
  // The steady iteration: the one iteration of most cases, the last of those whose iterations overlap.
  const int time = column(rows[0], "steady_iteration_time"), memory = column(rows[0], "max_peak_memory");
  const auto expected = recorded();
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::string name = fs::path(rows[i][workload]).stem();
    ASSERT_EQ(rows[i][status], "valid") << name;
    ASSERT_TRUE(expected.count(name)) << name << " is not in docs/validation/results.csv";
    const auto& [t, m] = expected.at(name);
    EXPECT_NEAR(std::stod(rows[i][time]), t, 1e-9 * t) << name;
    EXPECT_NEAR(std::stod(rows[i][memory]), m, 1e-9 * m) << name;
  }
}

TEST(SweepValidation, EveryCaseGivesTheRecordedPredictionAndTheDocsAreItsTables) {
  expect_recorded_results("sweeps/validation/validation.yaml", "validation");
  const auto expected = recorded();
  // Every measured case has a recorded result (the large ones come from validation-large.yaml, below).
  const auto measured = csv_rows(kRoot + "sweeps/validation/measured.csv");
  EXPECT_EQ(measured.size() - 1, expected.size());
  for (std::size_t i = 1; i < measured.size(); ++i) EXPECT_TRUE(expected.count(measured[i][0])) << measured[i][0];
  if (std::system("python3 --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  EXPECT_EQ(std::system(("python3 " + kRoot + "scripts/validation_report.py --check").c_str()), 0);
}

// The 530B and 1T cases on 280 and 512 GPUs (E5-E8) and GPT-3 175B on 1,024
// (C1): about 3 minutes for the five with -j 2, up to 9.5 GB a run, now that
// the analytic engine shares the NICs that their transfers meet on.
TEST(SweepValidation, LargeCasesGiveTheRecordedPrediction) {
  expect_recorded_results("sweeps/validation/validation-large.yaml", "validation-large");
}

}  // namespace
}  // namespace pipesim
