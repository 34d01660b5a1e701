// Every registered schedule family, run by both engines on a small workload
// where the analytic engine is exact: the same report (times within 1e-9
// relative, all else equal) and the same memory, peak by peak: per device
// its peak, its time and breakdown, each category's own peak, and the
// memory trace sample by sample. Memory is where rounding shows first: the
// analytic engine leaves a few ulps between times SimGrid makes equal, and
// the order of a free and an allocation at one instant sets the peak. The
// timeline itself is compared through the Perfetto trace: every task's start
// and duration, every memory counter.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>

#include "schedules/registry_internal.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kTiny = "workloads/examples/tiny.yaml";
const std::string kNvswitch4 = "platforms/nvswitch-4gpu.xml";

struct Case {
  std::string platform, workload, extra;
};

// Every family's case; a family missing here fails the test.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> all = {
      {"1f1b", {kNvswitch4, kTiny, "--set schedule=1f1b"}},
      {"1f1b-pattern", {kNvswitch4, kTiny, "--set schedule=1f1b-pattern"}},
      {"csv",
       {kNvswitch4, kTiny,
        "--set schedule.name=csv --set schedule.file=" + kRoot + "tests/data/pytorch/zb1p_2rank_2stagep_compute.csv"}},
      {"dualpipev", {kNvswitch4, kTiny, "--set schedule=dualpipev"}},
      {"gpipe", {kNvswitch4, kTiny, "--set schedule=gpipe"}},
      {"ilp", {kNvswitch4, kTiny, "--set schedule.name=ilp --set schedule.time_limit=20s --set microbatches=4"}},
      {"interleaved-1f1b", {kNvswitch4, kTiny, "--set schedule=interleaved-1f1b"}},
      {"interleaved-zb", {kNvswitch4, kTiny, "--set schedule=interleaved-zb"}},
      {"kfkb", {kNvswitch4, kTiny, "--set schedule=kfkb --set schedule.k=2"}},
      {"looped-bfs", {kNvswitch4, kTiny, "--set schedule=looped-bfs"}},
      {"master",
       {kNvswitch4, kTiny,
        "--set schedule=master --schedule-param scheme=lpp --schedule-param G=2 "
        "--schedule-param R=2"}},
      {"pattern", {kNvswitch4, kTiny, "--set schedule.name=pattern --set schedule.file=PATTERN"}},
      {"pipedream", {kNvswitch4, kTiny, "--set schedule=pipedream"}},
      {"split", {"platforms/mobile-laptops-wifi.xml", "workloads/examples/mobile-cnn.yaml", ""}},
      {"zb-h1", {kNvswitch4, kTiny, "--set schedule=zb-h1 --set microbatches=4"}},
      {"zb-h2", {kNvswitch4, kTiny, "--set schedule=zb-h2"}},
      {"zb-auto", {kNvswitch4, kTiny, "--set schedule.name=zb-auto --set schedule.memory_limit=2"}},
      {"zbv", {kNvswitch4, kTiny, "--set schedule=zbv"}},
  };
  return all;
}

struct Outputs {
  CliResult result;
  std::string json, memory, trace;
};

Outputs run(const std::string& family, const Case& c, const std::string& engine) {
  std::string extra = c.extra;
  if (const std::size_t at = extra.find("PATTERN"); at != std::string::npos) {
    // The pattern family runs a pattern file: 1f1b-pattern's, exported.
    const std::string pattern = temp_path("agree.pattern.yaml");
    const CliResult exported = run_pipesim("run " + kRoot + kNvswitch4 + " " + kRoot + kTiny +
                                           " --set schedule=1f1b-pattern --quiet --export-pattern " + pattern);
    EXPECT_EQ(exported.exit_code, 0) << exported.err;
    extra.replace(at, 7, pattern);
  }
  const std::string json = temp_path("agree-" + family + "-" + engine + ".json");
  const std::string memory = temp_path("agree-" + family + "-" + engine + ".csv");
  const std::string trace = temp_path("agree-" + family + "-" + engine + ".trace.json");
  Outputs o;
  o.result = run_pipesim("run " + kRoot + c.platform + " " + kRoot + c.workload + " " + extra + " --quiet --engine " +
                         engine + " --json " + json + " --memory-trace " + memory + " --trace " + trace);
  if (o.result.exit_code == 0) {
    o.json = read_text(json);
    o.memory = read_text(memory);
    o.trace = read_text(trace);
  }
  return o;
}

bool close(double a, double b) { return a == b || std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

// Equal JSON values, numbers within 1e-9 relative; "engine" is left out.
void expect_same(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
  if (a.is_number() && b.is_number()) {
    EXPECT_TRUE(close(a.get<double>(), b.get<double>())) << path << ": " << a << " vs " << b;
  } else if (a.is_object() && b.is_object()) {
    EXPECT_EQ(a.size(), b.size()) << path;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (it.key() == "engine") continue;
      ASSERT_TRUE(b.contains(it.key())) << path << "." << it.key();
      expect_same(it.value(), b[it.key()], path + "." + it.key());
    }
  } else if (a.is_array() && b.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << path;
    for (std::size_t i = 0; i < a.size(); ++i) expect_same(a[i], b[i], path + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(a, b) << path;
  }
}

// The memory trace (time,device,category,bytes): bytes equal, times within 1e-9.
void expect_same_memory_trace(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string row_a, row_b;
  std::size_t row = 0;
  while (std::getline(x, row_a)) {
    ASSERT_TRUE(std::getline(y, row_b)) << "SimGrid's trace ends at row " << row;
    ++row;
    const std::size_t ca = row_a.find(','), cb = row_b.find(',');
    if (ca == std::string::npos || row == 1) {
      EXPECT_EQ(row_a, row_b);
      continue;
    }
    EXPECT_TRUE(close(std::stod(row_a.substr(0, ca)), std::stod(row_b.substr(0, cb))))
        << "row " << row << ": " << row_a << " vs " << row_b;
    EXPECT_EQ(row_a.substr(ca), row_b.substr(cb)) << "row " << row << ": " << row_a << " vs " << row_b;
  }
  EXPECT_FALSE(std::getline(y, row_b)) << "SimGrid's trace has more rows than the analytic one's " << row;
}

// The trace's events in an order that does not depend on ulps: tasks by
// track and task, counters by name (each in its time order), the rest as written.
nlohmann::json canonical_trace(const std::string& text) {
  nlohmann::json trace = nlohmann::json::parse(text);
  nlohmann::json& events = trace["traceEvents"];
  auto key = [](const nlohmann::json& e) {
    const std::string phase = e.value("ph", "");
    const int rank = phase == "X" ? 1 : phase == "C" ? 2 : 0;
    const double task = e.contains("args") && e["args"].contains("task") ? e["args"]["task"].get<double>() : 0;
    return std::make_tuple(rank, rank == 1 ? e.value("pid", 0) : 0, rank == 1 ? e.value("tid", 0) : 0,
                           rank == 2 ? e.value("name", "") : "", task);
  };
  std::stable_sort(events.begin(), events.end(),
                   [&](const nlohmann::json& a, const nlohmann::json& b) { return key(a) < key(b); });
  return trace;
}

class BothEngines : public ::testing::TestWithParam<std::string> {};

TEST_P(BothEngines, GiveTheSameTimelineAndMemory) {
  const std::string family = GetParam();
  const auto found = cases().find(family);
  ASSERT_NE(found, cases().end()) << "no case for the registered family " << family << ": add one above";
  const Case& c = found->second;
  const Outputs analytic = run(family, c, "analytic"), simgrid = run(family, c, "simgrid"),
                chosen = run(family, c, "auto");
  ASSERT_EQ(simgrid.result.exit_code, 0) << simgrid.result.err;
  ASSERT_EQ(analytic.result.exit_code, 0) << analytic.result.err;
  EXPECT_EQ(chosen.json, analytic.json) << "auto did not choose the analytic engine";
  const nlohmann::json a = nlohmann::json::parse(analytic.json), s = nlohmann::json::parse(simgrid.json);
  EXPECT_EQ(a["engine"], "analytic");
  EXPECT_EQ(s["engine"], "simgrid");
  // Memory first, by name, so that a failure says what differs.
  ASSERT_EQ(a["devices"].size(), s["devices"].size());
  for (std::size_t d = 0; d < a["devices"].size(); ++d) {
    const nlohmann::json &x = a["devices"][d], &y = s["devices"][d];
    const std::string where = family + " " + x["name"].get<std::string>();
    EXPECT_EQ(x["peak_memory"], y["peak_memory"]) << where;
    EXPECT_TRUE(close(x["peak_time"], y["peak_time"])) << where << ": " << x["peak_time"] << " vs " << y["peak_time"];
    EXPECT_EQ(x["peak_breakdown"], y["peak_breakdown"]) << where;
    EXPECT_EQ(x["category_peaks"], y["category_peaks"]) << where;
  }
  expect_same_memory_trace(analytic.memory, simgrid.memory);
  expect_same(a, s, family);
  // The timeline, task by task and memory counter by counter, as the trace shows it.
  expect_same(canonical_trace(analytic.trace), canonical_trace(simgrid.trace), family + " trace");
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, BothEngines, ::testing::ValuesIn(schedule_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace pipesim
