// Model workloads through `pipesim run`: the `model:` section's errors keep
// the one-line contract, and a run reports the job in tokens/s and MFU
// (docs/workload-format.md#model, workloads/model_section.cpp).
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "devices/compute_model.hpp"
#include "devices/device_spec.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/support/cli_runner.hpp"
#include "workloads/model_costs.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim::testing {
namespace {

const std::string kRoot = std::string(PIPESIM_SOURCE_DIR) + "/";

struct BadModel {
  std::string name, section, field, message;
};

TEST(ModelWorkload, BadInputIsOneLineNamingFileAndField) {
  const std::string config = kRoot + "tests/data/hf/malformed.json";
  const BadModel cases[] = {
      {"unknown preset", "model: {preset: gpt5}", "line 1: model.preset", "unknown model 'gpt5' (expected one of: "},
      {"unknown field", "model: {preset: gpt2-xl, depth: 3}", "line 1: model.depth", "unknown key 'depth'"},
      {"heads not dividing hidden", "model: {preset: gpt2-xl, heads: 7}", "model.heads", "divide"},
      {"kv heads not dividing heads", "model: {preset: llama2-7b, kv_heads: 5}", "model.kv_heads", "divide"},
      {"unknown activation", "model: {preset: gpt2-xl, activation: relu}", "line 1: model.activation",
       "expected one of gelu, swiglu, got 'relu'"},
      {"both preset and config", "model: {preset: gpt2-xl, config: x.json}", "line 1: model.config",
       "give 'preset' or 'config', not both"},
      {"layers beside model", "model: {preset: gpt2-xl}\nlayers: []", "line 2: layers", "not both"},
  };
  for (const BadModel& c : cases) {
    const std::string w = write_file("bad-model.yaml", c.section + "\nmicrobatches: 2\n"), json = temp_path("bad.json");
    const CliResult r = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + w + " --json " + json);
    EXPECT_EQ(r.exit_code, 2) << c.name;
    EXPECT_EQ(r.err.rfind("pipesim: error: " + w + ": " + c.field + ": ", 0), 0u) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
    EXPECT_FALSE(std::filesystem::exists(json)) << c.name;
  }
}

TEST(ModelWorkload, MalformedConfigJsonNamesItsLine) {
  const std::string w =
      write_file("hf.yaml", "model: {config: " + kRoot + "tests/data/hf/malformed.json}\nmicrobatches: 2\n");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + w);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("pipesim: error: " + kRoot + "tests/data/hf/malformed.json: line 4: JSON syntax error", 0), 0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// The A100 has no fp8 tensor cores (docs/devices.md).
TEST(ModelWorkload, PrecisionTheDeviceLacks) {
  const std::string w = write_file("fp8.yaml", "model: {preset: gpt2-xl, precision: fp8}\nmicrobatches: 2\n");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + w);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + w + ": model.precision: the a100-80gb of host 'gpu0' (" + kRoot +
                       "platforms/nvswitch-8gpu.xml) has no fp8 compute\n");
}

TEST(ModelWorkload, UnknownDeviceTypeNamesTheHost) {
  const std::string platform = write_file("typo.xml", read_text(kRoot + "platforms/h200-1gpu.xml"));
  std::string text = read_text(platform);
  text.replace(text.find("\"h200\""), 6, "\"h2000\"");
  write_file("typo.xml", text);
  const CliResult r = run_pipesim("run " + platform + " " + kRoot + "workloads/examples/gpt2-xl.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err.rfind("pipesim: error: " + platform + ": host 'gpu0' property device: unknown device type 'h2000'", 0), 0u)
      << r.err;
}

// MFU = model flops / (iteration time x GPUs x peak), from the JSON's own figures.
TEST(ModelWorkload, ReportsTokensAndMfu) {
  const std::string json = temp_path("gpt2.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + kRoot +
                                  "workloads/examples/gpt2-xl.yaml --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tokens/s"), std::string::npos);
  EXPECT_NE(r.out.find("MFU"), std::string::npos);
  const auto j = nlohmann::json::parse(read_text(json));
  const auto& t = j["training"];
  const double seconds = j["iteration_time"].get<double>();
  EXPECT_EQ(t["gpus"].get<int>(), 8);
  EXPECT_DOUBLE_EQ(t["peak_flops_per_gpu"].get<double>(), 312e12);  // A100 bf16 dense
  EXPECT_NEAR(t["tokens_per_second"].get<double>(), 16.0 * 8 * 1024 / seconds, 1e-6);
  EXPECT_NEAR(t["mfu"].get<double>(), t["model_flops_per_iteration"].get<double>() / seconds / (8 * 312e12), 1e-12);
  // GPT-2 XL: 6 N flops per token for the weights, plus attention: within 20 % of 6 N tokens.
  const double six_n = 6 * 1.5576e9 * 16 * 8 * 1024;
  EXPECT_NEAR(t["model_flops_per_iteration"].get<double>() / six_n, 1.1, 0.1);
  EXPECT_DOUBLE_EQ(t["hfu"].get<double>(), t["mfu"].get<double>());  // no recompute
}

// Host-bound time (docs/outputs.md): each pass's host time beyond its device
// time (max(0, kernels x per-kernel host overhead - roofline time), issue 25's
// per-op host overhead), summed over the passes a device ran, per iteration.
// A small model on one H200 is launch-bound at many ops; GPT-2 XL on A100s at none.
TEST(ModelWorkload, HostBoundTimeIsTheHostTimeBeyondTheDeviceTime) {
  const std::string w =
      write_file("small.yaml",
                 "model: {preset: gpt2-xl, layers: 2, hidden: 256, heads: 4, seq_length: 128, vocab: 1024}\n"
                 "microbatches: 4\nschedule: gpipe\n");
  const std::string platform = kRoot + "platforms/h200-1gpu.xml", json = temp_path("host.json");
  const CliResult r = run_pipesim("run " + platform + " " + w + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("host-bound "), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_text(json));
  const auto& t = j["training"];

  // The closed form from the device model's two times, op by op.
  Simulation simulation(platform);
  const Workload timed = time_model_layers(load_workload(w), simulation.platform());
  const DeviceSpec& h200 = *find_device_preset("h200");
  double per_microbatch = 0;
  for (const Layer& layer : timed.layers) {
    ASSERT_TRUE(layer.ops);
    for (const OpWork* op :
         {&layer.ops->forward, &layer.ops->backward_input, &layer.ops->backward_weight, &layer.ops->recompute})
      if (op->flops > 0 || op->bytes > 0)
        per_microbatch += std::max(0.0, host_seconds(h200, *op, HostIssue::InChain) - device_seconds(h200, *op));
  }
  ASSERT_GT(per_microbatch, 0);
  EXPECT_NEAR(t["host_bound_seconds"].get<double>(), 4 * per_microbatch, 1e-12);
  EXPECT_EQ(t["host_bound_device"], "gpu0");
  const double busy = j["devices"][0]["busy_time"].get<double>();
  EXPECT_NEAR(t["host_bound_share"].get<double>(), 4 * per_microbatch / busy, 1e-12);
  EXPECT_GT(t["host_bound_share"].get<double>(), 0.2);  // a small model waits for launches

  const std::string big = temp_path("big.json");
  const CliResult b = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + kRoot +
                                  "workloads/examples/gpt2-xl.yaml --json " + big);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(read_text(big))["training"]["host_bound_seconds"].get<double>(), 0);
  EXPECT_NE(b.out.find("host-bound             none"), std::string::npos) << b.out;
}

// A model's config.json and calibration file are inputs: an output over one is refused before anything runs.
TEST(ModelWorkload, OutputsNeverLandOnTheModelsFiles) {
  const std::string config = write_file("config.json", read_text(kRoot + "tests/data/hf/gpt2-xl.json"));
  const std::string calibration = write_file("calibration.yaml", "block.forward: 1ms\n");
  const std::string w =
      write_file("files.yaml",
                 "model: {config: config.json, seq_length: 64, layers: 2, calibration: calibration.yaml}\n"
                 "microbatches: 2\n");
  for (const std::string& input : {config, calibration}) {
    const std::string before = read_text(input);
    const CliResult r = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + w + " --json " + input);
    EXPECT_EQ(r.exit_code, 2) << input;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(input), std::string::npos) << r.err;
    EXPECT_EQ(read_text(input), before) << input;
  }
}

// HFU counts the recomputed forward too: with full recompute, hardware flops
// = model flops + one more forward of every block, HFU / MFU their ratio.
TEST(ModelWorkload, HfuCountsTheRecompute) {
  const std::string json = temp_path("recompute.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + kRoot +
                                  "workloads/examples/gpt2-xl.yaml --set model.recompute=full --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("HFU"), std::string::npos) << r.out;
  const auto t = nlohmann::json::parse(read_text(json))["training"];
  const double model = t["model_flops_per_iteration"].get<double>(),
               hardware = t["hardware_flops_per_iteration"].get<double>();
  EXPECT_GT(hardware, model);
  EXPECT_LT(hardware, model * 4 / 3 + 1);  // at most one extra forward (a third of forward + backward)
  EXPECT_NEAR(t["hfu"].get<double>() / t["mfu"].get<double>(), hardware / model, 1e-12);
}

// A calibration file replaces the compute model's times by its keys
// (docs/devices.md#calibration-files): 8 blocks x (1 + 1 + 1) ms per
// micro-batch, the rest free, 8 micro-batches on one GPU: 192 ms.
TEST(ModelWorkload, CalibrationFileSetsThePassTimes) {
  const std::string calibration =
      write_file("calibration.yaml",
                 "block.forward: 1ms\nblock.backward_input: 1ms\nblock.backward_weight: 1ms\nembedding.forward: 0\n"
                 "embedding.backward_weight: 0\nhead.forward: 0\nhead.backward_input: 0\nhead.backward_weight: 0\n");
  std::string text = read_text(kRoot + "workloads/examples/h200-gpipe-one-gpu.yaml");
  text.replace(text.find("model:\n"), 7, "model:\n  calibration: " + calibration + "\n");
  const std::string w = write_file("calibrated.yaml", text), json = temp_path("calibrated.json");
  const CliResult r = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + w + " --quiet --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(read_text(json))["makespan"].get<double>(), 0.192, 1e-12);

  // Measured at other shapes: refused, since nothing rescales a measured time.
  write_file("calibration.yaml", "tokens_per_microbatch: 4096\nblock.forward: 1ms\n");
  const CliResult shapes = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + w);
  EXPECT_EQ(shapes.exit_code, 2);
  EXPECT_EQ(shapes.err, "pipesim: error: " + w + ": model.calibration: " + calibration +
                            " was measured at 4096 tokens per micro-batch, this model runs 2048 (seq_length x "
                            "microbatch_size): a calibration does not rescale\n");
  write_file("calibration.yaml", "tokens_per_microbatch: 2048\nblock.forward: 1ms\n");
  EXPECT_EQ(run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + w + " --quiet").exit_code, 0);

  // A key the model has no op for (a typo) would be silently unused: refused.
  write_file("calibration.yaml", "block.forwrd: 1ms\n");
  const CliResult typo = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + w);
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_EQ(typo.err.rfind("pipesim: error: " + calibration +
                               ": block.forwrd: unknown op key (expected one of: block.backward_input, ",
                           0),
            0u)
      << typo.err;
  EXPECT_NE(typo.err.find("optimizer.step, tokens_per_microbatch, or LAYER.stash_bytes)"), std::string::npos)
      << typo.err;

  write_file("calibration.yaml", "block.forward: fast\n");
  const CliResult bad = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + w);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("pipesim: error: " + calibration + ": line 1: block.forward: ", 0), 0u) << bad.err;
}

// A calibration's NAME.stash_bytes replace the memory model's stash of the
// layers of that name (docs/devices.md#calibration-files); a name that is no
// layer, or a model that recomputes, is refused.
TEST(ModelWorkload, CalibrationStashBytesReplaceTheModelsStash) {
  const std::string calibration = write_file("stash-calibration.yaml", "block.stash_bytes: 1000\n");
  const std::string text = read_text(kRoot + "workloads/examples/h200-gpipe-one-gpu.yaml");
  std::string with = text;
  with.replace(with.find("model:\n"), 7, "model:\n  calibration: " + calibration + "\n");
  const Workload model = load_workload(write_file("plain.yaml", text));
  const Workload calibrated = load_workload(write_file("stash.yaml", with));
  ASSERT_EQ(model.layers.size(), calibrated.layers.size());
  int blocks = 0;
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    const bool block = model.layers[l].name == "block";
    blocks += block;
    EXPECT_EQ(calibrated.layers[l].stash, block ? std::optional<double>(1000) : model.layers[l].stash) << l;
    EXPECT_DOUBLE_EQ(calibrated.layers[l].activation, model.layers[l].activation) << l;
  }
  EXPECT_EQ(blocks, 8);

  std::string recompute = with;
  recompute.replace(recompute.find("model:\n"), 7, "model:\n  recompute: full\n");
  const std::string w = write_file("stash-recompute.yaml", recompute);
  const CliResult r = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + w);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + w + ": model.recompute: is full but " + calibration +
                       " gives stash_bytes, measured on a step that keeps every stash: use recompute: none\n");
  write_file("stash-calibration.yaml", "blocks.stash_bytes: 1000\n");
  const CliResult typo = run_pipesim("run " + kRoot + "platforms/h200-1gpu.xml " + write_file("stash.yaml", with));
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_EQ(typo.err, "pipesim: error: " + calibration +
                          ": blocks.stash_bytes: names no layer of the model (expected one of: block, embedding, "
                          "head)\n");
}

// A calibration's optimizer.step is the whole model's step on one device: a
// stage holding a share of the parameters takes that share of it
// (docs/devices.md#calibration-files). With every pass free, a device is
// busy for its step alone: 10 ms x weights_d / sum_d(weights_d).
TEST(ModelWorkload, CalibratedOptimizerStepIsSharedByParameters) {
  const std::string calibration =
      write_file("step-calibration.yaml",
                 "optimizer.step: 10ms\nblock.forward: 0\nblock.backward_input: 0\nblock.backward_weight: 0\n"
                 "embedding.forward: 0\nembedding.backward_weight: 0\nhead.forward: 0\nhead.backward_input: 0\n"
                 "head.backward_weight: 0\n");
  std::string text = read_text(kRoot + "workloads/examples/h200-gpipe-one-gpu.yaml");
  text.replace(text.find("model:\n"), 7, "model:\n  calibration: " + calibration + "\n");
  text.replace(text.find("optimizer: none"), 15, "optimizer: {name: adam, clip_grad: false}");
  for (const bool split : {false, true}) {
    std::string workload = text;
    if (split) workload = workload.substr(0, workload.find("placement:")) + "placement: {stages: 2}\n";
    const std::string w = write_file("step.yaml", workload), json = temp_path("step.json");
    const CliResult r =
        run_pipesim("run " + kRoot + (split ? "platforms/nvswitch-4gpu.xml " : "platforms/h200-1gpu.xml ") + w +
                    " --quiet --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json report = nlohmann::json::parse(read_text(json));
    double total = 0;
    int used = 0;
    for (const auto& d : report["devices"]) total += d["peak_breakdown"]["weights"].get<double>();
    for (const auto& d : report["devices"]) {
      const double weights = d["peak_breakdown"]["weights"].get<double>();
      if (weights == 0) continue;
      ++used;
      EXPECT_NEAR(d["busy_time"].get<double>(), 0.010 * weights / total, 1e-9) << d["name"];
    }
    EXPECT_EQ(used, split ? 2 : 1);
  }
}

// One truth: seed 000's analytic pattern memory holds the chain alone, so a
// periodic schedule of a model prints why it gives none rather than a figure
// a tenth of the simulated peak.
TEST(ModelWorkload, PatternSchedulesSayWhyTheyPrintNoAnalyticMemory) {
  const std::string json = temp_path("kfkb.json");
  const CliResult r =
      run_pipesim("run " + kRoot + "platforms/nvswitch-8gpu.xml " + kRoot +
                  "workloads/examples/gpt2-xl.yaml --set schedule=kfkb --set schedule.k=2 --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("analytic memory        not computed: seed 000's pattern memory holds the chain alone"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("analytic peak"), std::string::npos) << r.out;
  const auto pattern = nlohmann::json::parse(read_text(json))["pattern"];
  EXPECT_TRUE(pattern["analytic_peak_memory"].empty());
  EXPECT_NE(pattern["analytic_memory_note"].get<std::string>().find("training state"), std::string::npos);
  const double exact = pattern["exact_period"].get<double>();
  EXPECT_NEAR(pattern["simulated_period"].get<double>(), exact, 1e-9 * exact);  // the period still holds
}

}  // namespace
}  // namespace pipesim::testing
