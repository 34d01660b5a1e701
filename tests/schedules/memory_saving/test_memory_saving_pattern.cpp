// The workload's memory_saving option on the pattern schedules
// (schedules/memory_saving/pattern_programs): each stage runs seed 002's
// rematerialization program inside the pattern's period, and the pattern's
// exact period and analytic peak stay the run's.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_steady_memory.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/memory_saving/rematerialization.hpp"
#include "schedules/registry.hpp"
#include "sim/engine/analytic_engine.hpp"
#include "sim/exact_period.hpp"
#include "tests/patterns/pattern_simulation_check.hpp"
#include "tests/patterns/test_pattern_fixtures.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::memory_saving {
namespace {

constexpr double kUnit = 1e6;  // bytes per size unit: sizes are whole units, so the grid is exact

struct Case {
  Workload workload;
  std::vector<int> device;  // per layer
};

// 5-10 random layers (forward 1-5 s, backward 1-8 s, 1-3 units) on `devices`
// devices of 1 Tf, in even runs or (one case in three) each on a random
// device (several stages per device), at least two devices used.
Case random_case(std::mt19937& rng, int devices) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int L = pick(5, 10);
  std::vector<double> f, b, a, w;
  for (int l = 0; l < L; ++l) {
    f.push_back(pick(1, 5));
    b.push_back(pick(1, 8));
    a.push_back(pick(1, 3) * kUnit);
    w.push_back(pick(1, 4) * kUnit);
  }
  Case c{testing::chain_workload(f, b, a, pick(1, 3) * kUnit, w), {}};
  const bool contiguous = pick(0, 2) > 0;
  for (int l = 0; l < L; ++l) c.device.push_back(contiguous ? l * devices / L : pick(0, devices - 1));
  if (std::count(c.device.begin(), c.device.end(), c.device[0]) == L) c.device[L - 1] = (c.device[0] + 1) % devices;
  std::string allocation;
  for (int d : c.device) allocation += (allocation.empty() ? "" : ",") + std::to_string(d);
  c.workload.schedule = "kfkb";
  c.workload.schedule_params = {{"k", std::to_string(pick(1, 3))}, {"allocation", allocation}};
  if (pick(0, 1)) c.workload.schedule_params["memory_policy"] = "seed000";
  c.workload.microbatches = 4;
  return c;
}

// Seed 000's chain of each maximal run of layers on one device, without
// what crosses devices (δ^0; a^L and δ^L but on the last stage).
std::vector<Chain> stage_chains(const Case& c) {
  const Workload& w = c.workload;
  const std::size_t L = w.layers.size();
  std::vector<Chain> chains;
  for (std::size_t l = 0; l < L; ++l) {
    if (l == 0 || c.device[l] != c.device[l - 1]) {
      chains.emplace_back();
      chains.back().input_size = l == 0 ? w.input : w.layers[l - 1].activation;
    }
    ChainLayer layer;
    layer.forward_time = w.layers[l].forward.value;
    layer.backward_time = w.layers[l].backward.value;
    const bool sent = l + 1 < L && c.device[l + 1] != c.device[l];
    layer.output_size = layer.tape_size = layer.gradient_size = sent ? 0 : w.layers[l].activation;
    chains.back().layers.push_back(layer);
  }
  return chains;
}

// 40 random cases, each stage at its least limit (plus 0-1 unit): each
// stage's program runs in place of its ops, the exact period
// is the simulated steady state, the analytic peak of every device is the
// simulated one over the steady-state window, everything allocated is freed.
TEST(MemorySavingPattern, RandomPatternsKeepTheirExactPeriodAndAnalyticPeak) {
  std::mt19937 rng(27);
  int recomputes = 0, programmed_stages = 0, recomputing_stages = 0;
  for (int n = 0; n < 40; ++n) {
    const int devices = 2 + n % 2;
    const Platform platform = testing::pattern_platform(devices, 0, 1e9);
    Case c = random_case(rng, devices);
    for (const Chain& chain : stage_chains(c)) {
      MemorySaving option;
      option.policy = "remat";
      option.limit = min_feasible_limit(chain) + std::uniform_int_distribution<int>(0, 1)(rng) * kUnit;
      option.slots = static_cast<int>(std::llround(option.limit / kUnit));
      c.workload.memory_saving_stages.push_back(option);
    }
    const std::string what = "case " + std::to_string(n);
    const GeneratedSchedule schedule = generate(c.workload, platform);
    ASSERT_TRUE(schedule.pattern && schedule.pattern_timing) << what;
    const Pattern& p = *schedule.pattern;
    const PatternTiming& timing = *schedule.pattern_timing;
    programmed_stages += static_cast<int>(schedule.memory_saving.size());
    ASSERT_EQ(schedule.memory_saving.size(), c.workload.memory_saving_stages.size()) << what;
    std::vector<int> stage_of;  // per layer
    for (std::size_t l = 0; l < c.device.size(); ++l)
      stage_of.push_back(l == 0 ? 0 : stage_of.back() + (c.device[l] != c.device[l - 1]));
    for (const StageMemorySaving& m : schedule.memory_saving) {
      EXPECT_LE(m.bytes, c.workload.memory_saving_stages[m.stage].limit) << what;
      EXPECT_GE(m.seconds, m.baseline_seconds) << what;
      recomputing_stages += m.recomputed > 0;
      // The stage's ops of one copy last the program's makespan (compute back to back).
      double busy = 0;
      for (std::size_t x = 0; x < p.ops.size(); ++x)
        busy += p.ops[x].copy == 0 && stage_of[p.ops[x].layer] == m.stage ? timing.duration[x] : 0;
      EXPECT_NEAR(busy, m.seconds, 1e-9 * m.seconds) << what << " stage " << m.stage;
    }
    std::map<std::pair<int, int>, double> sums;
    for (const TaskMemoryEffect& e : schedule.graph.memory_effects())
      sums[{e.device, static_cast<int>(e.category)}] += e.bytes;
    for (const auto& [key, sum] : sums) EXPECT_NEAR(sum, 0, 1e-3) << what << " device " << key.first;
    for (const Task& task : schedule.graph.tasks()) recomputes += task.kind == TaskKind::Recompute;

    // The steady state, as tests/patterns/pattern_simulation_check.hpp measures it.
    const SteadyRange range = steady_range(p);
    const int microbatches = std::max(steady_microbatches(p, range),
                                      testing::steady_state_microbatches(p, testing::kFirstPeriod, testing::kWindow));
    const TimedUnroll u = unroll_pattern_timed(p, timing, devices, microbatches);
    const AnalyticOutcome run = run_analytic(u.graph, platform);
    ASSERT_TRUE(run.timeline) << what << ": " << run.refusal;
    ASSERT_TRUE(run.timeline->completed()) << what;
    const double exact = exact_period(pattern_event_graph(p, timing)).period;
    const int k = p.copies;
    const double simulated = k * steady_time_per_microbatch(u.graph, *run.timeline, 0, k * testing::kFirstPeriod,
                                                            k * (testing::kFirstPeriod + testing::kWindow));
    EXPECT_NEAR(simulated / exact, 1, 1e-6) << what;
    const std::vector<DevicePeak> peaks = testing::steady_peaks(u, *run.timeline, range);
    const PatternMemory analytic = pattern_memory(p, timing, c.workload, devices);
    for (int d = 0; d < devices; ++d)
      EXPECT_NEAR(peaks[d].total, analytic.devices[d].peak, 1e-9 * analytic.devices[d].peak) << what << " device " << d;
  }
  EXPECT_GT(programmed_stages, 100);
  EXPECT_GT(recomputing_stages, 15);  // a stage of one layer, or with room to keep its inputs, recomputes nothing
  EXPECT_GT(recomputes, 150);
}

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";
const std::string kExample = "workloads/examples/kfkb-remat.yaml";

// docs/memory-saving.md's example: kfkb alone runs out of memory on gpu0,
// with remat it fits, and the summary is the documented one.
TEST(MemorySavingPattern, TheDocumentedExampleFitsWhereKfkbAloneDoesNot) {
  const std::string platform = kRoot + "platforms/complete-4.xml";
  const auto saving = testing::run_pipesim("run " + platform + " " + kRoot + kExample);
  ASSERT_EQ(saving.exit_code, 0) << saving.err;
  EXPECT_NE(testing::read_text(kRoot + "docs/memory-saving.md")
                .find("```\n$ pipesim run platforms/complete-4.xml " + kExample + "\n" + saving.out + "```"),
            std::string::npos)
      << saving.out;
  EXPECT_NE(saving.out.find("exact period          280.00 ms per 2 micro-batches"), std::string::npos);
  EXPECT_NE(saving.out.find("simulated period      280.00 ms per 2 micro-batches"), std::string::npos);
  const auto plain =
      testing::run_pipesim("run " + platform + " " + kRoot + kExample + " --set memory_saving.policy=none");
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_NE(plain.out.find("INVALID: out of memory on gpu0"), std::string::npos) << plain.out;
  // Four micro-batches: the run ends before some devices reach the steady state, and says so.
  const auto short_run = testing::run_pipesim("run " + platform + " " + kRoot + kExample + " --set microbatches=4");
  EXPECT_NE(short_run.out.find(" never reach it (too few micro-batches for the steady state)"), std::string::npos)
      << short_run.out;
}

// A pattern file keeps its offsets: with a limit that recomputes nothing it
// runs as without memory saving (the last stage's program also holds the
// loss gradient from its first forward); with one that recomputes, the
// tight offsets have no room, one line, exit 2.
TEST(MemorySavingPattern, APatternFileRunsItsProgramsWhereTheyFit) {
  const std::string platform = kRoot + "platforms/complete-4.xml";
  const std::string pattern = testing::temp_path("kfkb-remat-pattern.yaml");
  const auto exported = testing::run_pipesim("run " + platform + " " + kRoot + kExample +
                                             " --set memory_saving.policy=none --export-pattern " + pattern);
  ASSERT_EQ(exported.exit_code, 1) << exported.err;  // out of memory, written all the same
  const std::string head =
      "microbatches: 24\ninput: 512MiB\nlayers:\n  - {name: block, forward: 5ms, backward: 10ms, activation: 512MiB, "
      "weights: 128MiB, repeat: 32}\nschedule: {name: pattern, file: " +
      pattern + "}\n";
  const auto plain = testing::run_pipesim("run " + platform + " " + testing::write_file("plain.yaml", head));
  const std::string roomy = testing::write_file("roomy.yaml", head + "memory_saving: {policy: remat, limit: 6GiB}\n");
  const auto kept = testing::run_pipesim("run " + platform + " " + roomy);
  for (const char* line :
       {"exact period          240.00 ms", "simulated period      240.00 ms",
        "gpu0    384  2.88 s  617.70 ms  17.7 %    32.50 GiB", "gpu1    384  2.88 s  617.70 ms  17.7 %    25.50 GiB"}) {
    EXPECT_NE(plain.out.find(line), std::string::npos) << line << "\n" << plain.out;
    EXPECT_NE(kept.out.find(line), std::string::npos) << line << "\n" << kept.out;
  }
  EXPECT_NE(kept.out.find("0        gpu0   remat          7  6.00 GiB  120.00 ms     0.0 %"), std::string::npos)
      << kept.out;
  const std::string tight = testing::write_file("tight.yaml", head + "memory_saving: {policy: remat}\n");
  const auto refused = testing::run_pipesim("run " + platform + " " + tight);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, "pipesim: error: " + tight +
                             ": memory_saving: the pattern has no room for the recomputes: on gpu0, B4.c0 (start "
                             "0.08, lasts 0.03) overlaps B3.c0 (start 0.09)\n");
}

// Offloading does not fold into one op per layer: refused on patterns.
TEST(MemorySavingPattern, OffloadingIsRefusedOnPatterns) {
  const std::string workload =
      testing::write_file("kfkb-both.yaml",
                          "microbatches: 4\nschedule: {name: kfkb, k: 2}\nlayers:\n  - {forward: 1ms, backward: 2ms, "
                          "activation: 16MiB, repeat: 8}\nmemory_saving: {policy: both}\n");
  const auto r = testing::run_pipesim("run " + kRoot + "platforms/a100-8gpu-pcie-host.xml " + workload);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + workload +
                       ": memory_saving.policy: schedule 'kfkb' runs policy remat (or none), not both: offloading is "
                       "run by gpipe and 1f1b\n");
}

}  // namespace
}  // namespace pipesim::memory_saving
