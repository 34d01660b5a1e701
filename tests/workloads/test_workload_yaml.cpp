#include "tests/support/build_paths.hpp"
#include "workloads/workload_yaml.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sim/input_error.hpp"

using namespace pipesim;
namespace fs = std::filesystem;

namespace {

// Each test writes its YAML files into its own fresh temporary directory.
class WorkloadYaml : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("pipesim_workload_" + std::string(info->name()) + "_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& content, const std::string& name = "w.yaml") {
    const fs::path p = dir_ / name;
    std::ofstream(p) << content;
    return p.string();
  }

  // Loading must fail with an InputError naming the file and every fragment.
  void expect_error(const std::string& content, const std::vector<std::string>& fragments) {
    const std::string path = write(content);
    try {
      load_workload(path);
      ADD_FAILURE() << "no error for:\n" << content;
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind(path + ": ", 0), 0u) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      for (const auto& f : fragments) EXPECT_NE(m.find(f), std::string::npos) << "'" << f << "' not in: " << m;
    }
  }

  fs::path dir_;
};

const char* const kLayers = R"(layers:
  - {forward: 1ms, backward: 2ms, activation: 1MiB}
  - {forward: 1ms, backward: 2ms, activation: 1MiB}
  - {forward: 1ms, backward: 2ms, activation: 1MiB}
  - {forward: 1ms, backward: 2ms, activation: 1MiB}
)";

}  // namespace

TEST_F(WorkloadYaml, MinimalFileGetsDefaults) {
  const std::string path = write("microbatches: 4\n" + std::string(kLayers), "my-model.yaml");
  Workload w = load_workload(path);
  EXPECT_EQ(w.file, path);
  EXPECT_EQ(w.name, "my-model");
  EXPECT_EQ(w.microbatches, 4);
  EXPECT_EQ(w.microbatch_size, 1);
  EXPECT_EQ(w.iterations, 1);
  EXPECT_EQ(w.input, 0.0);
  EXPECT_EQ(w.reference_speed, 0.0);
  EXPECT_EQ(w.schedule, "1f1b");
  EXPECT_TRUE(w.schedule_params.empty());
  EXPECT_TRUE(w.placement.automatic);
  EXPECT_EQ(w.placement.stages, 0);
  ASSERT_EQ(w.layers.size(), 4u);
  EXPECT_EQ(w.layers[2].name, "layer2");
  EXPECT_EQ(w.layers[2].forward.value, 0.001);
  EXPECT_FALSE(w.layers[2].forward.flops);
  EXPECT_EQ(w.layers[2].backward.value, 0.002);
  EXPECT_EQ(w.layers[2].activation, 1048576.0);
  EXPECT_EQ(w.layers[2].weights, 0.0);
}

TEST_F(WorkloadYaml, AllFields) {
  Workload w = load_workload(write(R"(
name: test-model
microbatches: 8
microbatch_size: 4
iterations: 3
input: 2MiB
reference_speed: 150Tf
layers:
  - name: embed
    forward: 2Tf
    backward: 0
    activation: 25MiB
    weights: 80GiB
  - name: block
    forward: 1.5ms
    backward: 3 Gflops
    activation: 0
    repeat: 3
  - {forward: 0.25, backward: 1us, activation: 1kB}
schedule: {name: Interleaved, chunks: 2, flush: true}
placement: {stages: 2}
)"));
  EXPECT_EQ(w.name, "test-model");
  EXPECT_EQ(w.microbatches, 8);
  EXPECT_EQ(w.microbatch_size, 4);
  EXPECT_EQ(w.iterations, 3);
  EXPECT_EQ(w.input, 2097152.0);
  EXPECT_EQ(w.reference_speed, 150e12);
  ASSERT_EQ(w.layers.size(), 5u);
  EXPECT_EQ(w.layers[0].name, "embed");
  EXPECT_TRUE(w.layers[0].forward.flops);
  EXPECT_EQ(w.layers[0].forward.value, 2e12);
  EXPECT_FALSE(w.layers[0].backward.flops);
  EXPECT_EQ(w.layers[0].backward.value, 0.0);
  EXPECT_EQ(w.layers[0].weights, 85899345920.0);
  // repeat: 3 expands to three identical layers with suffixed names.
  for (int i = 0; i < 3; ++i) {
    const Layer& l = w.layers[1 + i];
    EXPECT_EQ(l.name, "block_" + std::to_string(i));
    EXPECT_EQ(l.forward.value, 0.0015);
    EXPECT_FALSE(l.forward.flops);
    EXPECT_EQ(l.backward.value, 3e9);
    EXPECT_TRUE(l.backward.flops);
  }
  EXPECT_EQ(w.layers[4].name, "layer4");
  EXPECT_EQ(w.layers[4].forward.value, 0.25);
  EXPECT_EQ(w.layers[4].backward.value, 1e-6);
  EXPECT_EQ(w.layers[4].activation, 1000.0);
  EXPECT_EQ(w.schedule, "interleaved");
  EXPECT_EQ(w.schedule_params.size(), 2u);
  EXPECT_EQ(w.schedule_params.at("chunks"), "2");
  EXPECT_EQ(w.schedule_params.at("flush"), "true");
  EXPECT_TRUE(w.placement.automatic);
  EXPECT_EQ(w.placement.stages, 2);
}

TEST_F(WorkloadYaml, ExplicitPlacement) {
  Workload w = load_workload(write("microbatches: 2\nschedule: GPipe\n" + std::string(kLayers) + R"(
placement:
  - {layers: 0-1, host: gpu0}
  - {layers: "2", host: gpu1}
  - {layers: 3, host: gpu7}
)"));
  EXPECT_EQ(w.schedule, "gpipe");
  EXPECT_FALSE(w.placement.automatic);
  using R = std::pair<int, int>;
  EXPECT_EQ(w.placement.stage_layers, (std::vector<R>{{0, 1}, {2, 2}, {3, 3}}));
  EXPECT_EQ(w.placement.stage_hosts, (std::vector<std::string>{"gpu0", "gpu1", "gpu7"}));
}

TEST_F(WorkloadYaml, PlacementAutoScalar) {
  Workload w = load_workload(write("microbatches: 2\nplacement: auto\n" + std::string(kLayers)));
  EXPECT_TRUE(w.placement.automatic);
  EXPECT_EQ(w.placement.stages, 0);
}

TEST_F(WorkloadYaml, SyntaxErrorGivesLine) {
  expect_error("microbatches: 8\nlayers:\n  - {forward: 1ms, backward: [2ms\n", {"line ", "YAML syntax error"});
}

TEST_F(WorkloadYaml, MissingMicrobatches) { expect_error(kLayers, {"microbatches: missing required field"}); }

TEST_F(WorkloadYaml, MissingLayers) { expect_error("microbatches: 8\n", {"layers: missing required field"}); }

TEST_F(WorkloadYaml, LayersNotAList) {
  expect_error("microbatches: 8\nlayers: 3\n", {"line 2: layers: expected a list of layers, got '3'"});
  expect_error("microbatches: 8\nlayers: {forward: 1ms}\n", {"layers", "got a map"});
}

TEST_F(WorkloadYaml, WrongType) {
  expect_error("microbatches: abc\n" + std::string(kLayers),
               {"line 1: microbatches: expected an integer >= 1, got 'abc'"});
  expect_error("microbatches: 2.5\n" + std::string(kLayers), {"microbatches", "'2.5'"});
  expect_error("microbatches: [1]\n" + std::string(kLayers), {"microbatches", "got a list"});
  expect_error("microbatches: 8\n" + std::string(kLayers) + "  - 5\n", {"line 7: layers[4]", "got '5'"});
}

TEST_F(WorkloadYaml, NegativeActivation) {
  expect_error("microbatches: 8\nlayers:\n  - {forward: 1ms, backward: 2ms, activation: -3MiB}\n",
               {"line 3: layers[0].activation", "not negative", "'-3MiB'"});
}

TEST_F(WorkloadYaml, ZeroMicrobatches) {
  expect_error("microbatches: 0\n" + std::string(kLayers), {"microbatches", ">= 1", "got '0'"});
  expect_error("microbatches: 1\niterations: 0\n" + std::string(kLayers), {"iterations", "got '0'"});
  expect_error("microbatches: 1\nlayers:\n  - {forward: 1, backward: 1, activation: 1, repeat: 0}\n",
               {"layers[0].repeat"});
}

TEST_F(WorkloadYaml, MalformedUnit) {
  expect_error(R"(microbatches: 8
layers:
  - forward: 1ms
    backward: 2ms
    activation: 1MiB
  - forward: 3 parsecs
    backward: 2ms
    activation: 1MiB
)",
               {"line 6: layers[1].forward", "expected a duration like '3ms' or a flop count like '2Tf'",
                "got '3 parsecs'", "unknown unit 'parsecs'"});
  expect_error("microbatches: 8\ninput: 12 apples\n" + std::string(kLayers), {"input", "'12 apples'"});
  expect_error("microbatches: 8\nreference_speed: 3ms\n" + std::string(kLayers), {"reference_speed"});
  expect_error("microbatches: 8\nreference_speed: 0\n" + std::string(kLayers), {"reference_speed", "positive"});
}

TEST_F(WorkloadYaml, EmptyChain) { expect_error("microbatches: 8\nlayers: []\n", {"layers", "at least one layer"}); }

TEST_F(WorkloadYaml, MissingLayerField) {
  expect_error("microbatches: 8\nlayers:\n  - forward: 1ms\n    activation: 1MiB\n",
               {"line 3: layers[0].backward: missing required field"});
}

TEST_F(WorkloadYaml, EmptyDocument) { expect_error("# nothing\n", {"empty document"}); }

TEST_F(WorkloadYaml, NonExistentFile) {
  const std::string path = (dir_ / "no-such-file.yaml").string();
  try {
    load_workload(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos);
  }
  EXPECT_THROW(load_workload(dir_.string()), InputError);  // a directory
}

TEST_F(WorkloadYaml, UnknownKey) {
  expect_error("microbatches: 8\nlayers:\n  - forward: 1ms\n    backward: 2ms\n    actvation: 1MiB\n",
               {"line 5: layers[0].actvation", "unknown key 'actvation'", "did you mean 'activation'?"});
  expect_error("microbatches: 8\nmicrobatch: 2\n" + std::string(kLayers), {"line 2: microbatch", "unknown key"});
  expect_error("microbatches: 8\nmicrobatches: 4\n" + std::string(kLayers), {"duplicate key 'microbatches'"});
  expect_error("microbatches: 8\nplacement: {stages: 2, hosts: 3}\n" + std::string(kLayers),
               {"placement.hosts", "unknown key"});
}

TEST_F(WorkloadYaml, BadPlacement) {
  const std::string head = "microbatches: 2\n" + std::string(kLayers) + "placement:\n";
  expect_error(head + "  - {layers: 0-2, host: a}\n  - {layers: 2-3, host: b}\n",
               {"placement[1].layers", "overlaps", "'2-3'"});
  expect_error(head + "  - {layers: 0-1, host: a}\n  - {layers: 3, host: b}\n",
               {"placement[1].layers", "leaves layer 2 unassigned"});
  expect_error(head + "  - {layers: 0-1, host: a}\n  - {layers: 2, host: b}\n",
               {"placement[1].layers", "end at layer 3", "leaves layer 3 unassigned"});
  expect_error(head + "  - {layers: 0, host: a}\n", {"placement[0].layers", "leaves layers 1-3 unassigned"});
  expect_error(head + "  - {layers: 1-3, host: a}\n", {"placement[0].layers", "starting at layer 0"});
  expect_error(head + "  - {layers: 2-3, host: a}\n  - {layers: 0-1, host: b}\n", {"placement[0].layers"});
  expect_error(head + "  - {layers: 0-9, host: a}\n", {"placement[0].layers", "0-3"});
  expect_error(head + "  - {layers: 3-0, host: a}\n", {"placement[0].layers", "a <= b"});
  expect_error(head + "  - {layers: x, host: a}\n", {"placement[0].layers", "got 'x'"});
  expect_error(head + "  - {layers: 0-3}\n", {"placement[0].host: missing"});
  expect_error("microbatches: 2\nplacement: manual\n" + std::string(kLayers), {"placement", "'manual'"});
  expect_error("microbatches: 2\nplacement: []\n" + std::string(kLayers), {"placement", "empty list"});
  expect_error("microbatches: 2\nplacement: {stages: 5}\n" + std::string(kLayers), {"placement.stages"});
  expect_error("microbatches: 2\nplacement: {partition: uneven}\n" + std::string(kLayers),
               {"line 2: placement.partition", "expected auto, even or balanced, got 'uneven'"});
  expect_error("microbatches: 2\nplacement: {}\n" + std::string(kLayers),
               {"placement", "expected 'stages', 'partition' or 'layers'"});
  // Layer counts per stage: positive, adding up to the chain, alone.
  expect_error("microbatches: 2\nplacement: {layers: [1, 2]}\n" + std::string(kLayers),
               {"line 2: placement.layers", "add up to 3 layers, but the chain has 4"});
  expect_error("microbatches: 2\nplacement: {layers: [4, 0]}\n" + std::string(kLayers), {"placement.layers[1]"});
  expect_error("microbatches: 2\nplacement: {layers: 4}\n" + std::string(kLayers),
               {"placement.layers", "a list of layer counts per stage"});
  expect_error("microbatches: 2\nplacement: {layers: [2, 2], partition: even}\n" + std::string(kLayers),
               {"placement.partition", "either partition or layers"});
  expect_error("microbatches: 2\nplacement: {stages: 3, layers: [2, 2]}\n" + std::string(kLayers),
               {"placement.layers", "lists 2 stages, but placement.stages is 3"});
}

TEST_F(WorkloadYaml, LayerCountsPlaceTheStages) {
  const Workload w = load_workload(write("microbatches: 2\nplacement: {layers: [1, 3]}\n" + std::string(kLayers)));
  EXPECT_TRUE(w.placement.automatic);
  EXPECT_EQ(w.placement.layer_counts, (std::vector<int>{1, 3}));
  EXPECT_EQ(w.placement.stages, 2);
}

TEST_F(WorkloadYaml, PartitionRule) {
  const auto rule = [&](const std::string& placement) {
    return load_workload(write("microbatches: 2\nplacement: " + placement + "\n" + std::string(kLayers)))
        .placement.partition;
  };
  EXPECT_EQ(rule("auto"), PartitionRule::Auto);
  EXPECT_EQ(rule("{partition: even}"), PartitionRule::Even);
  EXPECT_EQ(rule("{stages: 2, partition: Balanced}"), PartitionRule::Balanced);
  EXPECT_EQ(rule("{stages: 2}"), PartitionRule::Auto);
}

TEST_F(WorkloadYaml, BadSchedule) {
  expect_error("microbatches: 2\nschedule: {chunks: 2}\n" + std::string(kLayers), {"schedule.name: missing"});
  expect_error("microbatches: 2\nschedule: [1f1b]\n" + std::string(kLayers), {"schedule", "got a list"});
  expect_error("microbatches: 2\nschedule: {name: x, p: [1]}\n" + std::string(kLayers), {"schedule.p"});
}

TEST(WorkloadExamples, Tiny) {
  Workload w = load_workload(std::string(PIPESIM_SOURCE_DIR) + "/workloads/examples/tiny.yaml");
  ASSERT_EQ(w.layers.size(), 4u);
  EXPECT_EQ(w.microbatches, 8);
  EXPECT_EQ(w.schedule, "1f1b");
  EXPECT_EQ(w.layers[3].forward.value, 0.001);
  EXPECT_EQ(w.layers[3].backward.value, 0.002);
  EXPECT_EQ(w.layers[3].activation, 16.0 * 1024 * 1024);
  EXPECT_EQ(w.layers[3].weights, 64.0 * 1024 * 1024);
}

TEST(WorkloadExamples, Gpt2Xl) {
  Workload w = load_workload(std::string(PIPESIM_SOURCE_DIR) + "/workloads/examples/gpt2-xl-layers.yaml");
  ASSERT_EQ(w.layers.size(), 50u);
  EXPECT_EQ(w.microbatches, 16);
  EXPECT_EQ(w.microbatch_size, 8);
  EXPECT_EQ(w.layers[0].name, "embedding");
  EXPECT_EQ(w.layers[48].name, "block_47");
  EXPECT_EQ(w.layers[49].name, "lm_head");
  // Megatron-LM: 24*b*s*h^2 + 4*b*s^2*h with b=8, s=1024, h=1600.
  const double b = 8, s = 1024, h = 1600, V = 50257;
  EXPECT_TRUE(w.layers[1].forward.flops);
  EXPECT_EQ(w.layers[1].forward.value, 24 * b * s * h * h + 4 * b * s * s * h);
  EXPECT_EQ(w.layers[1].backward.value, 2 * w.layers[1].forward.value);
  EXPECT_EQ(w.layers[1].activation, b * s * h * 2);
  EXPECT_EQ(w.layers[1].weights, 12 * h * h * 2);
  EXPECT_EQ(w.layers[49].forward.value, 2 * b * s * h * V);
  EXPECT_EQ(w.input, b * s * 8);
}

// memory_saving: policy and limit, with defaults (docs/workload-format.md#memory-saving).
TEST_F(WorkloadYaml, MemorySavingOption) {
  Workload w = load_workload(write(std::string("microbatches: 2\n") + kLayers));
  EXPECT_EQ(w.memory_saving.policy, "none");
  EXPECT_EQ(w.memory_saving.limit, 0);
  EXPECT_EQ(w.memory_saving.slots, 500);
  w = load_workload(write(std::string("microbatches: 2\nmemory_saving: {policy: Remat, limit: auto}\n") + kLayers));
  EXPECT_EQ(w.memory_saving.policy, "remat");
  EXPECT_EQ(w.memory_saving.limit, 0);
  EXPECT_FALSE(w.memory_saving.fit);
  w = load_workload(write(std::string("microbatches: 2\nmemory_saving: {policy: remat, limit: Fit}\n") + kLayers));
  EXPECT_TRUE(w.memory_saving.fit);
  EXPECT_EQ(w.memory_saving.limit, 0);
  w = load_workload(
      write(std::string("microbatches: 2\nmemory_saving: {policy: both, limit: 2GiB, slots: 100}\n") + kLayers));
  EXPECT_EQ(w.memory_saving.policy, "both");
  EXPECT_EQ(w.memory_saving.limit, 2147483648.0);
  EXPECT_EQ(w.memory_saving.slots, 100);
  expect_error(std::string("microbatches: 2\nmemory_saving: remat\n") + kLayers,
               {"line 2: memory_saving: expected a map {policy: remat, limit: auto} or a list of them, one per stage, "
                "got 'remat'"});
  w = load_workload(
      write(std::string("microbatches: 2\nmemory_saving: [{policy: remat}, {policy: none}]\n") + kLayers));
  EXPECT_EQ(w.memory_saving.policy, "none");
  ASSERT_EQ(w.memory_saving_stages.size(), 2u);
  EXPECT_EQ(w.memory_saving_stages[0].policy, "remat");
  EXPECT_EQ(w.memory_saving_stages[1].policy, "none");
  EXPECT_TRUE(saves_memory(w));
  expect_error(std::string("microbatches: 2\nmemory_saving: [{policy: remat}, {policy: swap}]\n") + kLayers,
               {"line 2: memory_saving[1].policy: expected none, remat, offload or both, got 'swap'"});
  expect_error(std::string("microbatches: 2\nmemory_saving: [{policy: remat}, 3]\n") + kLayers,
               {"line 2: memory_saving[1]: expected a map {policy: remat, limit: auto}, got '3'"});
  expect_error(std::string("microbatches: 2\nmemory_saving: {limit: auto}\n") + kLayers,
               {"memory_saving.policy: missing required field"});
  expect_error(std::string("microbatches: 2\nmemory_saving: {policy: swap}\n") + kLayers,
               {"line 2: memory_saving.policy: expected none, remat, offload or both, got 'swap'"});
  w = load_workload(write(std::string("microbatches: 2\nmemory_saving: {policy: Offload}\n") + kLayers));
  EXPECT_EQ(w.memory_saving.policy, "offload");
  expect_error(std::string("microbatches: 2\nmemory_saving: {policy: remat, limit: 0}\n") + kLayers,
               {"line 2: memory_saving.limit: expected 'auto', 'fit' or a positive byte size like '2GiB', got '0'"});
  expect_error(std::string("microbatches: 2\nmemory_saving: {policy: remat, limit: lots}\n") + kLayers,
               {"line 2: memory_saving.limit:"});
  expect_error(std::string("microbatches: 2\nmemory_saving: {policy: remat, slots: 0}\n") + kLayers,
               {"line 2: memory_saving.slots:"});
  expect_error(std::string("microbatches: 2\nmemory_saving: {policy: remat, budget: 1GB}\n") + kLayers,
               {"memory_saving", "budget"});
}
