// PipeDream profiles (graph.txt, the profiler's operator DAG) turned into
// chain workloads by seed 000 §7's linearization (docs/import.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "workloads/workload.hpp"

namespace pipesim {

// One operator of a profile, as PipeDream's graph.py reads it: times in
// milliseconds per profiled minibatch, sizes in bytes.
struct ProfileNode {
  std::string id;    // "node12"
  std::string desc;  // "Conv2d(64, 64, ...)"
  double forward_ms = 0;
  double backward_ms = 0;
  double activation = 0;  // output bytes (a list "[a; b]" is summed, as graph.py does)
  double parameters = 0;  // parameter bytes
  int line = 0;           // 1-based line in the file
};

struct ProfileGraph {
  std::string file;                        // for messages
  std::vector<ProfileNode> nodes;          // in file order
  std::vector<std::pair<int, int>> edges;  // node indices, producer -> consumer
};

// Parses graph.txt text. Every problem throws InputError "FILE: line N: WHAT":
// a line that is neither a node nor an edge, a bad or negative number,
// a duplicate node or edge, an edge to an unknown node, a self-loop, a cycle,
// no node at all.
ProfileGraph parse_pipedream_graph(const std::string& text, const std::string& file);
ProfileGraph read_pipedream_graph(const std::string& path);  // + "cannot open"

// Seed 000 §7's linearization: nodes in a topological order (Kahn's, ties by
// the number in "node<N>" = the profiler's execution order, then file order),
// cut into the shortest consecutive groups such that every edge leaving a
// group enters the next one. Then a group's outside predecessors all lie in
// the previous group and its outside successors in the next: the two sets
// are disjoint and the groups form a chain. Greedy: a group is closed as
// soon as every edge from the groups before it ends inside it (an earliest
// cut never forbids more later cuts than a later one would, so the groups
// are minimal). Returns node indices per group, in chain order; nodes
// listed in `skip` are left out (with their edges).
std::vector<std::vector<int>> linearize_profile(const ProfileGraph& graph, const std::vector<bool>& skip = {});

struct ImportOptions {
  std::string name;        // empty: the profile's folder name (or file stem)
  int microbatches = 500;  // seed 000 §7 simulates 500
  int microbatch_size = 1;
};

struct ImportedProfile {
  Workload workload;                     // costs in seconds on the reference device, sizes in bytes
  std::vector<std::vector<int>> groups;  // node indices of each layer
  ProfileGraph graph;
  int inputs_removed = 0;  // "Input*" sources (PipeDream zeroes them): their bytes are workload.input
  int sinks_removed = 0;   // unused "__getitem__*" sinks, dropped as PipeDream's optimizer does
};

// Reads, drops PipeDream's inputs and unused __getitem__ sinks, linearizes:
// layer l = group l with forward/backward = sums of its nodes' times (ms ->
// s), weights = sum of parameter bytes, activation = bytes of the tensors its
// nodes send to the next group (the last group: its sinks' outputs).
ImportedProfile import_pipedream(const std::string& graph_txt, const ImportOptions& options = {});

// The workload as YAML (docs/workload-format.md), deterministic, one flow
// map per layer with a comment naming its operators; load_workload reads it back.
std::string imported_workload_yaml(const ImportedProfile& imported);

}  // namespace pipesim
