// Reading an execution trace, and what each part keeps for its backward,
// worked out by hand on synthetic_execution_trace.hpp; one InputError line
// for each malformed piece. docs/import.md#execution-traces.
#include <gtest/gtest.h>

#include "tests/support/build_paths.hpp"

#include "sim/input_error.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/traces/synthetic_execution_trace.hpp"
#include "tests/traces/synthetic_trace.hpp"
#include "traces/saved_bytes.hpp"

namespace pipesim {
namespace {

using nlohmann::json;

std::string error_of(const std::string& text) {
  try {
    saved_bytes(parse_execution_trace(text, "et.json"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ExecutionTrace, KeepsEachOpsGpuTensorsInTheOrderOpsBegan) {
  json t = testing::synthetic_execution_trace();
  std::swap(t["nodes"][3], t["nodes"][4]);  // file order is not start order
  const ExecutionTrace trace = parse_execution_trace(t.dump(), "et.json");
  ASSERT_EQ(trace.nodes.size(), t["nodes"].size());
  EXPECT_EQ(trace.nodes[3].name, "embedding");
  const EtNode& div = trace.nodes[14];
  EXPECT_EQ(div.name, "aten::div");
  EXPECT_EQ(div.seq_id, 106);
  EXPECT_EQ(div.parent, 3);
  ASSERT_EQ(div.inputs.size(), 1u);  // the CPU scalar is left out
  EXPECT_EQ(div.inputs[0].storage, 15);
  EXPECT_DOUBLE_EQ(div.inputs[0].extent, 4);
}

TEST(SavedBytes, EachPartKeepsWhatItsBackwardReadsOfTheForwardsAllocations) {
  const SavedBytes saved = saved_bytes(parse_execution_trace(testing::synthetic_execution_trace().dump(), "et.json"));
  EXPECT_EQ(saved.microbatches, 1);
  EXPECT_DOUBLE_EQ(saved.stash.at(ModelPart::Block), testing::kSyntheticBlockStash);
  EXPECT_DOUBLE_EQ(saved.stash.at(ModelPart::Head), testing::kSyntheticHeadStash);
  EXPECT_DOUBLE_EQ(saved.stash.at(ModelPart::Embedding), 0);
}

TEST(SavedBytes, ABlockIsTheLargestOverBlocksAndMicroBatches) {
  json t = testing::synthetic_execution_trace();
  // A second micro-batch of block0 whose mm allocates more, read by its backward.
  long long rf = 1000;
  const auto attrs = [&](long long seq) {
    return json::array({{{"name", "rf_id"}, {"type", "uint64"}, {"value", rf++}},
                        {{"name", "seq_id"}, {"type", "int64"}, {"value", seq}}});
  };
  const json none = {{"values", json::array()}, {"types", json::array()}};
  const auto one = [](long long storage, long long numel) {
    return json{{"values", json::array({json::array({storage, storage, 0, numel, 2, "cuda:0"})})},
                {"types", json::array({"Tensor(c10::BFloat16)"})}};
  };
  t["nodes"].push_back(
      {{"id", 50}, {"name", "block0"}, {"ctrl_deps", 3}, {"inputs", none}, {"outputs", none}, {"attrs", attrs(-1)}});
  t["nodes"].push_back({{"id", 51},
                        {"name", "aten::mm"},
                        {"ctrl_deps", 50},
                        {"inputs", none},
                        {"outputs", one(60, 4000)},
                        {"attrs", attrs(200)}});
  t["nodes"].push_back({{"id", 52},
                        {"name", "autograd::engine::evaluate_function: MmBackward0"},
                        {"ctrl_deps", 20},
                        {"inputs", none},
                        {"outputs", none},
                        {"attrs", attrs(200)}});  // Kineto-style: seq on the node
  t["nodes"].push_back({{"id", 53},
                        {"name", "aten::mm"},
                        {"ctrl_deps", 52},
                        {"inputs", one(60, 4000)},
                        {"outputs", none},
                        {"attrs", attrs(-1)}});
  const SavedBytes saved = saved_bytes(parse_execution_trace(t.dump(), "et.json"));
  EXPECT_EQ(saved.microbatches, 2);
  EXPECT_DOUBLE_EQ(saved.stash.at(ModelPart::Block), 8192);  // 8000 B in 512-byte blocks, above the first's 3072
}

// pipesim import TRACE --execution-trace ET writes the parts' stash bytes
// into the calibration, which a model workload then keeps.
TEST(SavedBytes, TheImportWritesThemAndAModelWorkloadRunsWithThem) {
  using namespace pipesim::testing;
  const std::string kineto = write_file("synthetic-kineto.json", synthetic_trace().dump());
  const std::string et = write_file("synthetic-et.json", synthetic_execution_trace().dump());
  const std::string out = temp_path("synthetic-stash.calibration.yaml");
  const CliResult r = run_pipesim("import " + kineto + " --execution-trace " + et + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_text(out);
  EXPECT_NE(text.find("\nblock.stash_bytes: 3072\nembedding.stash_bytes: 0\nhead.stash_bytes: 34816\n"),
            std::string::npos)
      << text;
  const std::string w = write_file("synthetic-stash.yaml",
                                   "name: small\nmodel: {layers: 1, hidden: 64, heads: 4, vocab: 1000, seq_length: 8, "
                                   "microbatch_size: 2, calibration: " +
                                       out + "}\nmicrobatches: 1\nschedule: gpipe\n");
  const std::string json = temp_path("synthetic-stash.json");
  const CliResult run = run_pipesim("run " + std::string(PIPESIM_SOURCE_DIR) + "/platforms/h200-1gpu.xml " + w +
                                    " --quiet --json " + json);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // One micro-batch in flight at its last forward: the embedding's, the block's and the head's stash.
  EXPECT_DOUBLE_EQ(read_json(json).at("devices").at(0).at("peak_breakdown").at("activations").get<double>(),
                   kSyntheticBlockStash + kSyntheticHeadStash);
  const CliResult graph = run_pipesim("import " + std::string(PIPESIM_SOURCE_DIR) +
                                      "/workloads/profiles/resnet18/graph.txt --execution-trace " + et);
  EXPECT_EQ(graph.exit_code, 2);
  EXPECT_NE(graph.err.find("--execution-trace is for a profiler trace (.json), not a graph.txt"), std::string::npos)
      << graph.err;
}

TEST(SavedBytes, MalformedTracesGiveOneLine) {
  const std::string good = testing::synthetic_execution_trace().dump();
  EXPECT_EQ(error_of("{\"schema\": \"x\"}"),
            "et.json: nodes: missing: not a PyTorch execution trace (torch.profiler.ExecutionTraceObserver)");
  EXPECT_EQ(error_of("[]"), "et.json: document: expected a JSON object (a PyTorch execution trace), got array");
  EXPECT_EQ(error_of("{\"nodes\": {}}"), "et.json: nodes: expected a list of nodes, got object");
  json t = testing::synthetic_execution_trace();
  t["nodes"][4]["outputs"]["values"][0] = json::array({1, -2, 0, 4, 2, "cuda:0"});
  EXPECT_EQ(error_of(t.dump()),
            "et.json: nodes[4].outputs.values[0]: expected [tensor id, storage id, offset, numel, itemsize, device], "
            "got [1,-2,0,4,2,\"cuda:0\"]");
  t = testing::synthetic_execution_trace();
  t["nodes"][4]["attrs"] = json::array();
  EXPECT_EQ(error_of(t.dump()),
            "et.json: nodes[4].attrs: no rf_id: not an execution trace of schema 1.1 (attributes listed in attrs)");
  t = testing::synthetic_execution_trace();
  t["nodes"][0]["ctrl_deps"] = 3;  // process -> ProfilerStep -> thread -> process
  EXPECT_EQ(error_of(t.dump()), "et.json: nodes: node 2's ctrl_deps make a cycle");
  t = testing::synthetic_execution_trace();
  t["nodes"][5]["name"] = "blk";
  EXPECT_EQ(error_of(t.dump()),
            "et.json: nodes: no record_function node named like a block ('(block|layer|layers|h)[._]?[0-9]+'): label "
            "each block's forward with torch.profiler.record_function");
  EXPECT_EQ(error_of(good), "");
}

}  // namespace
}  // namespace pipesim
