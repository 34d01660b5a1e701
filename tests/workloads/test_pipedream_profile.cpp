// PipeDream graph.txt import: parsing, seed 000 §7's linearization on
// hand-made DAGs, conservation of compute and parameters, the shipped
// ResNets, the YAML written, and malformed profiles.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <numeric>
#include <string>
#include <vector>

#include "sim/input_error.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/pipedream_profile.hpp"
#include "workloads/workload_yaml.hpp"

namespace pipesim {
namespace {

const std::string kProfiles = std::string(PIPESIM_SOURCE_DIR) + "/workloads/profiles/";

std::string node(int id, const std::string& desc, double f = 1, double b = 2, double a = 100, double p = 0) {
  return "node" + std::to_string(id) + " -- " + desc + " -- forward_compute_time=" + std::to_string(f) +
         ", backward_compute_time=" + std::to_string(b) + ", activation_size=" + std::to_string(a) +
         ", parameter_size=" + std::to_string(p) + "\n";
}
std::string edge(int a, int b) { return "\tnode" + std::to_string(a) + " -- node" + std::to_string(b) + "\n"; }

// Groups as lists of node ids, for readable expectations.
std::vector<std::vector<std::string>> groups_of(const std::string& text) {
  const ProfileGraph g = parse_pipedream_graph(text, "g.txt");
  std::vector<std::vector<std::string>> out;
  for (const auto& grp : linearize_profile(g)) {
    out.emplace_back();
    for (int u : grp) out.back().push_back(g.nodes[u].id);
  }
  return out;
}

using Groups = std::vector<std::vector<std::string>>;

TEST(PipeDreamProfile, ParsesNodesEdgesAndLists) {
  const ProfileGraph g = parse_pipedream_graph(
      "node1 -- Input0 -- forward_compute_time=0.000, backward_compute_time=0.000, activation_size=8.0, "
      "parameter_size=0.000\n"
      "node2 -- LSTM(2, 2) -- forward_compute_time=3.190, backward_compute_time=5.348, "
      "activation_size=[6.0; 1.0; 1.0], parameter_size=16.000 -- stage_id=0\n"
      "\tnode1 -- node2",
      "g.txt");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[1].id, "node2");
  EXPECT_EQ(g.nodes[1].desc, "LSTM(2, 2)");
  EXPECT_DOUBLE_EQ(g.nodes[1].forward_ms, 3.19);
  EXPECT_DOUBLE_EQ(g.nodes[1].backward_ms, 5.348);
  EXPECT_DOUBLE_EQ(g.nodes[1].activation, 8);  // the list, summed as graph.py does
  EXPECT_DOUBLE_EQ(g.nodes[1].parameters, 16);
  EXPECT_EQ(g.nodes[1].line, 2);
  ASSERT_EQ(g.edges.size(), 1u);
  EXPECT_EQ(g.edges[0], std::make_pair(0, 1));
}

TEST(PipeDreamProfile, PlainChainStaysAsIs) {
  const std::string text =
      node(3, "C") + node(1, "A") + node(2, "B") + node(4, "D") + edge(1, 2) + edge(3, 4) + edge(2, 3);
  EXPECT_EQ(groups_of(text), (Groups{{"node1"}, {"node2"}, {"node3"}, {"node4"}}));
}

TEST(PipeDreamProfile, DiamondBranchesCollapseIntoOneGroup) {
  // 1 -> {2, 3} -> 4: the two branches are one layer between the fork and the join.
  const std::string text =
      node(1, "A") + node(2, "B") + node(3, "C") + node(4, "D") + edge(1, 2) + edge(1, 3) + edge(2, 4) + edge(3, 4);
  EXPECT_EQ(groups_of(text), (Groups{{"node1"}, {"node2", "node3"}, {"node4"}}));
}

TEST(PipeDreamProfile, ResidualBlocksCollapseIntoOneGroup) {
  // Two ResNet basic blocks: x -> conv bn relu conv bn -> add <- x; relu after each add;
  // the second has a downsample branch (conv bn) on the skip connection, as torchvision orders it.
  // The first block is one group; the second splits once its two branches are both under way
  // (after the downsample conv: both edges leaving {10..15} enter {16, 17}).
  std::string text = node(1, "Conv2d") + node(2, "ReLU");  // stem
  text += node(3, "Conv2d") + node(4, "BatchNorm2d") + node(5, "ReLU") + node(6, "Conv2d") + node(7, "BatchNorm2d") +
          node(8, "Add") + node(9, "ReLU");
  text += node(10, "Conv2d") + node(11, "BatchNorm2d") + node(12, "ReLU") + node(13, "Conv2d") +
          node(14, "BatchNorm2d") + node(15, "Conv2d") + node(16, "BatchNorm2d") + node(17, "Add") + node(18, "ReLU");
  text += node(19, "Linear");
  for (int i = 1; i < 8; ++i) text += edge(i, i + 1);
  text += edge(2, 8) + edge(8, 9);
  text += edge(9, 10) + edge(10, 11) + edge(11, 12) + edge(12, 13) + edge(13, 14) + edge(14, 17);
  text += edge(9, 15) + edge(15, 16) + edge(16, 17) + edge(17, 18) + edge(18, 19);
  EXPECT_EQ(groups_of(text), (Groups{{"node1"},
                                     {"node2"},
                                     {"node3", "node4", "node5", "node6", "node7", "node8"},
                                     {"node9"},
                                     {"node10", "node11", "node12", "node13", "node14", "node15"},
                                     {"node16", "node17"},
                                     {"node18"},
                                     {"node19"}}));
}

TEST(PipeDreamProfile, EveryEdgeLeavingAGroupEntersTheNext) {
  // A long skip (1 -> 5) and a nested one (2 -> 4): all of 2..5 become one group.
  const std::string text = node(1, "A") + node(2, "B") + node(3, "C") + node(4, "D") + node(5, "E") + node(6, "F") +
                           edge(1, 2) + edge(2, 3) + edge(3, 4) + edge(4, 5) + edge(1, 5) + edge(2, 4) + edge(5, 6);
  EXPECT_EQ(groups_of(text), (Groups{{"node1"}, {"node2", "node3", "node4", "node5"}, {"node6"}}));
}

TEST(PipeDreamProfile, ImportConservesComputeAndParameters) {
  // Input -> 1 -> {2, 3} -> 4, sizes chosen per node.
  const std::string text = node(9, "Input", 500, 0, 64, 0) + node(1, "Conv2d", 1.5, 2.5, 1000, 10) +
                           node(2, "Conv2d", 2, 3, 200, 20) + node(3, "Conv2d", 4, 5, 300, 30) +
                           node(4, "Add", 0.25, 0.5, 400, 0) + edge(9, 1) + edge(1, 2) + edge(1, 3) + edge(2, 4) +
                           edge(3, 4);
  const std::string path = testing::write_file("graph.txt", text);
  const ImportedProfile r = import_pipedream(path);
  const Workload& w = r.workload;
  EXPECT_EQ(r.inputs_removed, 1);
  EXPECT_DOUBLE_EQ(w.input, 64);  // the Input's bytes; its 500 ms of data loading are dropped
  ASSERT_EQ(w.layers.size(), 3u);
  double f = 0, b = 0, p = 0;
  for (const Layer& l : w.layers) f += l.forward.value, b += l.backward.value, p += l.weights;
  EXPECT_NEAR(f, (1.5 + 2 + 4 + 0.25) / 1000, 1e-15);
  EXPECT_NEAR(b, (2.5 + 3 + 5 + 0.5) / 1000, 1e-15);
  EXPECT_DOUBLE_EQ(p, 60);
  EXPECT_DOUBLE_EQ(w.layers[0].activation, 1000);       // node1, sent once to both branches
  EXPECT_DOUBLE_EQ(w.layers[1].activation, 200 + 300);  // both branch outputs go to the join
  EXPECT_DOUBLE_EQ(w.layers[2].activation, 400);        // the sink's output
  // PipeDream's planner counts every operator's output: here the same, one sender per group.
  EXPECT_EQ(w.layers[1].operator_activations, 200.0 + 300);
  EXPECT_EQ(w.layers[1].name, "node2-node3");
  EXPECT_EQ(w.name, "pipesim-test-" + std::to_string(::getpid()));  // folder of graph.txt
}

TEST(PipeDreamProfile, ResNetsImportAsChains) {
  struct Case {
    std::string model;
    std::size_t operators, layers;
    double all_over_sent;  // every operator's activation_size / the bytes sent between layers
  };
  // ResNet-18: stem (conv, bn, relu, maxpool), 8 basic blocks each [block up to the add] + [relu],
  // the 3 with a downsample split once more (before its BatchNorm), then avgpool, [size, view],
  // linear: 4 + 16 + 3 + 3 = 26. ResNet-50/101: 16/33 bottleneck blocks, 4 downsampling.
  for (const Case& c :
       {Case{"resnet18", 70, 26, 1.8423}, Case{"resnet50", 176, 43, 2.2541}, Case{"resnet101", 346, 77, 2.3982}}) {
    const ImportedProfile r = import_pipedream(kProfiles + c.model + "/graph.txt");
    EXPECT_EQ(r.workload.name, c.model);
    std::size_t ops = 0;
    for (const auto& g : r.groups) ops += g.size();
    EXPECT_EQ(ops, c.operators) << c.model;
    EXPECT_EQ(r.workload.layers.size(), c.layers) << c.model;
    EXPECT_EQ(r.inputs_removed, 1);
    // Totals against the file: every non-Input node's time and parameters are kept.
    double f = 0, p = 0, ff = 0, pp = 0;
    for (const Layer& l : r.workload.layers) f += l.forward.value, p += l.weights;
    for (const ProfileNode& n : r.graph.nodes)
      if (n.desc.rfind("Input", 0) != 0) ff += n.forward_ms / 1000, pp += n.parameters;
    EXPECT_NEAR(f, ff, 1e-12) << c.model;
    EXPECT_DOUBLE_EQ(p, pp) << c.model;
    // operator_activations: every non-Input operator's activation_size, once.
    double all = 0, sent = 0, file_all = 0;
    for (const Layer& l : r.workload.layers) all += *l.operator_activations, sent += l.activation;
    for (const ProfileNode& n : r.graph.nodes)
      if (n.desc.rfind("Input", 0) != 0) file_all += n.activation;
    EXPECT_EQ(all, file_all) << c.model;
    EXPECT_NEAR(all / sent, c.all_over_sent, 1e-4) << c.model;
  }
  const Workload w = import_pipedream(kProfiles + "resnet18/graph.txt").workload;
  EXPECT_DOUBLE_EQ(w.input, 256.0 * 3 * 224 * 224 * 4);
  EXPECT_EQ(w.layers[0].name, "node2");
  EXPECT_NEAR(w.layers[0].forward.value, 0.023046, 1e-15);
  EXPECT_EQ(w.layers[4].name, "node6-node11");  // the first basic block, up to its Add
  EXPECT_DOUBLE_EQ(w.layers[4].activation, 205520896);
  // Its six operators (conv, bn, relu, conv, bn, add) each output 256 x 64 x 56 x 56 x 4 bytes.
  EXPECT_EQ(w.layers[4].operator_activations, 6 * 205520896.0);
  double params = 0;
  for (const Layer& l : w.layers) params += l.weights;
  EXPECT_NEAR(params / 4, 11.7e6, 0.1e6);  // ResNet-18 has 11.7 M parameters (with 1000 classes)
}

TEST(PipeDreamProfile, YamlIsDeterministicAndLoadsBack) {
  const ImportedProfile r = import_pipedream(kProfiles + "resnet50/graph.txt", {"", 16, 4});
  const std::string yaml = imported_workload_yaml(r);
  EXPECT_EQ(yaml, imported_workload_yaml(import_pipedream(kProfiles + "resnet50/graph.txt", {"", 16, 4})));
  const Workload w = load_workload(testing::write_file("resnet50.yaml", yaml));
  EXPECT_EQ(w.name, "resnet50");
  EXPECT_EQ(w.microbatches, 16);
  EXPECT_EQ(w.microbatch_size, 4);
  EXPECT_DOUBLE_EQ(w.input, r.workload.input);
  ASSERT_EQ(w.layers.size(), r.workload.layers.size());
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    const Layer &a = w.layers[l], &b = r.workload.layers[l];
    EXPECT_EQ(a.name, b.name);
    EXPECT_FALSE(a.forward.flops);
    EXPECT_NEAR(a.forward.value, b.forward.value, 1e-12 * b.forward.value + 1e-18);
    EXPECT_NEAR(a.backward.value, b.backward.value, 1e-12 * b.backward.value + 1e-18);
    EXPECT_DOUBLE_EQ(a.activation, b.activation);
    EXPECT_DOUBLE_EQ(a.weights, b.weights);
    EXPECT_EQ(a.operator_activations, b.operator_activations);
  }
  EXPECT_NE(yaml.find("  - {name: node2, forward: 9.706ms, backward: 4.551ms, activation: 411041792, weights: 37632, "
                      "operator_activations: 411041792}  # Conv2d\n"),
            std::string::npos)
      << yaml.substr(0, 800);
}

// The message of the InputError thrown for `text`, or "" if none.
std::string error_of(const std::string& text) {
  try {
    parse_pipedream_graph(text, "g.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PipeDreamProfile, MalformedProfilesAreLineNumberedErrors) {
  const std::string a = node(1, "A"), b = node(2, "B");
  EXPECT_EQ(error_of(""), "g.txt: nodes: none: not a PipeDream graph.txt profile");
  EXPECT_EQ(error_of(a + "garbage\n"),
            "g.txt: line 2: node: expected 'ID -- DESCRIPTION -- forward_compute_time=MS, backward_compute_time=MS, "
            "activation_size=BYTES, parameter_size=BYTES' (an edge line starts with a tab: '\\tID -- ID')");
  EXPECT_EQ(error_of("node1 -- A -- forward_compute_time=1, backward_compute_time=x, activation_size=1, "
                     "parameter_size=0\n"),
            "g.txt: line 1: backward_compute_time: expected a number, got 'x'");
  EXPECT_EQ(error_of("node1 -- A -- forward_compute_time=1, backward_compute_time=1, activation_size=-5, "
                     "parameter_size=0\n"),
            "g.txt: line 1: activation_size: must be >= 0, got '-5'");
  EXPECT_EQ(error_of("node1 -- A -- forward_compute_time=nan, backward_compute_time=1, activation_size=1, "
                     "parameter_size=0\n"),
            "g.txt: line 1: forward_compute_time: expected a number, got 'nan'");
  EXPECT_EQ(error_of("node1 -- A -- forward_time=1, backward_compute_time=1, activation_size=1, parameter_size=0\n"),
            "g.txt: line 1: forward_compute_time: expected 'forward_compute_time=...', got 'forward_time=1'");
  EXPECT_EQ(error_of(a + "\n" + a), "g.txt: line 3: node 'node1': duplicate (first on line 1)");
  EXPECT_EQ(error_of(a + edge(1, 7)), "g.txt: line 2: edge node1 -- node7: unknown node 'node7'");
  EXPECT_EQ(error_of(a + edge(1, 1)), "g.txt: line 2: edge node1 -- node1: from a node to itself");
  EXPECT_EQ(error_of(a + b + edge(1, 2) + edge(1, 2)), "g.txt: line 4: edge node1 -- node2: duplicate");
  EXPECT_EQ(error_of(a + b + "\tnode1 node2\n"), "g.txt: line 3: edge: expected 'ID -- ID', got 'node1 node2'");
  EXPECT_EQ(error_of(a + b + edge(1, 2) + edge(2, 1)),
            "g.txt: line 3: edge node1 -- node2: on a cycle or after one (the graph must have none)");
  // Files: missing, and only inputs.
  try {
    import_pipedream("/nonexistent/graph.txt");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/graph.txt: cannot open: no such file");
  }
  const std::string only_input = testing::write_file("inputs.txt", node(1, "Input0"));
  try {
    import_pipedream(only_input);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), only_input + ": nodes: no operations besides inputs");
  }
}

}  // namespace
}  // namespace pipesim
