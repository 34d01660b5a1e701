// pipesim plan on a small model: pruning never loses the winner that
// simulating every candidate finds, the bounds never exceed a simulation,
// what is pruned for memory does not fit, the winner runs as written.
#include <gtest/gtest.h>

#include <cstdio>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "tests/support/build_paths.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using namespace pipesim::testing;
namespace fs = std::filesystem;

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kPlatform = kRoot + "platforms/nvswitch-4gpu.xml";

// A 4-block GPT on 4 GPUs: a few hundred candidates, each simulated in milliseconds.
std::string small_workload() {
  return write_file("small.yaml",
                    "name: small-gpt\n"
                    "model: {preset: gpt2-xl, layers: 4, hidden: 1024, heads: 16, seq_length: 512, "
                    "microbatch_size: 2}\n"
                    "microbatches: 4\n"
                    "schedule: 1f1b\n");
}

// The 4-GPU box with MEMORY per GPU.
std::string platform_with_memory(const std::string& memory, const std::string& name) {
  std::string xml = read_text(kPlatform);
  for (std::size_t at = 0; (at = xml.find("value=\"80GiB\"", at)) != std::string::npos;)
    xml.replace(at, 13, "value=\"" + memory + "\"");
  return write_file(name, xml);
}

using Row = std::map<std::string, std::string>;

std::vector<Row> read_csv(const std::string& path) {
  std::istringstream in(read_text(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream h(line);
  for (std::string f; std::getline(h, f, ',');) header.push_back(f);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    Row row;
    std::size_t c = 0;
    bool quoted = false;
    std::string field;
    for (const char ch : line + ",") {
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        if (c < header.size()) row[header[c]] = field;
        ++c, field.clear();
      } else {
        field += ch;
      }
    }
    rows.push_back(row);
  }
  return rows;
}

double number(const Row& row, const std::string& column) { return std::strtod(row.at(column).c_str(), nullptr); }

const Row* winner(const std::vector<Row>& rows) {
  for (const Row& r : rows)
    if (r.at("rank") == "1") return &r;
  return nullptr;
}

std::string candidate(const Row& r) {
  return r.at("tp") + "/" + r.at("pp") + "/" + r.at("dp") + " " + r.at("microbatch_size") + "x" + r.at("microbatches") +
         " " + r.at("schedule") + " v" + r.at("virtual_stages") + " k" + r.at("k") + " " + r.at("recompute") +
         " zero " + r.at("zero") + " " + r.at("partition") + " " + r.at("memory_saving");
}

// The 8-A100 box with host memory, each GPU with MEMORY ("14GiB") instead of 80 GiB.
std::string a100_box_with(const std::string& memory) {
  std::string xml = read_text(kRoot + "platforms/a100-8gpu-pcie-host.xml");
  const std::string from = "value=\"80GiB\"", to = "value=\"" + memory + "\"";
  for (std::size_t at = 0; (at = xml.find(from, at)) != std::string::npos; at += to.size())
    xml.replace(at, from.size(), to);
  return write_file("a100-" + memory + ".xml", xml);
}

// The plan's last progress line, "plan: 221 simulated (185 now, ...": the
// runs it counts and those it started (the others found or derived).
std::pair<long, long> simulated_and_run(const std::string& err) {
  long simulated = -1, now = -1;
  const std::size_t last = err.rfind("plan: ");
  if (last != std::string::npos) std::sscanf(err.c_str() + last, "plan: %ld simulated (%ld now", &simulated, &now);
  return {simulated, now};
}

const std::string kEveryFamily = "1f1b,gpipe,interleaved-1f1b,kfkb,zb-h1,zb-h2,zbv,dualpipev,pipedream,ilp";

// A ZeRO 2 candidate whose ZeRO 1 twin ran (the same pipeline) takes its
// record from that run's report, each GPU's gradients divided by DP
// (docs/plan.md#zero-2-twins): every such record is the one the ZeRO 2
// run gives when simulated (a plan of ZeRO 2 alone, which has no twins).
TEST(PlanCli, ZeroTwoRecordsFromTheirZeroOneTwinsAreTheirRuns) {
  const std::string workload = small_workload(), both = temp_path("zero12"), alone = temp_path("zero2");
  const CliResult a = run_pipesim("plan " + kPlatform + " " + workload + " -o " + both +
                                  " --zero 1,2 --top 100000 -j 2 --schedules 1f1b,zb-h1,dualpipev");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const CliResult b = run_pipesim("plan " + kPlatform + " " + workload + " -o " + alone +
                                  " --zero 2 --top 100000 -j 2 --schedules 1f1b,zb-h1,dualpipev");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  // "plan: 221 simulated (185 now, ...": the difference was derived.
  const auto [simulated, now] = simulated_and_run(a.err);
  EXPECT_GE(simulated - now, 50) << a.err;
  std::map<std::string, Row> simulated_alone;
  for (const Row& r : read_csv(alone + "/plan.csv")) simulated_alone[candidate(r)] = r;
  std::size_t compared = 0;
  for (const Row& r : read_csv(both + "/plan.csv")) {
    if (r.at("zero") != "2" || r.at("fate") != "simulated") continue;
    const Row& o = simulated_alone.at(candidate(r));
    for (const char* column : {"status", "iteration_time", "max_peak_memory", "max_peak_largest_part", "training.mfu",
                               "worst_bubble_fraction", "exposed_communication", "time_bound", "memory_bound"})
      EXPECT_EQ(r.at(column), o.at(column)) << column << " of " << candidate(r);
    ++compared;
  }
  EXPECT_GE(compared, 50u);
}

TEST(PlanCli, PruningFindsTheWinnerThatSimulatingEveryCandidateFinds) {
  const std::string workload = small_workload(), pruned = temp_path("pruned"), every = temp_path("every");
  const CliResult a =
      run_pipesim("plan " + kPlatform + " " + workload + " -o " + pruned + " --top 1 -j 2 --schedules " + kEveryFamily);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const CliResult b = run_pipesim("plan " + kPlatform + " " + workload + " -o " + every +
                                  " --top 100000 -j 2 --schedules " + kEveryFamily);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const std::vector<Row> some = read_csv(pruned + "/plan.csv"), all = read_csv(every + "/plan.csv");
  ASSERT_EQ(some.size(), all.size());
  std::size_t simulated = 0, slower = 0;
  for (const Row& r : some) simulated += r.at("fate") == "simulated", slower += r.at("fate") == "slower";
  EXPECT_GT(slower, simulated) << "the bounds prune most candidates";
  for (const Row& r : all) EXPECT_NE(r.at("fate"), "slower") << "--top 100000 simulates every candidate that fits";
  ASSERT_TRUE(winner(some) && winner(all));
  EXPECT_EQ(candidate(*winner(some)), candidate(*winner(all)));
  EXPECT_EQ(winner(some)->at("iteration_time"), winner(all)->at("iteration_time"));
  // The bounds never exceed what was simulated; without a pipeline (pp 1) nothing is left out of the memory's.
  std::size_t checked = 0;
  for (const Row& r : all) {
    if (r.at("status") != "valid") continue;
    ++checked;
    EXPECT_LE(number(r, "time_bound"), number(r, "iteration_time") * (1 + 1e-12)) << candidate(r);
    EXPECT_LE(number(r, "memory_bound"), number(r, "max_peak_memory") * (1 + 1e-12)) << candidate(r);
    if (r.at("pp") == "1") {
      EXPECT_NEAR(number(r, "memory_bound") / number(r, "max_peak_memory"), 1, 1e-12) << candidate(r);
    }
  }
  EXPECT_GT(checked, 300u);
  // Ranked by peak memory instead: the smallest peak of every run, simulating few.
  const std::string smallest = temp_path("smallest");
  const CliResult m = run_pipesim("plan " + kPlatform + " " + workload + " -o " + smallest +
                                  " --top 1 -j 2 --objective memory --schedules " + kEveryFamily);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  double least = 1e300;
  for (const Row& r : all)
    if (r.at("status") == "valid") least = std::min(least, number(r, "max_peak_memory"));
  const std::vector<Row> by_memory = read_csv(smallest + "/plan.csv");
  std::size_t runs = 0;
  for (const Row& r : by_memory) runs += r.at("fate") == "simulated";
  const auto first = std::find_if(by_memory.begin(), by_memory.end(), [](const Row& r) { return r.at("rank") == "1"; });
  ASSERT_NE(first, by_memory.end());
  EXPECT_EQ(number(*first, "max_peak_memory"), least);
  EXPECT_LT(runs, 20u) << "the memory bounds prune most candidates";

  // Ranked by cost (GPU time: iteration time x GPUs, layouts on 1, 2 and 4
  // GPUs): the cheapest of every run, simulating few. The exhaustive plan
  // resumes the one above, so only the layouts on part of the box run anew.
  const std::string cheapest = temp_path("cheapest");
  const CliResult c = run_pipesim("plan " + kPlatform + " " + workload + " -o " + cheapest +
                                  " --top 1 -j 2 --objective cost --schedules " + kEveryFamily);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const CliResult every_cost = run_pipesim("plan " + kPlatform + " " + workload + " -o " + every +
                                           " --top 100000 -j 2 --objective cost --schedules " + kEveryFamily);
  ASSERT_EQ(every_cost.exit_code, 0) << every_cost.err;
  const std::vector<Row> by_cost = read_csv(cheapest + "/plan.csv"), all_costs = read_csv(every + "/plan.csv");
  ASSERT_EQ(by_cost.size(), all_costs.size());
  EXPECT_GT(all_costs.size(), all.size());
  double lowest = 1e300;
  std::set<std::string> gpus;
  for (const Row& r : all_costs) {
    if (r.at("status") != "valid") continue;
    gpus.insert(r.at("gpus"));
    const double n = number(r, "gpus");
    EXPECT_EQ(n, number(r, "tp") * number(r, "pp") * number(r, "dp")) << candidate(r);
    EXPECT_NEAR(number(r, "gpu_seconds"), number(r, "iteration_time") * n, 1e-15) << candidate(r);
    EXPECT_LE(number(r, "time_bound") * n, number(r, "gpu_seconds") * (1 + 1e-12)) << candidate(r);
    lowest = std::min(lowest, number(r, "gpu_seconds"));
  }
  EXPECT_EQ(gpus, (std::set<std::string>{"1", "2", "4"}));
  ASSERT_TRUE(winner(by_cost) && winner(all_costs));
  EXPECT_EQ(candidate(*winner(by_cost)) + " on " + winner(by_cost)->at("gpus"),
            candidate(*winner(all_costs)) + " on " + winner(all_costs)->at("gpus"));
  EXPECT_EQ(number(*winner(by_cost), "gpu_seconds"), lowest);
  std::size_t cost_runs = 0;
  for (const Row& r : by_cost) cost_runs += r.at("fate") == "simulated";
  EXPECT_LT(cost_runs, 20u) << "the cost bounds prune most candidates";
  // One GPU wins this small model (no communication, no bubble), and its winner.yaml says so.
  EXPECT_EQ(winner(by_cost)->at("gpus"), "1");
  EXPECT_NE(read_text(cheapest + "/winner.yaml").find("gpus: 1"), std::string::npos);
  const CliResult run = run_pipesim("run " + kPlatform + " " + cheapest + "/winner.yaml");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("devices                4 (1 used)"), std::string::npos) << run.out;
}

TEST(PlanCli, WhatIsPrunedForMemoryDoesNotFitAndTheWinnerRunsAsWritten) {
  const std::string workload = small_workload(), out = temp_path("tight");
  const std::string platform = platform_with_memory("1.5GiB", "tight.xml");
  const CliResult r = run_pipesim("plan " + platform + " " + workload + " -o " + out + " --top 3 -j 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<Row> rows = read_csv(out + "/plan.csv");
  int over = 0;
  for (const Row& row : rows) {
    if (row.at("fate") != "over memory" || over >= 3) continue;
    ++over;  // a few of them, run as they are: each exceeds the GPU's memory
    std::string sets;
    for (const char* key : {"tp", "pp", "dp", "zero"})
      sets += std::string(" --set parallel.") + key + "=" + row.at(key);
    sets += " --set model.microbatch_size=" + row.at("microbatch_size") +
            " --set model.recompute=" + row.at("recompute") + " --set microbatches=" + row.at("microbatches") +
            " --set schedule=" + row.at("schedule") + " --set placement.partition=" + row.at("partition");
    if (row.at("virtual_stages") != "0") sets += " --set schedule.virtual_stages=" + row.at("virtual_stages");
    if (row.at("k") != "0") sets += " --set schedule.k=" + row.at("k");
    const CliResult run = run_pipesim("run " + platform + " " + workload + sets + " --quiet");
    EXPECT_EQ(run.exit_code, 1) << candidate(row) << ": " << run.err;
  }
  EXPECT_EQ(over, 3);
  const Row* best = winner(rows);
  ASSERT_TRUE(best);
  const CliResult run = run_pipesim("run " + platform + " " + out + "/winner.yaml --json " + out + "/winner.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(json_number(read_json(out + "/winner.json"), "/iteration_time"), number(*best, "iteration_time"));
  EXPECT_NE(r.out.find("the workload's own configuration: tp 1 pp 4 dp 1, mb 2 x 4, 1f1b balanced, none, zero 0"),
            std::string::npos)
      << r.out;
  // Run again: every record is found, nothing runs, the same report.
  const CliResult again = run_pipesim("plan " + platform + " " + workload + " -o " + out + " --top 3 -j 2");
  EXPECT_EQ(again.out, r.out);
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = 0; (at = again.err.find(what, at)) != std::string::npos; ++at) ++n;
    return n;
  };
  EXPECT_GT(count(" simulated ("), 0u) << again.err;
  EXPECT_EQ(count(" simulated ("), count(" simulated (0 now, ")) << again.err;
}

// GPT-2 XL on 8 A100s of 14 GiB: most pipelines are over memory on their
// first stages. Each such 1F1B pipeline is weighed again with seed 002's
// rematerialization on the stages over capacity alone; the fastest is the
// whole model on every GPU (pp 1, dp 8) with micro-batches of 2 that only
// rematerialization fits, ahead of micro-batches of 1 without it.
TEST(PlanCli, StagesOverMemoryRematerializeAndTheOthersDoNot) {
  const std::string platform = a100_box_with("14GiB");
  const std::string workload = kRoot + "workloads/examples/gpt2-xl.yaml";
  const std::string space = " --schedules 1f1b --zero 1 --partitions balanced -j 2";
  const std::string out = temp_path("saving-top"), every = temp_path("saving-every"), plain = temp_path("saving-no");
  const CliResult top = run_pipesim("plan " + platform + " " + workload + " -o " + out + space + " --top 1");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const std::vector<Row> rows = read_csv(out + "/plan.csv");
  const Row* best = winner(rows);
  ASSERT_TRUE(best);
  EXPECT_EQ(candidate(*best), "1/1/8 2x8 1f1b v0 k0 none zero 1 even remat on stage 0");
  EXPECT_NE(top.out.find("1f1b  none + remat on stage 0"), std::string::npos) << top.out;
  // Twins whose plain time bound never came within reach were never built: no memory bound.
  int unbuilt = 0;
  for (const Row& r : rows)
    if (!r.at("memory_saving").empty() && r.at("memory_bound").empty()) {
      ++unbuilt;
      EXPECT_EQ(r.at("fate"), "slower") << candidate(r);
      EXPECT_EQ(r.at("reason"), "not built: its time bound is its plain candidate's") << candidate(r);
    }
  EXPECT_GE(unbuilt, 5);
  // --screen-only lists them by that bound, their memory bound unknown ("-").
  const CliResult screened = run_pipesim("plan " + platform + " " + workload + " -o " + temp_path("saving-screen") +
                                         space + " --top 1 --screen-only");
  ASSERT_EQ(screened.exit_code, 0) << screened.err;
  const std::size_t row = screened.out.find("none + remat on stage 0");
  ASSERT_NE(row, std::string::npos) << screened.out;
  const std::string line = screened.out.substr(row, screened.out.find('\n', row) - row);
  EXPECT_EQ(line.substr(line.size() - 2), " -") << line;

  // Simulating every candidate finds the same winner; every twin's bounds hold.
  const CliResult all = run_pipesim("plan " + platform + " " + workload + " -o " + every + space + " --top 100000");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const std::vector<Row> runs = read_csv(every + "/plan.csv");
  ASSERT_TRUE(winner(runs));
  EXPECT_EQ(candidate(*winner(runs)), candidate(*best));
  EXPECT_EQ(number(*winner(runs), "iteration_time"), number(*best, "iteration_time"));
  int twins = 0, partial = 0;
  for (const Row& r : runs) {
    if (r.at("memory_saving").empty() || r.at("fate") != "simulated") continue;
    ++twins;
    EXPECT_EQ(r.at("status"), "valid") << candidate(r);
    EXPECT_LE(number(r, "memory_bound"), number(r, "max_peak_memory") * (1 + 1e-12)) << candidate(r);
    EXPECT_LE(number(r, "time_bound"), number(r, "iteration_time") * (1 + 1e-12)) << candidate(r);
    EXPECT_LE(number(r, "max_peak_memory"), 14.0 * (1 << 30)) << candidate(r);
    // A pipeline whose later stages fit saves on its first ones only.
    partial += std::stoi(r.at("pp")) > 1 && r.at("memory_saving") == "remat on stage 0";
  }
  EXPECT_GE(twins, 5);
  EXPECT_GE(partial, 1);

  // Without memory saving the best is slower, and no candidate saves.
  const CliResult none =
      run_pipesim("plan " + platform + " " + workload + " -o " + plain + space + " --top 1 --memory-saving none");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  const std::vector<Row> unsaved = read_csv(plain + "/plan.csv");
  ASSERT_TRUE(winner(unsaved));
  EXPECT_GT(number(*winner(unsaved), "iteration_time"), number(*best, "iteration_time"));
  for (const Row& r : unsaved) EXPECT_EQ(r.at("memory_saving"), "") << candidate(r);

  // The winner runs as written: its first stage's program in the report.
  const CliResult run = run_pipesim("run " + platform + " " + out + "/winner.yaml --json " + out + "/winner.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(json_number(read_json(out + "/winner.json"), "/iteration_time"), number(*best, "iteration_time"));
  EXPECT_NE(run.out.find("memory saving (one micro-batch per stage"), std::string::npos) << run.out;

  // --memory-saving both: the twins offload to the box's host memory too,
  // which frees the first stage of most recomputes: a faster winner, the
  // same layout, its offloads held by the host.
  const std::string offloading = temp_path("saving-both");
  const CliResult both =
      run_pipesim("plan " + platform + " " + workload + " -o " + offloading + space + " --top 1 --memory-saving both");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const std::vector<Row> offload_rows = read_csv(offloading + "/plan.csv");
  const Row* fastest = winner(offload_rows);
  ASSERT_TRUE(fastest);
  EXPECT_EQ(candidate(*fastest), "1/1/8 2x8 1f1b v0 k0 none zero 1 even both on stage 0");
  EXPECT_LT(number(*fastest, "iteration_time"), number(*best, "iteration_time"));
  const CliResult offloaded =
      run_pipesim("run " + platform + " " + offloading + "/winner.yaml --json " + offloading + "/winner.json");
  ASSERT_EQ(offloaded.exit_code, 0) << offloaded.err;
  const nlohmann::json report = read_json(offloading + "/winner.json");
  EXPECT_EQ(json_number(report, "/iteration_time"), number(*fastest, "iteration_time"));
  ASSERT_EQ(report["devices"][8]["name"], "host-memory");
  EXPECT_GT(report["devices"][8]["peak_memory"].get<double>(), 0);
}

TEST(PlanCli, NothingFitsSaysTheSmallestMemoryAnyCandidateNeeds) {
  const std::string out = temp_path("none");
  const CliResult r =
      run_pipesim("plan " + platform_with_memory("200MiB", "small.xml") + " " + small_workload() + " -o " + out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("nothing fits: the smallest memory bound is "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" against 200.00 MiB"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(out + "/plan.csv"));
  EXPECT_FALSE(fs::exists(out + "/winner.yaml"));
}

// The first code block after HEADING in docs/plan.md, without its fences.
std::string doc_block_after(const std::string& heading) {
  const std::string text = read_text(kRoot + "docs/plan.md");
  const std::size_t at = text.find(heading);
  if (at == std::string::npos) return "no heading '" + heading + "'";
  const std::size_t command = text.find("```", at), command_end = text.find("```", command + 3);
  const std::size_t open = text.find("```", command_end + 3);  // the second block: the output
  const std::size_t begin = text.find('\n', open) + 1;
  return text.substr(begin, text.find("```", begin) - begin);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
    text.replace(at, from.size(), to);
  return text;
}

// GPT-2 XL on 8 A100s of 6 GiB, no memory-saving programs: the fit
// partition makes 1F1B pipelines fit without recompute (a block moves from
// the first stage, where 1F1B holds the most micro-batches, to the last),
// 16 % faster than the best without it (full recompute); every fit twin
// simulated keeps its bounds, fits, and its balanced twin did not.
TEST(PlanCli, APartitionThatFitsBeatsRecomputing) {
  const std::string platform = a100_box_with("6GiB");
  const std::string workload = kRoot + "workloads/examples/gpt2-xl.yaml";
  const std::string space = " --schedules 1f1b --zero 2 --memory-saving none -j 2";
  const std::string top = temp_path("fit-top"), every = temp_path("fit-every"), without = temp_path("fit-no");
  const CliResult r = run_pipesim("plan " + platform + " " + workload + " -o " + top + space + " --top 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<Row> rows = read_csv(top + "/plan.csv");
  ASSERT_TRUE(winner(rows));
  const Row best = *winner(rows);
  EXPECT_EQ(candidate(best) + " " + best.at("layers"), "1/4/2 1x64 1f1b v0 k0 none zero 2 fit  12/13/13/12");
  EXPECT_NE(r.out.find("1f1b fit 12/13/13/12"), std::string::npos) << r.out;

  const CliResult no = run_pipesim("plan " + platform + " " + workload + " -o " + without + space +
                                   " --top 1 --partitions even,balanced");
  ASSERT_EQ(no.exit_code, 0) << no.err;
  const std::vector<Row> plain = read_csv(without + "/plan.csv");
  ASSERT_TRUE(winner(plain));
  EXPECT_EQ(winner(plain)->at("recompute"), "full");
  EXPECT_LT(number(best, "iteration_time"), 0.86 * number(*winner(plain), "iteration_time"));

  // Simulating every candidate: the same winner; each fit twin's bounds hold.
  const CliResult all = run_pipesim("plan " + platform + " " + workload + " -o " + every + space + " --top 100000");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const std::vector<Row> runs = read_csv(every + "/plan.csv");
  ASSERT_TRUE(winner(runs));
  EXPECT_EQ(candidate(*winner(runs)), candidate(best));
  std::map<std::string, std::string> balanced_fate;
  for (const Row& row : runs)
    if (row.at("partition") == "balanced") balanced_fate[candidate(row)] = row.at("fate");
  int fits = 0;
  for (const Row& row : runs) {
    if (row.at("partition") != "fit" || row.at("fate") != "simulated") continue;
    ++fits;
    EXPECT_EQ(row.at("status"), "valid") << candidate(row);
    EXPECT_LE(number(row, "memory_bound"), number(row, "max_peak_memory") * (1 + 1e-12)) << candidate(row);
    EXPECT_LE(number(row, "time_bound"), number(row, "iteration_time") * (1 + 1e-12)) << candidate(row);
    EXPECT_LE(number(row, "max_peak_memory"), 6.0 * (1 << 30)) << candidate(row);
    int layers = 0;
    std::istringstream counts(row.at("layers"));
    for (std::string n; std::getline(counts, n, '/');) layers += std::stoi(n);
    EXPECT_EQ(layers, 50) << candidate(row);  // the embedding, 48 blocks, the head
    std::string twin = candidate(row);
    twin.replace(twin.find(" fit "), 5, " balanced ");
    EXPECT_EQ(balanced_fate[twin], "over memory") << twin;
  }
  EXPECT_GE(fits, 6);

  // The winner runs as written, its layer counts in placement.layers.
  EXPECT_NE(read_text(top + "/winner.yaml").find("placement:\n  layers:"), std::string::npos);
  const CliResult run = run_pipesim("run " + platform + " " + top + "/winner.yaml --json " + top + "/winner.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(json_number(read_json(top + "/winner.json"), "/iteration_time"), number(best, "iteration_time"));
}

TEST(PlanCli, TheDocumentedExampleIsWhatThePlanPrints) {
  const std::string out = temp_path("plan-small");
  const CliResult r =
      run_pipesim("plan " + kPlatform + " " + kRoot + "workloads/examples/small-gpt.yaml -o " + out + " --top 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(doc_block_after("## Example"), replaced(replaced(r.out, kRoot, ""), out, "plan-small"));
  const std::string header = read_text(out + "/plan.csv").substr(0, read_text(out + "/plan.csv").find('\n'));
  EXPECT_EQ(
      header,
      "id,tp,pp,dp,gpus,zero,microbatch_size,microbatches,schedule,virtual_stages,k,recompute,partition,"
      "layers,memory_saving,fate,reason,time_bound,memory_bound,memory_capacity,status,iteration_time,gpu_seconds,"
      "training.tokens_per_second,training.mfu,"
      "max_peak_memory,max_peak_largest_part,worst_bubble_fraction,exposed_communication,rank,front");
  // The cost objective's example.
  const std::string cost = temp_path("plan-small-cost");
  const CliResult c = run_pipesim("plan " + kPlatform + " " + kRoot + "workloads/examples/small-gpt.yaml -o " + cost +
                                  " --objective cost --top 3");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(doc_block_after("## The cost objective"), replaced(replaced(c.out, kRoot, ""), cost, "plan-small-cost"));
  // The plot: written, and the same bytes twice.
  if (std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") != 0) return;
  const std::string plot = "/usr/bin/python3 " + kRoot + "scripts/plot_plan.py " + out + " >/dev/null";
  ASSERT_EQ(std::system(plot.c_str()), 0);
  const std::string first = read_text(out + "/plot.svg");
  ASSERT_EQ(std::system(plot.c_str()), 0);
  EXPECT_EQ(read_text(out + "/plot.svg"), first);
  EXPECT_NE(first.find("<svg"), std::string::npos);
}

// SC'21 Table 1's first row: the plan keeps the published layout (TP 1,
// PP 1, DP 32) and ranks the workload's own choice (docs/plan.md).
TEST(PlanCli, MegatronsFirstRowKeepsItsLayout) {
  const std::string out = temp_path("plan-1.7b");
  const CliResult r = run_pipesim("plan " + kRoot + "platforms/a100-4x8-rail-200g.yaml " + kRoot +
                                  "workloads/examples/megatron-1.7b.yaml -o " + out + " -j 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("candidates  7146: 54 simulated (54 fit), 4694 slower by their time bound, 1248 over memory"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("winner        tp 1 pp 1 dp 32, mb 2 x 8, 1f1b, none, zero 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  rank 54 or worse, 3.44 s (+25.9 % against the winner)"), std::string::npos) << r.out;
}

// SC'21 Table 1's second row: a faster layout than the published one, whose
// rank the plan reports (docs/plan.md).
TEST(PlanCli, MegatronsSecondRowFindsAFasterLayout) {
  const std::string out = temp_path("plan-3.6b");
  const CliResult r = run_pipesim("plan " + kRoot + "platforms/a100-8x8-rail-200g.yaml " + kRoot +
                                  "workloads/examples/megatron-3.6b.yaml -o " + out + " -j 2 --top 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("candidates  9556: 82 simulated (82 fit), 4329 slower by their time bound, 1309 over memory"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("winner        tp 1 pp 8 dp 8, mb 1 x 64, zbv even, none, zero 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  rank 81 or worse, 3.73 s (+36.9 % against the winner)"), std::string::npos) << r.out;
}

TEST(PlanCli, ScreenOnlyBoundsEveryCandidateAndRunsNone) {
  const std::string out = temp_path("screen");
  const CliResult r =
      run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + out + " --screen-only --top 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("candidates  747: 0 simulated (0 fit), 0 slower by their time bound, 618 screened, 0 over "
                       "memory by their bound, 96 not applicable, 33 with their twin's stages"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fastest by their time bound (nothing simulated)"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out + "/winner.yaml"));
  std::size_t screened = 0;
  for (const Row& row : read_csv(out + "/plan.csv")) {
    screened += row.at("fate") == "screened";
    EXPECT_EQ(row.at("status"), "");
  }
  EXPECT_EQ(screened, 618u);
}

// Screening in forked shares (-j) gives the entries of one process, byte for byte.
TEST(PlanCli, ScreeningInSharesGivesTheSameBytes) {
  std::string csv, out;
  for (const char* jobs : {"1", "3"}) {
    const std::string dir = temp_path(std::string("shares-") + jobs);
    const CliResult r =
        run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + dir + " --screen-only -j " + jobs);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("747 candidates screened"), std::string::npos) << r.err;
    if (csv.empty()) {
      csv = read_text(dir + "/plan.csv"), out = replaced(r.out, dir, "DIR");
      continue;
    }
    EXPECT_EQ(read_text(dir + "/plan.csv"), csv);
    EXPECT_EQ(replaced(r.out, dir, "DIR"), out);
  }
}

// --launcher: each run starts under the command given (here a script that
// counts them, then runs pipesim), and the plan is the one without it.
TEST(PlanCli, ALauncherStartsEachRunUnderIt) {
  const std::string log = temp_path("launches.log");
  const std::string launcher = write_file("launch.sh", "#!/bin/sh\necho \"$1\" >>" + log + "\nexec \"$@\"\n");
  fs::permissions(launcher, fs::perms::owner_all);
  const std::string plain = temp_path("plain"), launched = temp_path("launched");
  const CliResult a = run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + plain + " --top 2 -j 2");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const CliResult b = run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + launched +
                                  " --top 2 -j 2 --launcher '" + launcher + "'");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(read_text(launched + "/plan.csv"), read_text(plain + "/plan.csv"));
  EXPECT_EQ(replaced(b.out, launched, "DIR"), replaced(a.out, plain, "DIR"));
  // One launch per run started (ZeRO 2 twins of ZeRO 1 runs are derived, not run).
  const long started = simulated_and_run(b.err).second;
  ASSERT_GT(started, 0) << b.err;
  const std::string calls = read_text(log);
  EXPECT_EQ(static_cast<long>(std::count(calls.begin(), calls.end(), '\n')), started);
  EXPECT_EQ(fs::path(calls.substr(0, calls.find('\n'))).filename(), "pipesim")
      << "the launcher's words come before the binary";
}

TEST(PlanCli, BadInputIsOneLine) {
  const std::string layers =
      write_file("layers.yaml", "microbatches: 2\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 1MiB}\n");
  const CliResult chain = run_pipesim("plan " + kPlatform + " " + layers + " -o " + temp_path("x"));
  EXPECT_EQ(chain.exit_code, 2);
  EXPECT_EQ(chain.err, "pipesim: error: " + layers +
                           ": model: a plan needs a model: section (a layer chain does not say how it splits)\n");
  const CliResult top =
      run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + temp_path("y") + " --top 0");
  EXPECT_EQ(top.exit_code, 2);
  EXPECT_NE(top.err.find("--top needs a whole number >= 1, got 0"), std::string::npos) << top.err;
  EXPECT_FALSE(fs::exists(temp_path("y") + "/plan.csv"));
  const CliResult family = run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + temp_path("z") +
                                       " --schedules 1f1b,looped-bfs");
  EXPECT_EQ(family.exit_code, 2);
  EXPECT_NE(family.err.find("--schedules: 'looped-bfs' is not one a plan tries; expected some of 1f1b, gpipe"),
            std::string::npos)
      << family.err;
  EXPECT_FALSE(fs::exists(temp_path("z") + "/plan.csv"));
  const CliResult zero =
      run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + temp_path("zero") + " --zero 0,3");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_EQ(zero.err,
            "pipesim: error: --zero: '3' is not a ZeRO stage a plan tries; expected some of 0, 1, 2; see 'pipesim plan "
            "--help'\n");
  EXPECT_FALSE(fs::exists(temp_path("zero") + "/plan.csv"));
  const CliResult partition = run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " +
                                          temp_path("partition") + " --partitions even,uneven");
  EXPECT_EQ(partition.exit_code, 2);
  EXPECT_EQ(
      partition.err,
      "pipesim: error: --partitions: 'uneven' is not a partition a plan tries; expected some of even, balanced, fit; "
      "see 'pipesim plan --help'\n");
  EXPECT_FALSE(fs::exists(temp_path("partition") + "/plan.csv"));
  const CliResult fit_alone =
      run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + temp_path("fit-alone") + " --partitions fit");
  EXPECT_EQ(fit_alone.exit_code, 2);
  EXPECT_EQ(fit_alone.err,
            "pipesim: error: --partitions: fit makes twins of the even or balanced pipelines over memory; list one of "
            "them too; see 'pipesim plan --help'\n");
  EXPECT_FALSE(fs::exists(temp_path("fit-alone") + "/plan.csv"));
  const CliResult saving = run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + temp_path("saving") +
                                       " --memory-saving offload");
  EXPECT_EQ(saving.exit_code, 2);
  EXPECT_EQ(
      saving.err,
      "pipesim: error: --memory-saving: expected remat, both or none, got 'offload'; see 'pipesim plan --help'\n");
  const CliResult no_host = run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + temp_path("no-host") +
                                        " --memory-saving both");
  EXPECT_EQ(no_host.exit_code, 2);
  EXPECT_EQ(no_host.err, "pipesim: error: --memory-saving: both offloads to host memory, but " + kPlatform +
                             " has no host of kind host (docs/platform-format.md); see 'pipesim plan --help'\n");
  EXPECT_FALSE(fs::exists(temp_path("no-host") + "/plan.csv"));
  EXPECT_FALSE(fs::exists(temp_path("saving") + "/plan.csv"));
  const CliResult objective =
      run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + temp_path("c") + " --objective speed");
  EXPECT_EQ(objective.exit_code, 2);
  EXPECT_EQ(objective.err,
            "pipesim: error: --objective: expected time, memory or cost, got 'speed'; see 'pipesim plan --help'\n");
  EXPECT_FALSE(fs::exists(temp_path("c") + "/plan.csv"));
  const CliResult launcher = run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + temp_path("launcher") +
                                         " --launcher 'nosuch-srun -n1'");
  EXPECT_EQ(launcher.exit_code, 2);
  EXPECT_EQ(launcher.err,
            "pipesim: error: --launcher: 'nosuch-srun' is not a command this machine can run; see 'pipesim plan "
            "--help'\n");
  EXPECT_FALSE(fs::exists(temp_path("launcher") + "/plan.csv"));
  const CliResult over = run_pipesim("plan " + kPlatform + " " + small_workload() + " -o " + kPlatform);
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_EQ(std::count(over.err.begin(), over.err.end(), '\n'), 1) << over.err;
}

}  // namespace
}  // namespace pipesim
