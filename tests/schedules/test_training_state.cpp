// Each part of a device's memory beyond the pipeline's own (a stash larger
// than the layer's input, workspaces, gradients at their precision,
// optimizer state, the runtime reserve) and the optimizer step, through
// `pipesim run` (schedules/training_state.cpp, docs/memory-model.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "models/transformer.hpp"
#include "schedules/training_state.hpp"
#include "tests/support/cli_runner.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim::testing {
namespace {

// Two devices joined by one link; memory and memory bandwidth given.
std::string two_gpu_platform(const std::string& memory, const std::string& bandwidth = "1.4GBps") {
  return write_file("two-gpu-" + memory + ".xml",
                    complete_platform_xml(2, "1GBps", "0s", "1Tf", memory, {{"memory_bandwidth", bandwidth}}));
}

// Layer a on gpu0 (50 M parameters), layer b on gpu1 (100 M), GPipe, two micro-batches.
std::string workload(const std::string& optimizer, const std::string& extra = "",
                     const std::string& schedule = "gpipe") {
  return "microbatches: 2\ninput: 1MB\nschedule: " + schedule + "\n" + optimizer + extra +
         "layers:\n"
         "  - {name: a, forward: 1s, backward: 2s, activation: 10MB, weights: 100MB, stash: 50MB,\n"
         "     forward_workspace: 7MB, backward_workspace: 9MB}\n"
         "  - {name: b, forward: 1s, backward: 2s, activation: 10MB, weights: 200MB, stash: 30MB}\n";
}

nlohmann::json run_json(const std::string& platform, const std::string& workload_text, const std::string& name) {
  const std::string w = write_file(name + ".yaml", workload_text), json = temp_path(name + ".json");
  const CliResult r = run_pipesim("run " + platform + " " + w + " --quiet --json " + json);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  return nlohmann::json::parse(read_text(json));
}

// The two-device workload with EXTRA is refused: exit 2, one error line
// naming the file (and a line of it when AT_LINE) and MESSAGE, no report.
void expect_refused(const std::string& platform, const std::string& extra, const std::string& message, bool at_line,
                    const std::string& schedule = "gpipe") {
  const std::string w = write_file("bad.yaml", workload(extra, "", schedule)), json = temp_path("bad.json");
  const CliResult r = run_pipesim("run " + platform + " " + w + " --json " + json);
  EXPECT_EQ(r.exit_code, 2) << extra;
  EXPECT_NE(r.err.find("pipesim: error: " + w + (at_line ? ": line " : ": ")), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(json));
}

// A tiny GPT whose LM head is tied to its embedding (V = 1000, h = 64, no
// position table: 64,000 tied parameters, 128,000 bytes of bf16 gradient).
std::string tied_model(bool tied, int stages) {
  return "name: tiny\nmodel: {layers: 2, hidden: 64, heads: 2, vocab: 1000, seq_length: 16, learned_positions: false, "
         "tied_embeddings: " +
         std::string(tied ? "true" : "false") +
         "}\nmicrobatches: 2\nschedule: gpipe\nplacement: {stages: " + std::to_string(stages) + "}\n";
}

// Megatron's embedding all-reduce: with the embedding and its tied head on
// two devices, the tied gradient is summed between them before their
// optimizer steps, a ring all-reduce of 2 ranks over their link. From the
// first stage's last backward on, the sum takes the ring's
// 2(n-1)a + 2(n-1)/n S/B = 2 ms + 0.128 ms. The last stage starts its half
// once its last send, the pipeline's last gradient transfer, is done (as
// Megatron's point-to-point waits on its request), so the two never share
// the link, and it is ready before the first stage's last backward ends.
// The iteration grows by the sum alone (the optimizer steps, at 1000 TB/s,
// take nanoseconds).
TEST(TrainingState, TiedEmbeddingsSumTheirGradientBetweenTheFirstAndLastStage) {
  const std::string platform = write_file(
      "tied-2.xml", complete_platform_xml(2, "1GBps", "1ms", "1Tf", "1TiB", {{"memory_bandwidth", "1000TBps"}}));
  const nlohmann::json tied = run_json(platform, tied_model(true, 2), "tied");
  const nlohmann::json untied = run_json(platform, tied_model(false, 2), "untied");
  const double S = 1000 * 64 * 2, sum = 2 * 1e-3 + S / 1e9;
  const nlohmann::json* c = find_purpose(tied, "tied embedding");
  ASSERT_NE(c, nullptr) << tied.dump();
  EXPECT_EQ((*c)["operation"], "all-reduce");
  EXPECT_EQ((*c)["group_size"], 2);
  EXPECT_EQ((*c)["calls"], 1);
  EXPECT_DOUBLE_EQ((*c)["bytes"].get<double>(), S);
  EXPECT_GE((*c)["time"].get<double>(), sum - 1e-12);
  EXPECT_NEAR(tied["makespan"].get<double>() - untied["makespan"].get<double>(), sum, 1e-8);
  EXPECT_EQ(find_purpose(untied, "tied embedding"), nullptr);
  // On one device the tied weights are one: nothing to sum.
  EXPECT_EQ(find_purpose(run_json(platform, tied_model(true, 1), "tied-one"), "tied embedding"), nullptr);
}

TEST(TrainingState, EachPartOfTheBreakdown) {
  const nlohmann::json j =
      run_json(two_gpu_platform("80GiB"),
               workload("optimizer: {name: adam, gradient_bytes: 4}\nmemory: {reserve: 5MB}\n"), "parts");
  const auto& gpu0 = j["devices"][0]["category_peaks"];
  EXPECT_DOUBLE_EQ(gpu0["weights"].get<double>(), 100e6);
  EXPECT_DOUBLE_EQ(gpu0["gradients"].get<double>(), 50e6 * 4);  // 50 M parameters (100 MB of bf16) x fp32
  EXPECT_DOUBLE_EQ(gpu0["optimizer"].get<double>(), 50e6 * 12);
  EXPECT_DOUBLE_EQ(gpu0["runtime"].get<double>(), 5e6);
  EXPECT_DOUBLE_EQ(gpu0["activations"].get<double>(), 2 * 50e6);  // GPipe: both stashes before the first backward
  EXPECT_DOUBLE_EQ(gpu0["workspace"].get<double>(), 9e6);         // the larger of the two passes'
  const auto& gpu1 = j["devices"][1]["category_peaks"];
  EXPECT_DOUBLE_EQ(gpu1["optimizer"].get<double>(), 100e6 * 12);
  EXPECT_DOUBLE_EQ(gpu1["activations"].get<double>(), 2 * 30e6);
  EXPECT_DOUBLE_EQ(gpu1["workspace"].get<double>(), 0);
}

// What a stage that saves memory leaves out of its programs' budget
// (training_state_bytes): the state beyond the weights and an equal
// gradient buffer, exactly what the run's breakdown above holds there.
TEST(TrainingState, AStagesStateBytesAreWhatTheRunHoldsBeyondWeightsAndOneGradientBuffer) {
  const std::string path =
      write_file("state.yaml", workload("optimizer: {name: adam, gradient_bytes: 4}\nmemory: {reserve: 5MB}\n"));
  const Workload w = load_workload(path);
  EXPECT_DOUBLE_EQ(training_state_bytes(w, 0, 0), (50e6 * 4 - 100e6) + 50e6 * 12 + 5e6);
  EXPECT_DOUBLE_EQ(training_state_bytes(w, 1, 1), (100e6 * 4 - 200e6) + 100e6 * 12 + 5e6);
  EXPECT_DOUBLE_EQ(training_state_bytes(w, 0, 1), training_state_bytes(w, 0, 0) + training_state_bytes(w, 1, 1) - 5e6);
  const Workload sharded = load_workload(
      write_file("state-zero.yaml", workload("optimizer: {name: adam, distributed: true, data_parallel: 4}\n")));
  EXPECT_DOUBLE_EQ(training_state_bytes(sharded, 0, 0), sharded.runtime_reserve + 50e6 * 12 / 4);
  const Workload bare = load_workload(write_file("state-none.yaml", workload("")));
  EXPECT_DOUBLE_EQ(training_state_bytes(bare, 0, 1), std::max(0.0, bare.runtime_reserve));
}

TEST(TrainingState, DistributedOptimizerShardsTheState) {
  const nlohmann::json j = run_json(
      two_gpu_platform("80GiB"), workload("optimizer: {name: adam, distributed: true, data_parallel: 4}\n"), "zero1");
  EXPECT_DOUBLE_EQ(j["devices"][0]["category_peaks"]["optimizer"].get<double>(), 50e6 * 12 / 4);
  EXPECT_DOUBLE_EQ(j["devices"][0]["category_peaks"]["gradients"].get<double>(), 50e6 * 2);
}

// Without an optimizer nothing is added: the hand-written chain of old.
TEST(TrainingState, NoOptimizerKeepsTheOldAccounting) {
  const nlohmann::json j = run_json(two_gpu_platform("80GiB"), workload(""), "none");
  EXPECT_DOUBLE_EQ(j["devices"][0]["category_peaks"]["gradients"].get<double>(), 100e6);  // = weights
  EXPECT_DOUBLE_EQ(j["devices"][0]["category_peaks"]["optimizer"].get<double>(), 0);
}

// The step reads and writes 2 x 12 + 2 + 2 = 28 bytes per parameter at the
// memory bandwidth: gpu0's 50 M parameters take 1.4 GB / 1.4 GB/s = 1 s,
// after its last backward, which ends the GPipe iteration.
TEST(TrainingState, OptimizerStepClosesTheIteration) {
  const std::string platform = two_gpu_platform("80GiB");
  const double without = run_json(platform, workload(""), "plain")["makespan"].get<double>();
  const double with =
      run_json(platform, workload("optimizer: {name: adam, clip_grad: false}\n"), "adam")["makespan"].get<double>();
  EXPECT_NEAR(with - without, 1.0, 1e-9);
}

// Gradient clipping, the default (Megatron's clip_grad_norm): before the
// step each device reads its gradients for their norm (gpu0: 50 M x 2 bytes
// at 1.4 GB/s = 1/14 s; gpu1: 100 M, 1/7 s) and the norms are all-reduced,
// one fp32 over the 2 devices' ring: 2(n-1)/n S/B = 4 B / 1 GB/s. The
// all-reduce is a barrier: gpu1, done long before, waits for gpu0's norm,
// then both step, and gpu1's step (100 M parameters: 2 s) ends the
// iteration, which grows by gpu0's norm, the all-reduce and that step.
TEST(TrainingState, GradientClippingReadsTheGradientsAndAllReducesTheirNorm) {
  const std::string platform = two_gpu_platform("80GiB");
  const double without = run_json(platform, workload(""), "plain")["makespan"].get<double>();
  const nlohmann::json j = run_json(platform, workload("optimizer: adam\n"), "clipped");
  EXPECT_NEAR(j["makespan"].get<double>() - without, 1.0 / 14 + 4e-9 + 2.0, 1e-9);
  const nlohmann::json* norm = find_purpose(j, "gradient norm");
  ASSERT_NE(norm, nullptr) << j.dump();
  EXPECT_EQ((*norm)["calls"], 1);
  EXPECT_EQ((*norm)["group_size"], 2);
  EXPECT_DOUBLE_EQ((*norm)["bytes"].get<double>(), 4);
  // gpu1 is busy for its passes, its norm (1/7 s) and its step (2 s).
  const double plain_busy = run_json(platform, workload(""), "plain")["devices"][1]["busy_time"].get<double>();
  EXPECT_NEAR(j["devices"][1]["busy_time"].get<double>() - plain_busy, 1.0 / 7 + 2.0, 1e-9);
}

// Iterations with their optimizer steps. ZB-H2 on p = 4 devices, M = 8
// micro-batches, F = I = W = T = 1 s: one iteration without steps is the
// parallelogram 3MT + (p-1)T (Qi et al. 2024, section 3.1), stage i busy
// from iT to iT + 3MT. Each device reads its 1 M parameters' gradients for
// their norm (2 MB at 28 MB/s: n = 1/14 s) and steps (28 MB: u = 1 s).
// Megatron's clipped step waits for the norms' all-reduce: every iteration
// is the parallelogram, then n and u, 3MT + (p-1)T + n + u = 28 + 1/14 s.
// Post-validated (the zero-bubble runtime's), device i steps once its norm
// and the partial norm of device i-1 are there, at iT + 3MT + n + u, no
// later than its next forward (device 0's step, then i forwards): the next
// iteration's ramp overlaps this one's end and a steady iteration is
// 3MT + n + u = 25 + 1/14 s. The first ends as the clipped one does.
TEST(TrainingState, PostValidatedStepsLetIterationsOverlap) {
  const std::string platform =
      write_file("pv-4.xml", complete_platform_xml(4, "1PBps", "0s", "1Tf", "80GiB", {{"memory_bandwidth", "28MBps"}}));
  std::string layers = "layers:\n";
  for (int l = 0; l < 4; ++l)
    layers +=
        "  - {forward: 1s, backward: 2s, backward_input: 1s, backward_weight: 1s, activation: 1MB, weights: 2MB}\n";
  const double n = 1.0 / 14, first = 28 + n;
  for (const bool post : {false, true}) {
    const std::string optimizer = post ? "{name: adam, post_validation: true}" : "adam";
    const nlohmann::json j =
        run_json(platform,
                 "microbatches: 8\niterations: 3\ninput: 1MB\nschedule: zb-h2\noptimizer: " + optimizer + "\n" + layers,
                 post ? "post-validated" : "clipped");
    const double steady = post ? 25 + n : 28 + n;
    EXPECT_NEAR(j["steady_iteration_time"].get<double>(), steady, 1e-6) << post;
    EXPECT_NEAR(j["makespan"].get<double>(), first + 2 * steady, 1e-6) << post;
    EXPECT_NEAR(j["iteration_time"].get<double>(), (first + 2 * steady) / 3, 1e-6) << post;
    // The norms' all-reduce (one per iteration) only when the steps wait for it.
    EXPECT_EQ(find_purpose(j, "gradient norm") == nullptr, post) << j.dump();
  }
}

// Where no step can run between iterations (a pattern's orders, PipeDream's
// one stream, a parallel job), or a parallel job would need its own
// post-validation, one error line.
TEST(TrainingState, IterationStepsAreRefusedWhereTheyCannotRun) {
  const std::string platform = two_gpu_platform("80GiB");
  const struct {
    std::string text, message;
  } cases[] = {
      {"optimizer: {name: adam, post_validation: 1}\n", "optimizer.post_validation: expected true or false, got '1'"},
      {"optimizer: {name: adam, post_validation: true}\nparallel: {pp: 2}\n",
       "optimizer.post_validation: not simulated in a parallel job yet"},
      {"optimizer: adam\niterations: 2\nparallel: {pp: 2}\n",
       "iterations: a parallel job's optimizer step is simulated once"},
  };
  for (const auto& c : cases) expect_refused(platform, c.text, c.message, false);
  // A pattern's device orders interleave iterations; PipeDream runs them as one stream.
  expect_refused(platform, "optimizer: adam\niterations: 2\n",
                 "iterations: the schedule's device orders run iterations into one another", false, "1f1b-pattern");
  expect_refused(platform, "optimizer: adam\niterations: 2\n",
                 "iterations: the schedule runs its iterations as one stream of micro-batches", false, "pipedream");
}

TEST(TrainingState, OutOfMemoryNamesWhatPushedItOver) {
  // Static: 100 MB weights + 100 MB gradients + 600 MB state + 5 MB reserve = 805 MB < 850 MB; the first
  // forward adds its stash (50 MB), its workspace (7 MB) and its output (10 MB): 872 MB = 831.60 MiB.
  const std::string platform = two_gpu_platform("850MB");
  const std::string w = write_file("oom.yaml", workload("optimizer: adam\nmemory: {reserve: 5MB}\n"));
  const std::string json = temp_path("oom.json");
  const CliResult r = run_pipesim("run " + platform + " " + w + " --json " + json);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("out of memory on gpu0 at 0.00 s (831.60 MiB > 810.62 MiB, pushed over by activations)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("pushed over by activations"), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(read_text(json))["violations"][0]["pushed_over"], "activations");
}

// Split backwards (zero bubble): the stash stays until the weight-gradient
// half has run, then every byte the training state allocated is freed.
TEST(TrainingState, SplitBackwardHoldsTheStashUntilItsWeightGradient) {
  for (const std::string schedule : {"zb-h1", "interleaved-zb", "1f1b"}) {
    std::string text = workload("optimizer: adam\n");
    text.replace(text.find("schedule: gpipe"), 15, "schedule: " + schedule);
    const std::string w = write_file("split.yaml", text), csv = temp_path("split.csv");
    const CliResult r = run_pipesim("run " + two_gpu_platform("80GiB") + " " + w + " --quiet --memory-trace " + csv);
    ASSERT_EQ(r.exit_code, 0) << schedule << ": " << r.err;
    std::map<std::pair<std::string, std::string>, double> last;  // (device, category) -> level
    std::istringstream lines(read_text(csv));
    std::string line;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) {
      std::vector<std::string> cells;
      std::istringstream row(line);
      for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
      ASSERT_EQ(cells.size(), 4u) << line;
      last[{cells[1], cells[2]}] = std::stod(cells[3]);
    }
    for (const std::string device : {"gpu0", "gpu1"})
      for (const std::string category : {"activations", "workspace", "comm_buffers"})
        EXPECT_EQ(last[std::make_pair(device, category)], 0) << schedule << " " << device << " " << category;
    // Static memory stays; interleaved-zb's looped placement may put both layers on one device.
    if (schedule != "interleaved-zb") {
      EXPECT_DOUBLE_EQ(last[std::make_pair(std::string("gpu0"), std::string("optimizer"))], 50e6 * 12) << schedule;
    }
  }
}

// A split backward's input gradient frees all of a layer's stash but what
// its weight gradient reads (ModelLayer::weight_stash_bytes); the weight
// gradient frees that (Qi et al. 2024: after B a GPT block keeps M_W =
// 32 s.b.h). One micro-batch of zb-h1 on 2 GPUs: the last stage (a block
// and the head) drops by the two layers' stash less their weight stash at
// the end of its I, and to nothing at the end of its W.
TEST(TrainingState, SplitBackwardKeepsWhatItsWeightGradientReads) {
  const std::string platform =
      write_file("typed-2.xml", complete_platform_xml(2, "100GBps", "1us", "1Tf", "80GiB", {{"device", "h100-sxm"}}));
  const std::string w = write_file("w-stash.yaml",
                                   "model: {name: tiny, layers: 2, hidden: 64, heads: 2, vocab: 1000, seq_length: 16, "
                                   "learned_positions: false, flash_attention: false, dropout: true}\n"
                                   "microbatches: 1\nschedule: zb-h1\nplacement: {stages: 2}\n");
  const std::string csv = temp_path("w-stash.csv");
  const CliResult r = run_pipesim("run " + platform + " " + w + " --quiet --memory-trace " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<double> levels;  // gpu1's activations, in time order
  std::istringstream lines(read_text(csv));
  for (std::string line; std::getline(lines, line);)
    if (line.find(",gpu1,activations,") != std::string::npos)
      levels.push_back(std::stod(line.substr(line.rfind(',') + 1)));
  ASSERT_GE(levels.size(), 3u);
  const auto peak = std::max_element(levels.begin(), levels.end());
  ASSERT_NE(peak + 1, levels.end());

  TransformerConfig c;
  c.name = "tiny", c.layers = 2, c.hidden = 64, c.heads = 2, c.vocab = 1000, c.seq_length = 16;
  c.learned_positions = false, c.flash_attention = false, c.dropout = true;
  const ModelChain chain = transformer_chain(c);
  const ModelLayer &block = chain.layers[2], &head = chain.layers[3];
  ASSERT_LT(block.weight_stash_bytes, block.stash_bytes);
  EXPECT_DOUBLE_EQ(*peak - *(peak + 1),
                   block.stash_bytes - block.weight_stash_bytes + head.stash_bytes - head.weight_stash_bytes);
  EXPECT_EQ(levels.back(), 0);
}

TEST(TrainingState, BadOptimizerAndMemoryFields) {
  const std::string platform = two_gpu_platform("80GiB");
  const struct {
    std::string text, message;
  } cases[] = {
      {"optimizer: sgd\n", "optimizer: expected none, adam or adamw, got 'sgd'"},
      {"optimizer: {name: adam, state_bytes: 100}\n", "optimizer.state_bytes: expected at most 64 bytes per parameter"},
      {"optimizer: {name: adam, moments: 2}\n", "optimizer.moments: unknown key 'moments'"},
      {"optimizer: {distributed: maybe}\n", "optimizer.distributed: expected true or false, got 'maybe'"},
      {"optimizer: {name: adam, clip_grad: 1.0}\n", "optimizer.clip_grad: expected true or false, got '1.0'"},
      {"memory: {reserve: lots}\n", "memory.reserve:"},
      {"memory: 5MB\n", "memory: expected a map {reserve: 1GiB}"},
  };
  for (const auto& c : cases) expect_refused(platform, c.text, c.message, true);
}

TEST(TrainingState, MemoryBandwidthIsABandwidth) {
  for (const std::string bad : {"fast", "-1GBps", "0Bps", "3.35TB"}) {
    const std::string platform = two_gpu_platform("80GiB", bad);
    const CliResult r = run_pipesim("run " + platform + " " + write_file("bw.yaml", workload("optimizer: adam\n")));
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.err.rfind("pipesim: error: " + platform +
                              ": host 'gpu0' property memory_bandwidth: expected a positive "
                              "bandwidth like '3.35TBps', got '" +
                              bad + "'",
                          0),
              0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(TrainingState, OptimizerStepNeedsABandwidth) {
  const std::string platform = write_file("no-bw.xml", complete_platform_xml(2));
  const std::string w = write_file("no-bw.yaml", workload("optimizer: adam\n"));
  const CliResult r = run_pipesim("run " + platform + " " + w);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(platform + ": host 'gpu0' property memory_bandwidth: the optimizer step"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace pipesim::testing
