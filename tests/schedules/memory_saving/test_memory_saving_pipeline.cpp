// The workload's memory_saving option on flush pipelines
// (schedules/memory_saving/stage_programs): each stage runs seed 002's
// program in place of its forward and backward, in the time and memory the
// program predicts; budgets come from the in-flight micro-batches; an
// infeasible limit is one line and exit code 1.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>

#include "analysis/memory.hpp"
#include "schedules/memory_saving/offload_only.hpp"
#include "schedules/memory_saving/offloading.hpp"
#include "schedules/memory_saving/stage_programs.hpp"
#include "schedules/registry.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::memory_saving {
namespace {

constexpr double kUnit = 1e6;  // bytes per size unit
constexpr double kPcie = 2e6;  // bytes/s: two units per second

// `gpus` GPUs at 1 Gf/s in a line (fast links, latency 0), each with a PCIe
// link of kPcie to one host memory "mem".
std::string line_platform(int gpus) {
  pipesim::testing::PlatformXml x;
  for (int k = 0; k < gpus; ++k) x.host("gpu" + std::to_string(k), "1Gf", {{"memory", "1TiB"}});
  x.host("mem", "1Gf", {{"memory", "1TiB"}, {"kind", "host"}});
  for (int k = 0; k < gpus; ++k) {
    const std::string n = std::to_string(k);
    x.link("pcie" + n, "2MBps", "0s", "SPLITDUPLEX").route("gpu" + n, "mem", {{"pcie" + n, "UP"}});
    if (k + 1 < gpus)
      x.link("nv" + n, "1TBps", "0s", "SPLITDUPLEX")
          .route("gpu" + n, "gpu" + std::to_string(k + 1), {{"nv" + n, "UP"}});
  }
  return x.write("line.xml");
}

// A random chain of whole units: forward 1-5 s, backward 1-8 s, activations 1-3 units.
Workload random_workload(std::mt19937& rng, int layers) {
  auto pick = [&](int lo, int hi) { return static_cast<double>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  Workload w;
  w.file = "w.yaml";
  w.input = pick(1, 3) * kUnit;
  w.microbatches = 1;
  w.schedule = "gpipe";
  for (int l = 0; l < layers; ++l)
    w.layers.push_back(
        {"l" + std::to_string(l), {pick(1, 5) * 1e9, true}, {pick(1, 8) * 1e9, true}, pick(1, 3) * kUnit, 0});
  return w;
}

// The largest least-limit over the stages, plus `extra` units: one limit that
// every stage can meet, on an exact grid.
void set_limit(Workload& w, const Platform& p, const std::string& policy, double extra) {
  double least = 0;
  for (const Stage& st : make_stage_plan(w, p).stages) {
    const Chain c = stage_chain(w, p, st);
    least = std::max(least, policy == "both"      ? min_feasible_limit_offloading(c, kPcie)
                            : policy == "offload" ? min_feasible_limit_offload_only(c, kPcie)
                                                  : min_feasible_limit(c));
  }
  w.memory_saving.policy = policy;
  w.memory_saving.limit = least + extra * kUnit;
  w.memory_saving.slots = static_cast<int>(std::llround(w.memory_saving.limit / kUnit));
}

// One micro-batch through 3 stages of 15 random layers, at the largest of
// the stages' least limits (every stage saves memory): on each stage the GPU tasks
// of the forward phase and of the backward phase last, together, the
// program's makespan (remat: exactly; with offloading, a prefetch may end
// during the wait for the gradient, so at most, and exactly on the last
// stage, which does not wait), and the stage's activation memory peaks at
// the program's peak, within the limit.
void expect_stages_follow_their_programs(const std::string& policy, int* offloads) {
  Simulation sim(line_platform(3));
  const Platform& p = sim.platform();
  std::mt19937 rng(8);
  Workload w = random_workload(rng, 15);
  set_limit(w, p, policy, 0);
  const StagePlan plan = make_stage_plan(w, p);
  const GeneratedSchedule schedule = generate(w, p);
  ASSERT_EQ(schedule.memory_saving.size(), 3u);
  EXPECT_FALSE(schedule.pattern.has_value());
  const Timeline t = sim.run(schedule.graph);
  ASSERT_TRUE(t.completed());
  const std::vector<DevicePeak> peaks = peak_memory(schedule.graph, t);
  int recomputes = 0;
  *offloads = 0;
  for (const Task& task : schedule.graph.tasks()) {
    recomputes += task.kind == TaskKind::Recompute;
    *offloads += task.kind == TaskKind::Offload && task.amount > 0;
  }
  if (policy == "offload") {
    EXPECT_EQ(recomputes, 0);  // offloading alone never recomputes
  } else if (policy == "remat") {
    EXPECT_GT(recomputes, 0);
  }
  // Everything allocated is freed: effects sum to zero per device and category.
  std::map<std::pair<int, int>, double> sums;
  for (const TaskMemoryEffect& e : schedule.graph.memory_effects())
    sums[{e.device, static_cast<int>(e.category)}] += e.bytes;
  for (const auto& [key, sum] : sums) EXPECT_NEAR(sum, 0, 1e-3) << policy << " device " << key.first;
  for (int s = 0; s < 3; ++s) {
    const StageMemorySaving& m = schedule.memory_saving[s];
    const Stage& st = plan.stages[s];
    const std::string where = policy + " stage " + std::to_string(s);
    const auto& order = schedule.graph.device_order(st.device);
    std::size_t cut = 0;
    while (!(schedule.graph.task(order[cut]).kind == TaskKind::Forward &&
             schedule.graph.task(order[cut]).layer_last == st.last_layer))
      ++cut;
    const double span =
        (t.finish[order[cut]] - t.start[order.front()]) + (t.finish[order.back()] - t.start[order[cut + 1]]);
    if (policy == "remat" || s == 2)
      EXPECT_NEAR(span, m.seconds, 1e-6 * m.seconds) << where;
    else
      EXPECT_LE(span, m.seconds * (1 + 1e-6)) << where;
    const double activations = peaks[st.device].category_peaks[static_cast<int>(MemoryCategory::Activations)];
    EXPECT_NEAR(activations, m.bytes, 1e-6 * m.bytes) << where;
    EXPECT_LE(activations, w.memory_saving.limit) << where;
    EXPECT_LT(m.bytes, m.baseline_bytes) << where;  // the limit does bind
    EXPECT_GE(m.seconds, m.baseline_seconds) << where;
  }
}

TEST(MemorySavingPipeline, RematStagesFollowTheirPrograms) {
  int offloads = 0;
  expect_stages_follow_their_programs("remat", &offloads);
  EXPECT_EQ(offloads, 0);
}

TEST(MemorySavingPipeline, OffloadingStagesFollowTheirPrograms) {
  int offloads = 0;
  expect_stages_follow_their_programs("both", &offloads);
  EXPECT_GT(offloads, 0);
}

TEST(MemorySavingPipeline, OffloadAloneStagesFollowTheirPrograms) {
  int offloads = 0;
  expect_stages_follow_their_programs("offload", &offloads);
  EXPECT_GT(offloads, 0);
}

// limit auto: (memory - weights - gradients - a send and a receive buffer
// each way to each neighbour) / in-flight micro-batches: S - s for 1F1B, M
// for GPipe.
TEST(MemorySavingPipeline, AutoLimitDividesByInFlightMicrobatches) {
  Platform p;
  p.file = "p.xml";
  for (int i = 0; i < 3; ++i) p.devices.push_back({"gpu" + std::to_string(i), 1e9, 1e9, "gpu"});
  p.devices.push_back({"mem", 1e9, 1e12, kHostMemoryKind});
  p.paths.assign(16, Path{true, 0, 1e9, 1});
  Workload w;
  w.file = "w.yaml";
  w.input = 1e6;
  w.microbatches = 5;
  for (int l = 0; l < 6; ++l) w.layers.push_back({"l", {1e9, true}, {2e9, true}, 2e6, 1e7});
  w.memory_saving.policy = "remat";
  for (const std::string schedule : {"1f1b", "gpipe"}) {
    w.schedule = schedule;
    const GeneratedSchedule g = generate(w, p);
    const StagePlan plan = make_stage_plan(w, p);
    ASSERT_EQ(g.memory_saving.size(), 3u);
    for (int s = 0; s < 3; ++s) {
      const Stage& st = plan.stages[s];
      const int flight = schedule == "gpipe" ? 5 : 3 - s;
      EXPECT_EQ(g.memory_saving[s].in_flight, flight) << schedule << s;
      const double buffers = (s > 0 ? 2 * st.input_bytes : 0) + (s < 2 ? 2 * st.output_bytes : 0);
      EXPECT_DOUBLE_EQ(g.memory_saving[s].limit, (1e9 - 2 * st.weight_bytes - buffers) / flight) << schedule << s;
      EXPECT_EQ(g.memory_saving[s].recomputed, 0) << schedule << s;  // the budget is roomy
    }
  }
  EXPECT_EQ(in_flight({{TaskKind::Forward, 0},
                       {TaskKind::Forward, 1},
                       {TaskKind::Backward, 0},
                       {TaskKind::Forward, 2},
                       {TaskKind::Backward, 1},
                       {TaskKind::Backward, 2}}),
            2);
}

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

std::string tiny_with(const std::string& option) {
  return pipesim::testing::write_file("ms.yaml",
                                      "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 16MiB, "
                                      "weights: 64MiB, repeat: 8}\nmemory_saving: " +
                                          option + "\n");
}

// Below what any sequence needs: one line naming the smallest limit, exit 1,
// nothing on stdout, no output file.
TEST(MemorySavingPipeline, InfeasibleLimitIsOneLineAndExitOne) {
  using pipesim::testing::run_pipesim;
  const std::string workload = tiny_with("{policy: remat, limit: 40MiB}");
  const std::string json = pipesim::testing::temp_path("ms.json");
  const auto r = run_pipesim("run " + kRoot + "platforms/a100-8gpu-pcie-host.xml " + workload + " --json " + json);
  EXPECT_EQ(r.exit_code, 1);
  // Stage 0 fits (no input: 32 MiB); stage 1 is the first that does not, and
  // needs a^0, δ^L, ā^1 and δ^0 at once: 4 x 16 MiB, as much as any stage.
  EXPECT_EQ(r.err, "pipesim: infeasible: " + workload +
                       ": memory_saving.limit: stage 1 (gpu1) needs at least 67108864 bytes (64.00 MiB) per "
                       "micro-batch (policy remat, 500 slots), the limit is 41943040 bytes (40.00 MiB)\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(json));
  // Offloading alone keeps a^0 and two tapes at least: the same 64 MiB here.
  const std::string alone = tiny_with("{policy: offload, limit: 40MiB}");
  const auto o = run_pipesim("run " + kRoot + "platforms/a100-8gpu-pcie-host.xml " + alone + " --json " + json);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.err, "pipesim: infeasible: " + alone +
                       ": memory_saving.limit: stage 1 (gpu1) needs at least 67108864 bytes (64.00 MiB) per "
                       "micro-batch (policy offload, 500 slots), the limit is 41943040 bytes (40.00 MiB)\n");
  EXPECT_EQ(o.out, "");
  EXPECT_FALSE(std::filesystem::exists(json));
  // auto: the device is too small for its in-flight micro-batches.
  const std::string small = pipesim::testing::write_file(
      "small.xml", pipesim::testing::read_text(kRoot + "platforms/a100-8gpu-pcie-host.xml"));
  std::string xml = pipesim::testing::read_text(small);
  for (std::size_t at; (at = xml.find("80GiB")) != std::string::npos;) xml.replace(at, 5, "256MiB");
  std::ofstream(small) << xml;
  const auto a = run_pipesim("run " + small + " " + tiny_with("{policy: remat, limit: auto}"));
  EXPECT_EQ(a.exit_code, 1);
  EXPECT_EQ(a.err.rfind("pipesim: infeasible: ", 0), 0u) << a.err;
  // 256 MiB - 2 x 64 MiB weights and gradients - 2 x 16 MiB buffers, over 4: 24 MiB < 32 MiB.
  EXPECT_EQ(a.err, "pipesim: infeasible: " + pipesim::testing::temp_path("ms.yaml") +
                       ": memory_saving.limit: stage 0 (gpu0) needs at least 33554432 bytes (32.00 MiB) per "
                       "micro-batch (policy remat, 500 slots), the limit is 25165824 bytes (24.00 MiB) (auto: "
                       "256.00 MiB minus 160.00 MiB static and buffers, over 4 micro-batches in flight)\n");
}

// A grid of a few slots fails at every limit (its cells grow with the
// limit): the line says so and names slots, not a limit that fails too.
TEST(MemorySavingPipeline, TooFewSlotsNameNoLimit) {
  using pipesim::testing::run_pipesim;
  const std::string workload = kRoot + "workloads/examples/gpt2-xl-layers.yaml";
  for (const int slots : {1, 2, 3}) {
    const auto r = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + workload +
                               " --set memory_saving.policy=remat --set memory_saving.slots=" + std::to_string(slots));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err,
              "pipesim: infeasible: " + workload + ": memory_saving.slots: no limit works for stage 0 (gpu0) with " +
                  std::to_string(slots) +
                  " slots (policy remat): the memory grid is too coarse for its layers; raise slots (default 500)\n");
    EXPECT_EQ(r.out, "");
  }
}

// The A100 box with 150 MiB GPUs, 64 layers of 4 MiB activations, 1F1B with
// 4 micro-batches: keeping everything runs out of memory; remat with limit
// auto fits, 4 stages at +25 % per micro-batch; offloading alone fits with
// no overhead (4 MiB moves in 0.17 ms beside 1 ms forwards), its offloaded
// bytes appear as host-memory's series, and both chooses it.
TEST(MemorySavingPipeline, AutoBudgetsMakeAnOversizedPipelineFit) {
  using pipesim::testing::read_text;
  using pipesim::testing::run_pipesim;
  std::string xml = read_text(kRoot + "platforms/a100-8gpu-pcie-host.xml");
  for (std::size_t at; (at = xml.find("80GiB")) != std::string::npos;) xml.replace(at, 5, "150MiB");
  const std::string platform = pipesim::testing::write_file("small150.xml", xml);
  auto run = [&](const std::string& policy, const std::string& extra) {
    const std::string w = pipesim::testing::write_file(
        "fit.yaml",
        "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 4MiB, weights: 1MiB, "
        "repeat: 64}\nmemory_saving: {policy: " +
            policy + "}\n");
    return run_pipesim("run " + platform + " " + w + " " + extra);
  };
  const auto none = run("none", "--quiet");
  EXPECT_EQ(none.exit_code, 1);
  const auto remat = run("remat", "");
  EXPECT_EQ(remat.exit_code, 0) << remat.err;
  EXPECT_NE(remat.out.find("verdict               VALID"), std::string::npos) << remat.out;
  EXPECT_NE(remat.out.find("  1        gpu1   remat          4   29.50 MiB  30.00 ms    25.0 %  28.00 MiB  36.4 %"
                           "           6  0\n"),
            std::string::npos)
      << remat.out;
  const std::string csv = pipesim::testing::temp_path("fit.csv"), json = pipesim::testing::temp_path("fit.json");
  const auto offload = run("offload", "--quiet --memory-trace " + csv + " --json " + json);
  EXPECT_EQ(offload.exit_code, 0) << offload.err;
  EXPECT_NE(read_text(csv).find("\n0.002,host-memory,activations,8388608\n"), std::string::npos);
  const nlohmann::json report = pipesim::testing::read_json(json);
  const nlohmann::json& saving = report.at("memory_saving");
  const auto stage1 =
      std::find_if(saving.begin(), saving.end(), [](const nlohmann::json& s) { return s.at("stage") == 1; });
  ASSERT_NE(stage1, saving.end()) << report;
  const nlohmann::json expected = {
      {"device", "gpu1"}, {"policy", "offload"},    {"in_flight", 4},          {"limit", 30932992},
      {"time", 0.024},    {"baseline_time", 0.024}, {"peak_memory", 29360128}, {"baseline_peak_memory", 46137344},
      {"recomputed", 0},  {"offloaded", 4}};
  for (auto field = expected.begin(); field != expected.end(); ++field)
    EXPECT_EQ(stage1->at(field.key()), field.value()) << field.key() << ": " << *stage1;
  // both: the faster of its two programs, here offloading alone.
  const auto both = run("both", "");
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("  1        gpu1    both          4   29.50 MiB  24.00 ms     0.0 %  28.00 MiB  36.4 %"
                          "           0  4\n"),
            std::string::npos)
      << both.out;
}

// limit fit: one micro-batch at its peak beside the others waiting between
// their phases. With 120 MiB GPUs, auto gives stage 1 a quarter of what is
// free (22 MiB: +112.5 %, 111.81 ms per micro-batch), fit 28.17 MiB (+41.7 %,
// 80.56 ms), and both runs are valid; with 90 MiB, fit is infeasible.
TEST(MemorySavingPipeline, FitBudgetsCountTheWaitingMicrobatches) {
  using pipesim::testing::read_text;
  using pipesim::testing::run_pipesim;
  std::string xml = read_text(kRoot + "platforms/a100-8gpu-pcie-host.xml");
  for (std::size_t at; (at = xml.find("80GiB")) != std::string::npos;) xml.replace(at, 5, "120MiB");
  const std::string platform = pipesim::testing::write_file("small120.xml", xml);
  auto run = [&](const std::string& limit) {
    const std::string w = pipesim::testing::write_file(
        "fit120.yaml",
        "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 4MiB, weights: 1MiB, "
        "repeat: 64}\nmemory_saving: {policy: remat, limit: " +
            limit + "}\n");
    return run_pipesim("run " + platform + " " + w);
  };
  const auto automatic = run("auto");
  EXPECT_EQ(automatic.exit_code, 0) << automatic.err;
  EXPECT_NE(automatic.out.find("time per micro-batch  111.81 ms\n"), std::string::npos) << automatic.out;
  EXPECT_NE(automatic.out.find("  1        gpu1   remat          4  22.00 MiB  51.00 ms   112.5 %  20.00 MiB  54.5 %"
                               "          27  0\n"),
            std::string::npos)
      << automatic.out;
  const auto fit = run("fit");
  EXPECT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("verdict               VALID"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("time per micro-batch  80.56 ms\n"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("  1        gpu1   remat          4  28.17 MiB  34.00 ms    41.7 %  24.00 MiB  45.5 %"
                         "          10  0\n"),
            std::string::npos)
      << fit.out;
  const auto too_small = [&] {
    std::string tiny = xml;
    for (std::size_t at; (at = tiny.find("120MiB")) != std::string::npos;) tiny.replace(at, 6, "90MiB");
    const std::string p = pipesim::testing::write_file("small90.xml", tiny);
    const std::string w = pipesim::testing::write_file(
        "fit90.yaml",
        "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 4MiB, weights: 1MiB, "
        "repeat: 64}\nmemory_saving: {policy: remat, limit: fit}\n");
    return run_pipesim("run " + p + " " + w);
  }();
  EXPECT_EQ(too_small.exit_code, 1);
  EXPECT_EQ(too_small.err.rfind("pipesim: infeasible: ", 0), 0u) << too_small.err;
  EXPECT_NE(too_small.err.find(" micro-batches in flight (policy remat, 500 slots), the device has "),
            std::string::npos)
      << too_small.err;
}

// One entry per stage: only gpu1..gpu4 run out of memory in the plain run,
// so only they save; a list of the wrong length is an input error.
TEST(MemorySavingPipeline, PerStageOptions) {
  using pipesim::testing::read_text;
  using pipesim::testing::run_pipesim;
  std::string xml = read_text(kRoot + "platforms/a100-8gpu-pcie-host.xml");
  for (std::size_t at; (at = xml.find("80GiB")) != std::string::npos;) xml.replace(at, 5, "150MiB");
  const std::string platform = pipesim::testing::write_file("per150.xml", xml);
  auto run = [&](const std::string& option) {
    const std::string w = pipesim::testing::write_file(
        "per.yaml",
        "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 4MiB, weights: 1MiB, "
        "repeat: 64}\nmemory_saving: " +
            option + "\n");
    return std::make_pair(w, run_pipesim("run " + platform + " " + w));
  };
  const std::string none = "{policy: none}", remat = "{policy: remat}";
  const auto [w, r] = run("[" + none + ", " + remat + ", " + remat + ", " + remat + ", {policy: both, limit: fit}, " +
                          none + ", " + none + ", " + none + "]");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("verdict               VALID"), std::string::npos) << r.out;
  const std::string table = r.out.substr(r.out.find("memory saving"));
  EXPECT_EQ(
      table.substr(0, table.find("\n\n")),
      "memory saving (one micro-batch per stage, against keeping every activation)\n"
      "  stage  device  policy  in flight      limit      time  overhead       peak   saved  recomputed  offloaded\n"
      "  1        gpu1   remat          4  29.50 MiB  30.00 ms    25.0 %  28.00 MiB  36.4 %           6  0\n"
      "  2        gpu2   remat          4  29.50 MiB  30.00 ms    25.0 %  28.00 MiB  36.4 %           6  0\n"
      "  3        gpu3   remat          4  29.50 MiB  30.00 ms    25.0 %  28.00 MiB  36.4 %           6  0\n"
      "  4        gpu4    both          4  32.26 MiB  24.00 ms     0.0 %  28.00 MiB  36.4 %           0  4");
  const auto [w3, three] = run("[" + remat + ", " + remat + ", " + remat + "]");
  EXPECT_EQ(three.exit_code, 2);
  EXPECT_EQ(three.err, "pipesim: error: " + w3 +
                           ": memory_saving: 3 entries for 8 stages: give one per stage, or a single map for all\n");
}

// Only the flush schedules run the option; the others refuse it.
TEST(MemorySavingPipeline, OtherSchedulesRefuseTheOption) {
  const std::string workload = pipesim::testing::write_file(
      "pipedream.yaml",
      "microbatches: 4\nschedule: {name: pipedream}\nlayers:\n  - {forward: 1ms, backward: 2ms, "
      "activation: 16MiB, repeat: 8}\nmemory_saving: {policy: remat}\n");
  const auto r = pipesim::testing::run_pipesim("run " + kRoot + "platforms/a100-8gpu-pcie-host.xml " + workload);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + workload +
                       ": memory_saving: schedule 'pipedream' does not run memory saving (supported: 1f1b, "
                       "1f1b-pattern, gpipe, kfkb, pattern)\n");
}

// A schedule told to use host memory (here kfkb's allocation: device 8 is
// host-memory) is refused, whatever the family.
TEST(MemorySavingPipeline, NoScheduleComputesOnHostMemory) {
  const std::string workload =
      pipesim::testing::write_file("alloc.yaml",
                                   "microbatches: 4\nschedule: {name: kfkb, k: 1, allocation: \"0,8\"}\nlayers:\n"
                                   "  - {forward: 1ms, backward: 2ms, activation: 16MiB, repeat: 2}\n");
  const auto r = pipesim::testing::run_pipesim("run " + kRoot + "platforms/a100-8gpu-pcie-host.xml " + workload);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + workload +
                       ": schedule: schedule 'kfkb' puts a forward on 'host-memory', which is host memory (kind host) "
                       "and runs no stage; place the stages on compute devices\n");
}

// A model's stages (GPT-2 XL on 8 A100s of 20 GiB, PP 4 x DP 2): their
// budgets leave out the training state too (gradients, Adam's state, the
// reserve), so the stages that rematerialize fit, under fit and auto, on
// 1F1B and on kFkB. Before, the budget counted weights and one gradient
// buffer only, and every saving stage overflowed (20.05-20.31 GiB).
TEST(MemorySavingPipeline, AModelsStagesBudgetForItsTrainingState) {
  std::string xml = pipesim::testing::read_text(kRoot + "platforms/a100-8gpu-pcie-host.xml");
  for (std::size_t at = 0; (at = xml.find("value=\"80GiB\"", at)) != std::string::npos;)
    xml.replace(at, 13, "value=\"20GiB\"");
  const std::string platform = pipesim::testing::write_file("a100-20g.xml", xml);
  const std::string model = kRoot + "workloads/examples/gpt2-xl.yaml";
  const std::string layout =
      " --set parallel.pp=4 --set parallel.dp=2 --set model.microbatch_size=8 --set microbatches=8";
  for (const std::string schedule : {"1f1b", "kfkb --set schedule.k=1"})
    for (const char* limit : {"fit", "auto"}) {
      const std::string saving = std::string("[{policy: remat, limit: ") + limit +
                                 "}, {policy: remat, limit: " + limit + "}, {policy: none}, {policy: none}]";
      const std::string json = pipesim::testing::temp_path("model-" + schedule.substr(0, 4) + limit + ".json");
      const auto plain = pipesim::testing::run_pipesim("run " + platform + " " + model + layout +
                                                       " --set schedule=" + schedule + " --quiet");
      EXPECT_EQ(plain.exit_code, 1) << schedule << ": without saving its first stages are over memory";
      const auto r =
          pipesim::testing::run_pipesim("run " + platform + " " + model + layout + " --set schedule=" + schedule +
                                        " --set \"memory_saving=" + saving + "\" --json " + json);
      ASSERT_EQ(r.exit_code, 0) << schedule << " " << limit << ": " << r.out << r.err;
      const auto report = pipesim::testing::read_json(json);
      EXPECT_TRUE(report["valid"].get<bool>()) << schedule << " " << limit;
      EXPECT_NE(r.out.find("  1        gpu2   remat"), std::string::npos) << r.out;  // the job's device
    }
}

// GPUs of 150 MiB joined pairwise, GPU k with a PCIe link to host memory HOSTS[k].
std::string boxes_with_host_memory(const std::vector<std::string>& hosts, const std::string& name) {
  pipesim::testing::PlatformXml x;
  const int n = static_cast<int>(hosts.size());
  for (int k = 0; k < n; ++k) x.host("gpu" + std::to_string(k), "1Tf", {{"memory", "150MiB"}});
  for (const std::string& h : std::set<std::string>(hosts.begin(), hosts.end()))
    x.host(h, "1Gf", {{"memory", "1TiB"}, {"kind", "host"}});
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const std::string id = "l" + std::to_string(i) + "-" + std::to_string(j);
      x.link(id, "100GBps", "0s", "SPLITDUPLEX")
          .route("gpu" + std::to_string(i), "gpu" + std::to_string(j), {{id, "UP"}});
    }
  for (int k = 0; k < n; ++k)
    x.link("pcie" + std::to_string(k), "25GBps", "0s", "SPLITDUPLEX")
        .route("gpu" + std::to_string(k), hosts[k], {{"pcie" + std::to_string(k), "UP"}});
  return x.write(name);
}

// Offloading in a parallel job (docs/memory-saving.md): a job of one
// pipeline is the pipeline run, byte for byte; with two replicas on two
// boxes each replica offloads to its own box's host memory, which then holds
// what the one pipeline's host held. Boxes whose GPUs do not share hosts
// as the first replica's do are one error line.
TEST(MemorySavingPipeline, AParallelJobOffloadsToEachReplicasHost) {
  using pipesim::testing::run_pipesim;
  const std::string workload = pipesim::testing::write_file(
      "offload-job.yaml",
      "microbatches: 4\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: 4MiB, weights: 1MiB, repeat: 32}\n"
      "memory_saving: [{policy: both, limit: fit}, {policy: none}, {policy: none}, {policy: none}]\n");
  const std::string one = boxes_with_host_memory({"memA", "memA", "memA", "memA"}, "one-box.xml");
  const std::string pipeline = pipesim::testing::temp_path("offload-pipeline.json"),
                    job = pipesim::testing::temp_path("offload-job.json");
  ASSERT_EQ(run_pipesim("run " + one + " " + workload + " --quiet --json " + pipeline).exit_code, 0);
  ASSERT_EQ(run_pipesim("run " + one + " " + workload + " --set parallel.pp=4 --quiet --json " + job).exit_code, 0);
  EXPECT_EQ(pipesim::testing::read_text(job), pipesim::testing::read_text(pipeline));
  const auto alone = pipesim::testing::read_json(pipeline);
  ASSERT_EQ(alone["devices"][4]["name"], "memA");
  const double held = alone["devices"][4]["peak_memory"].get<double>();
  EXPECT_EQ(held, 48.0 * 1024 * 1024) << "three offloads of 4 micro-batches' tapes";

  const std::string two =
      boxes_with_host_memory({"memA", "memA", "memA", "memA", "memB", "memB", "memB", "memB"}, "two-boxes.xml");
  const std::string replicas = pipesim::testing::temp_path("offload-replicas.json");
  const auto r =
      run_pipesim("run " + two + " " + workload +
                  " --set parallel.pp=4 --set parallel.dp=2 --set parallel.order=pp-tp-dp --json " + replicas);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not folded: the pipeline moves data to host memory"), std::string::npos) << r.out;
  const auto both = pipesim::testing::read_json(replicas);
  ASSERT_EQ(both["devices"][8]["name"], "memA");
  ASSERT_EQ(both["devices"][9]["name"], "memB");
  EXPECT_EQ(both["devices"][8]["peak_memory"].get<double>(), held);
  EXPECT_EQ(both["devices"][9]["peak_memory"].get<double>(), held);
  EXPECT_EQ(both["devices"][4]["peak_memory"], both["devices"][0]["peak_memory"]);

  const std::string odd =
      boxes_with_host_memory({"memA", "memA", "memA", "memA", "memA", "memA", "memB", "memB"}, "odd-boxes.xml");
  const auto e = run_pipesim("run " + odd + " " + workload +
                             " --set parallel.pp=4 --set parallel.dp=2 --set parallel.order=pp-tp-dp");
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_EQ(e.err, "pipesim: error: " + workload +
                       ": memory_saving: the GPUs of TP rank 0, replica 1 offload to different hosts where the first "
                       "replica's share memA: give a platform whose boxes are alike\n");
}

// Offloading needs host memory routed from the GPU: an input error otherwise.
TEST(MemorySavingPipeline, OffloadingWithoutHostMemoryIsAnInputError) {
  const std::string workload = tiny_with("{policy: both}");
  const auto r = pipesim::testing::run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " + workload);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + workload +
                       ": memory_saving.policy: both offloads to host memory, but platform " + kRoot +
                       "platforms/nvswitch-4gpu.xml routes no host of kind host to gpu0\n");
  const std::string alone = tiny_with("{policy: offload}");
  const auto o = pipesim::testing::run_pipesim("run " + kRoot + "platforms/nvswitch-4gpu.xml " + alone);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err, "pipesim: error: " + alone +
                       ": memory_saving.policy: offload moves activations to host memory, "
                       "but platform " +
                       kRoot + "platforms/nvswitch-4gpu.xml routes no host of kind host to gpu0\n");
}

}  // namespace
}  // namespace pipesim::memory_saving
