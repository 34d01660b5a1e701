// PipeDream's planner against PipeDream's own optimizer on the ResNet
// chains: the same partitions, to the layer, and the same time per stage,
// to the bit, for ResNet-18/50/101 on 4 and 8 machines, without a memory
// constraint and for 13 memory sizes, with and without the communication
// term, with and without --use_fewer_machines.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "schedules/pipedream/pipedream_baseline.hpp"
#include "schedules/pipedream/pipedream_baseline_internal.hpp"
#include "schedules/pipedream/pipedream_planner.hpp"
#include "tests/support/cli_runner.hpp"
#include "workloads/pipedream_profile.hpp"

namespace pipesim {
namespace {

struct Expected {
  const char* net;
  int machines;
  bool communication;  // --activation_compression_ratio 1 (-b 12.5e9)
  bool fewer;          // --use_fewer_machines
  double gib;          // --use_memory_constraint -s GIB x 2^30; 0: no constraint
  const char* stages;  // 0-based inclusive layer ranges, or "infeasible" (the optimizer fails)
  double time;         // its "Time per stage in pipeline", seconds
};

// Produced by PipeDream's optimizer_graph_hierarchical.py, msr-fiddle/pipedream
// commit 7db6a1c3e64996d5b319faec6ca38cb31bfea1c4, run unmodified under
// /usr/bin/python3 (3.11) with --straight_pipeline on the chain pipesim imports,
// written as a graph.txt whose every node is a layer of the chain (see the
// script for how its sizes carry PipeDream's memory and transfer bytes):
//
//   git -C PIPEDREAM_CLONE archive 7db6a1c3e64996d5b319faec6ca38cb31bfea1c4 optimizer graph | tar -x -C /tmp/pipedream
//   /usr/bin/python3 scripts/pipedream_reference.py /tmp/pipedream
//
// The script stubs graphviz in a temporary folder and runs each case with
// Python's sets of graph nodes iterating in chain order (graph.Node hashed by
// the number in its id). As shipped they iterate in memory-address order,
// which changes from run to run: the optimizer then breaks ties between
// equally good split points in a random order (and sums compute times in
// it). `scripts/pipedream_reference.py /tmp/pipedream --unmodified 8` runs
// each case 8 times as shipped: every partition it returns has the same time
// per stage as the one below (docs/study.md, "PipeDream").
const Expected kExpected[] = {
    {"resnet18", 4, false, false, 0, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, false, 1, "infeasible", 0},
    {"resnet18", 4, false, false, 1.5, "infeasible", 0},
    {"resnet18", 4, false, false, 2, "infeasible", 0},
    {"resnet18", 4, false, false, 3, "0|1|2-5|6-25", 0.16390299999999994},
    {"resnet18", 4, false, false, 4, "0|1-3|4-9|10-25", 0.10112099999999996},
    {"resnet18", 4, false, false, 6, "0-1|2-5|6-11|12-25", 0.082309999999999967},
    {"resnet18", 4, false, false, 8, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, false, 12, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, false, 16, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, false, 24, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, false, 32, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, false, 48, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, false, 64, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, true, 0, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, true, 1, "infeasible", 0},
    {"resnet18", 4, false, true, 1.5, "infeasible", 0},
    {"resnet18", 4, false, true, 2, "infeasible", 0},
    {"resnet18", 4, false, true, 3, "0|1|2-5|6-25", 0.16390299999999994},
    {"resnet18", 4, false, true, 4, "0|1-3|4-9|10-25", 0.10112099999999996},
    {"resnet18", 4, false, true, 6, "0-1|2-5|6-11|12-25", 0.082309999999999967},
    {"resnet18", 4, false, true, 8, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, true, 12, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, true, 16, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, true, 24, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, true, 32, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, true, 48, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, false, true, 64, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, false, 0, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, false, 1, "infeasible", 0},
    {"resnet18", 4, true, false, 1.5, "infeasible", 0},
    {"resnet18", 4, true, false, 2, "infeasible", 0},
    {"resnet18", 4, true, false, 3, "0|1|2-5|6-25", 0.16390299999999994},
    {"resnet18", 4, true, false, 4, "0|1|2-6|7-25", 0.13153337343999999},
    {"resnet18", 4, true, false, 6, "0|1|2-6|7-25", 0.13153337343999999},
    {"resnet18", 4, true, false, 8, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, false, 12, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, false, 16, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, false, 24, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, false, 32, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, false, 48, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, false, 64, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, true, 0, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, true, 1, "infeasible", 0},
    {"resnet18", 4, true, true, 1.5, "infeasible", 0},
    {"resnet18", 4, true, true, 2, "infeasible", 0},
    {"resnet18", 4, true, true, 3, "0|1|2-5|6-25", 0.16390299999999994},
    {"resnet18", 4, true, true, 4, "0|1|2-6|7-25", 0.13153337343999999},
    {"resnet18", 4, true, true, 6, "0-1|2-6|7-25", 0.13153337343999999},
    {"resnet18", 4, true, true, 8, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, true, 12, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, true, 16, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, true, 24, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, true, 32, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, true, 48, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 4, true, true, 64, "0-3|4-6|7-13|14-25", 0.071762999999999993},
    {"resnet18", 8, false, false, 0, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, false, 1, "infeasible", 0},
    {"resnet18", 8, false, false, 1.5, "infeasible", 0},
    {"resnet18", 8, false, false, 2, "infeasible", 0},
    {"resnet18", 8, false, false, 3, "infeasible", 0},
    {"resnet18", 8, false, false, 4, "infeasible", 0},
    {"resnet18", 8, false, false, 6, "0|1|2-3|4-5|6-7|8-11|12-16|17-25", 0.044322999999999974},
    {"resnet18", 8, false, false, 8, "0|1|2-3|4-5|6-7|8-11|12-16|17-25", 0.044322999999999974},
    {"resnet18", 8, false, false, 12, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, false, 16, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, false, 24, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, false, 32, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, false, 48, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, false, 64, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, true, 0, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, true, 1, "infeasible", 0},
    {"resnet18", 8, false, true, 1.5, "infeasible", 0},
    {"resnet18", 8, false, true, 2, "infeasible", 0},
    {"resnet18", 8, false, true, 3, "infeasible", 0},
    {"resnet18", 8, false, true, 4, "infeasible", 0},
    {"resnet18", 8, false, true, 6, "0|1|2-3|4-5|6-7|8-11|12-16|17-25", 0.044322999999999974},
    {"resnet18", 8, false, true, 8, "0|1|2-3|4-5|6-7|8-11|12-16|17-25", 0.044322999999999974},
    {"resnet18", 8, false, true, 12, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, true, 16, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, true, 24, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, true, 32, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, true, 48, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, false, true, 64, "0|1-3|4|5-6|7-8|9-12|13-17|18-25", 0.040595999999999965},
    {"resnet18", 8, true, false, 0, "0-3|4|5|6|7|8|9-14|15-25", 0.058435999999999995},
    {"resnet18", 8, true, false, 1, "infeasible", 0},
    {"resnet18", 8, true, false, 1.5, "infeasible", 0},
    {"resnet18", 8, true, false, 2, "infeasible", 0},
    {"resnet18", 8, true, false, 3, "infeasible", 0},
    {"resnet18", 8, true, false, 4, "infeasible", 0},
    {"resnet18", 8, true, false, 6, "0|1|2|3|4|5|6|7-25", 0.13153337343999999},
    {"resnet18", 8, true, false, 8, "0|1|2|3|4|5|6|7-25", 0.13153337343999999},
    {"resnet18", 8, true, false, 12, "0|1|2|3|4|5|6|7-25", 0.13153337343999999},
    {"resnet18", 8, true, false, 16, "0|1|2|3|4|5|6|7-25", 0.13153337343999999},
    {"resnet18", 8, true, false, 24, "0-3|4|5|6|7|8|9-14|15-25", 0.058435999999999995},
    {"resnet18", 8, true, false, 32, "0-3|4|5|6|7|8|9-14|15-25", 0.058435999999999995},
    {"resnet18", 8, true, false, 48, "0-3|4|5|6|7|8|9-14|15-25", 0.058435999999999995},
    {"resnet18", 8, true, false, 64, "0-3|4|5|6|7|8|9-14|15-25", 0.058435999999999995},
    {"resnet18", 8, true, true, 0, "0-3|4|5-6|7-8|9-14|15-25", 0.058435999999999995},
    {"resnet18", 8, true, true, 1, "infeasible", 0},
    {"resnet18", 8, true, true, 1.5, "infeasible", 0},
    {"resnet18", 8, true, true, 2, "infeasible", 0},
    {"resnet18", 8, true, true, 3, "infeasible", 0},
    {"resnet18", 8, true, true, 4, "infeasible", 0},
    {"resnet18", 8, true, true, 6, "0|1|2|3-4|5-6|7-25", 0.13153337343999999},
    {"resnet18", 8, true, true, 8, "0|1|2-3|4-6|7-25", 0.13153337343999999},
    {"resnet18", 8, true, true, 12, "0|1-2|3-6|7-25", 0.13153337343999999},
    {"resnet18", 8, true, true, 16, "0|1-2|3-6|7-25", 0.13153337343999999},
    {"resnet18", 8, true, true, 24, "0-3|4|5-6|7-8|9-14|15-25", 0.058435999999999995},
    {"resnet18", 8, true, true, 32, "0-3|4|5-6|7-8|9-14|15-25", 0.058435999999999995},
    {"resnet18", 8, true, true, 48, "0-3|4|5-6|7-8|9-14|15-25", 0.058435999999999995},
    {"resnet18", 8, true, true, 64, "0-3|4|5-6|7-8|9-14|15-25", 0.058435999999999995},
    {"resnet50", 4, false, false, 0, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, false, false, 1, "infeasible", 0},
    {"resnet50", 4, false, false, 1.5, "0|1|2-3|4-42", 0.41651000000000021},
    {"resnet50", 4, false, false, 2, "0|1-3|4|5-42", 0.38432400000000022},
    {"resnet50", 4, false, false, 3, "0|1-3|4-6|7-42", 0.3735670000000002},
    {"resnet50", 4, false, false, 4, "0-3|4|5-8|9-42", 0.34047600000000022},
    {"resnet50", 4, false, false, 6, "0-3|4-6|7-12|13-42", 0.26151500000000022},
    {"resnet50", 4, false, false, 8, "0-3|4-6|7-16|17-42", 0.22148600000000021},
    {"resnet50", 4, false, false, 12, "0-5|6-11|12-24|25-42", 0.13945800000000014},
    {"resnet50", 4, false, false, 16, "0-6|7-14|15-25|26-42", 0.132382},
    {"resnet50", 4, false, false, 24, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, false, false, 32, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, false, false, 48, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, false, false, 64, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, false, true, 0, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, false, true, 1, "infeasible", 0},
    {"resnet50", 4, false, true, 1.5, "0|1|2-3|4-42", 0.41651000000000021},
    {"resnet50", 4, false, true, 2, "0|1-3|4|5-42", 0.38432400000000022},
    {"resnet50", 4, false, true, 3, "0|1-3|4-6|7-42", 0.3735670000000002},
    {"resnet50", 4, false, true, 4, "0-3|4|5-8|9-42", 0.34047600000000022},
    {"resnet50", 4, false, true, 6, "0-3|4-6|7-12|13-42", 0.26151500000000022},
    {"resnet50", 4, false, true, 8, "0-3|4-6|7-16|17-42", 0.22148600000000021},
    {"resnet50", 4, false, true, 12, "0-5|6-11|12-24|25-42", 0.13945800000000014},
    {"resnet50", 4, false, true, 16, "0-6|7-14|15-25|26-42", 0.132382},
    {"resnet50", 4, false, true, 24, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, false, true, 32, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, false, true, 48, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, false, true, 64, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, false, 0, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, false, 1, "infeasible", 0},
    {"resnet50", 4, true, false, 1.5, "0|1|2-3|4-42", 0.41651000000000021},
    {"resnet50", 4, true, false, 2, "0|1-2|3-4|5-42", 0.38432400000000022},
    {"resnet50", 4, true, false, 3, "0|1-2|3-6|7-42", 0.3735670000000002},
    {"resnet50", 4, true, false, 4, "0-2|3-4|5-8|9-42", 0.34047600000000022},
    {"resnet50", 4, true, false, 6, "0-2|3-6|7-12|13-42", 0.26151500000000022},
    {"resnet50", 4, true, false, 8, "0|1-6|7-16|17-42", 0.22148600000000021},
    {"resnet50", 4, true, false, 12, "0-5|6-11|12-24|25-42", 0.13945800000000014},
    {"resnet50", 4, true, false, 16, "0-6|7-14|15-25|26-42", 0.132382},
    {"resnet50", 4, true, false, 24, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, false, 32, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, false, 48, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, false, 64, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, true, 0, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, true, 1, "infeasible", 0},
    {"resnet50", 4, true, true, 1.5, "0|1|2-3|4-42", 0.41651000000000021},
    {"resnet50", 4, true, true, 2, "0|1-2|3-4|5-42", 0.38432400000000022},
    {"resnet50", 4, true, true, 3, "0|1-2|3-6|7-42", 0.3735670000000002},
    {"resnet50", 4, true, true, 4, "0-2|3-4|5-8|9-42", 0.34047600000000022},
    {"resnet50", 4, true, true, 6, "0-2|3-6|7-12|13-42", 0.26151500000000022},
    {"resnet50", 4, true, true, 8, "0|1-6|7-16|17-42", 0.22148600000000021},
    {"resnet50", 4, true, true, 12, "0-5|6-11|12-24|25-42", 0.13945800000000014},
    {"resnet50", 4, true, true, 16, "0-6|7-14|15-25|26-42", 0.132382},
    {"resnet50", 4, true, true, 24, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, true, 32, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, true, 48, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 4, true, true, 64, "0-8|9-16|17-27|28-42", 0.11899000000000001},
    {"resnet50", 8, false, false, 0, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, false, false, 1, "infeasible", 0},
    {"resnet50", 8, false, false, 1.5, "infeasible", 0},
    {"resnet50", 8, false, false, 2, "infeasible", 0},
    {"resnet50", 8, false, false, 3, "infeasible", 0},
    {"resnet50", 8, false, false, 4, "infeasible", 0},
    {"resnet50", 8, false, false, 6, "0|1|2|3|4|5-7|8-15|16-42", 0.23828600000000022},
    {"resnet50", 8, false, false, 8, "0|1|2-3|4|5-6|7-9|10-22|23-42", 0.15684100000000017},
    {"resnet50", 8, false, false, 12, "0-3|4|5-6|7-8|9-13|14-20|21-29|30-42", 0.098573000000000022},
    {"resnet50", 8, false, false, 16, "0-3|4-5|6-8|9-11|12-18|19-23|24-31|32-42", 0.076290999999999998},
    {"resnet50", 8, false, false, 24, "0-4|5-7|8-9|10-13|14-18|19-24|25-32|33-42", 0.073330000000000117},
    {"resnet50", 8, false, false, 32, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, false, false, 48, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, false, false, 64, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, false, true, 0, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, false, true, 1, "infeasible", 0},
    {"resnet50", 8, false, true, 1.5, "infeasible", 0},
    {"resnet50", 8, false, true, 2, "infeasible", 0},
    {"resnet50", 8, false, true, 3, "0|1|2-3|4-6|7-42", 0.3735670000000002},
    {"resnet50", 8, false, true, 4, "0|1|2-3|4|5-8|9-42", 0.34047600000000022},
    {"resnet50", 8, false, true, 6, "0|1-3|4|5-7|8-15|16-42", 0.23828600000000022},
    {"resnet50", 8, false, true, 8, "0|1-3|4|5-6|7-9|10-22|23-42", 0.15684100000000017},
    {"resnet50", 8, false, true, 12, "0-3|4|5-6|7-8|9-13|14-20|21-29|30-42", 0.098573000000000022},
    {"resnet50", 8, false, true, 16, "0-3|4-5|6-8|9-11|12-18|19-23|24-31|32-42", 0.076290999999999998},
    {"resnet50", 8, false, true, 24, "0-4|5-7|8-9|10-13|14-18|19-24|25-32|33-42", 0.073330000000000117},
    {"resnet50", 8, false, true, 32, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, false, true, 48, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, false, true, 64, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, true, false, 0, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, true, false, 1, "infeasible", 0},
    {"resnet50", 8, true, false, 1.5, "infeasible", 0},
    {"resnet50", 8, true, false, 2, "infeasible", 0},
    {"resnet50", 8, true, false, 3, "infeasible", 0},
    {"resnet50", 8, true, false, 4, "infeasible", 0},
    {"resnet50", 8, true, false, 6, "0|1|2|3|4|5-7|8-15|16-42", 0.23828600000000022},
    {"resnet50", 8, true, false, 8, "0|1|2|3-4|5-6|7-9|10-22|23-42", 0.15684100000000017},
    {"resnet50", 8, true, false, 12, "0|1|2|3-6|7-9|10-17|18-27|28-42", 0.11012000000000008},
    {"resnet50", 8, true, false, 16, "0-2|3-5|6-8|9-11|12-18|19-23|24-31|32-42", 0.076290999999999998},
    {"resnet50", 8, true, false, 24, "0|1-6|7-9|10-11|12-18|19-24|25-32|33-42", 0.073330000000000117},
    {"resnet50", 8, true, false, 32, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, true, false, 48, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, true, false, 64, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, true, true, 0, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, true, true, 1, "infeasible", 0},
    {"resnet50", 8, true, true, 1.5, "infeasible", 0},
    {"resnet50", 8, true, true, 2, "infeasible", 0},
    {"resnet50", 8, true, true, 3, "0|1|2|3-6|7-42", 0.3735670000000002},
    {"resnet50", 8, true, true, 4, "0|1|2|3-4|5-8|9-42", 0.34047600000000022},
    {"resnet50", 8, true, true, 6, "0|1-2|3-4|5-7|8-15|16-42", 0.23828600000000022},
    {"resnet50", 8, true, true, 8, "0|1-2|3-4|5-6|7-9|10-22|23-42", 0.15684100000000017},
    {"resnet50", 8, true, true, 12, "0-2|3-6|7-9|10-17|18-27|28-42", 0.11012000000000008},
    {"resnet50", 8, true, true, 16, "0-2|3-5|6-8|9-11|12-18|19-23|24-31|32-42", 0.076290999999999998},
    {"resnet50", 8, true, true, 24, "0|1-6|7-9|10-11|12-18|19-24|25-32|33-42", 0.073330000000000117},
    {"resnet50", 8, true, true, 32, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, true, true, 48, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet50", 8, true, true, 64, "0-5|6-9|10-11|12-16|17-20|21-27|28-33|34-42", 0.068684999999999996},
    {"resnet101", 4, false, false, 0, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, false, false, 1, "0|1-3|4|5-76", 0.38025500000000012},
    {"resnet101", 4, false, false, 1.5, "0|1-3|4-6|7-76", 0.37515300000000013},
    {"resnet101", 4, false, false, 2, "0-3|4|5-8|9-76", 0.35768900000000015},
    {"resnet101", 4, false, false, 3, "0-3|4-6|7-12|13-76", 0.31674000000000013},
    {"resnet101", 4, false, false, 4, "0-3|4-6|7-16|17-76", 0.29426800000000014},
    {"resnet101", 4, false, false, 6, "0-5|6-11|12-43|44-76", 0.16237000000000001},
    {"resnet101", 4, false, false, 8, "0-6|7-16|17-45|46-76", 0.14810000000000001},
    {"resnet101", 4, false, false, 12, "0-9|10-28|29-52|53-76", 0.11655500000000008},
    {"resnet101", 4, false, false, 16, "0-13|14-32|33-54|55-76", 0.10697100000000004},
    {"resnet101", 4, false, false, 24, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, false, false, 32, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, false, false, 48, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, false, false, 64, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, false, true, 0, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, false, true, 1, "0|1-3|4|5-76", 0.38025500000000012},
    {"resnet101", 4, false, true, 1.5, "0|1-3|4-6|7-76", 0.37515300000000013},
    {"resnet101", 4, false, true, 2, "0-3|4|5-8|9-76", 0.35768900000000015},
    {"resnet101", 4, false, true, 3, "0-3|4-6|7-12|13-76", 0.31674000000000013},
    {"resnet101", 4, false, true, 4, "0-3|4-6|7-16|17-76", 0.29426800000000014},
    {"resnet101", 4, false, true, 6, "0-5|6-11|12-43|44-76", 0.16237000000000001},
    {"resnet101", 4, false, true, 8, "0-6|7-16|17-45|46-76", 0.14810000000000001},
    {"resnet101", 4, false, true, 12, "0-9|10-28|29-52|53-76", 0.11655500000000008},
    {"resnet101", 4, false, true, 16, "0-13|14-32|33-54|55-76", 0.10697100000000004},
    {"resnet101", 4, false, true, 24, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, false, true, 32, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, false, true, 48, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, false, true, 64, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, false, 0, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, false, 1, "0|1-2|3-4|5-76", 0.38025500000000012},
    {"resnet101", 4, true, false, 1.5, "0|1-2|3-6|7-76", 0.37515300000000013},
    {"resnet101", 4, true, false, 2, "0-2|3-4|5-8|9-76", 0.35768900000000015},
    {"resnet101", 4, true, false, 3, "0-2|3-6|7-12|13-76", 0.31674000000000013},
    {"resnet101", 4, true, false, 4, "0|1-6|7-16|17-76", 0.29426800000000014},
    {"resnet101", 4, true, false, 6, "0-5|6-11|12-43|44-76", 0.16237000000000001},
    {"resnet101", 4, true, false, 8, "0-6|7-16|17-45|46-76", 0.14810000000000001},
    {"resnet101", 4, true, false, 12, "0-9|10-28|29-52|53-76", 0.11655500000000008},
    {"resnet101", 4, true, false, 16, "0-13|14-32|33-54|55-76", 0.10697100000000004},
    {"resnet101", 4, true, false, 24, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, false, 32, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, false, 48, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, false, 64, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, true, 0, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, true, 1, "0|1-2|3-4|5-76", 0.38025500000000012},
    {"resnet101", 4, true, true, 1.5, "0|1-2|3-6|7-76", 0.37515300000000013},
    {"resnet101", 4, true, true, 2, "0-2|3-4|5-8|9-76", 0.35768900000000015},
    {"resnet101", 4, true, true, 3, "0-2|3-6|7-12|13-76", 0.31674000000000013},
    {"resnet101", 4, true, true, 4, "0|1-6|7-16|17-76", 0.29426800000000014},
    {"resnet101", 4, true, true, 6, "0-5|6-11|12-43|44-76", 0.16237000000000001},
    {"resnet101", 4, true, true, 8, "0-6|7-16|17-45|46-76", 0.14810000000000001},
    {"resnet101", 4, true, true, 12, "0-9|10-28|29-52|53-76", 0.11655500000000008},
    {"resnet101", 4, true, true, 16, "0-13|14-32|33-54|55-76", 0.10697100000000004},
    {"resnet101", 4, true, true, 24, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, true, 32, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, true, 48, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 4, true, true, 64, "0-14|15-33|34-55|56-76", 0.10557399999999997},
    {"resnet101", 8, false, false, 0, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, false, false, 1, "infeasible", 0},
    {"resnet101", 8, false, false, 1.5, "infeasible", 0},
    {"resnet101", 8, false, false, 2, "infeasible", 0},
    {"resnet101", 8, false, false, 3, "0|1|2|3|4|5-7|8-15|16-76", 0.30394000000000015},
    {"resnet101", 8, false, false, 4, "0|1|2-3|4|5-6|7-9|10-28|29-76", 0.23103000000000015},
    {"resnet101", 8, false, false, 6, "0-3|4|5-6|7-8|9-13|14-28|29-52|53-76", 0.11655500000000008},
    {"resnet101", 8, false, false, 8, "0-3|4-5|6-8|9-13|14-26|27-43|44-59|60-76", 0.084858000000000045},
    {"resnet101", 8, false, false, 12, "0-4|5-8|9-13|14-24|25-37|38-50|51-63|64-76", 0.066156000000000048},
    {"resnet101", 8, false, false, 16, "0-6|7-10|11-18|19-28|29-40|41-52|53-64|65-76", 0.059028000000000025},
    {"resnet101", 8, false, false, 24, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, false, false, 32, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, false, false, 48, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, false, false, 64, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, false, true, 0, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, false, true, 1, "infeasible", 0},
    {"resnet101", 8, false, true, 1.5, "0|1|2-3|4-6|7-76", 0.37515300000000013},
    {"resnet101", 8, false, true, 2, "0|1|2-3|4|5-8|9-76", 0.35768900000000015},
    {"resnet101", 8, false, true, 3, "0|1-3|4|5-7|8-15|16-76", 0.30394000000000015},
    {"resnet101", 8, false, true, 4, "0|1-3|4|5-6|7-9|10-28|29-76", 0.23103000000000015},
    {"resnet101", 8, false, true, 6, "0-3|4|5-6|7-8|9-13|14-28|29-52|53-76", 0.11655500000000008},
    {"resnet101", 8, false, true, 8, "0-3|4-5|6-8|9-13|14-26|27-43|44-59|60-76", 0.084858000000000045},
    {"resnet101", 8, false, true, 12, "0-4|5-8|9-13|14-24|25-37|38-50|51-63|64-76", 0.066156000000000048},
    {"resnet101", 8, false, true, 16, "0-6|7-10|11-18|19-28|29-40|41-52|53-64|65-76", 0.059028000000000025},
    {"resnet101", 8, false, true, 24, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, false, true, 32, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, false, true, 48, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, false, true, 64, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, false, 0, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, false, 1, "infeasible", 0},
    {"resnet101", 8, true, false, 1.5, "infeasible", 0},
    {"resnet101", 8, true, false, 2, "infeasible", 0},
    {"resnet101", 8, true, false, 3, "0|1|2|3|4|5-7|8-15|16-76", 0.30394000000000015},
    {"resnet101", 8, true, false, 4, "0|1|2|3-4|5-6|7-9|10-28|29-76", 0.23103000000000015},
    {"resnet101", 8, true, false, 6, "0-2|3-4|5|6-8|9-13|14-28|29-52|53-76", 0.11655500000000008},
    {"resnet101", 8, true, false, 8, "0-2|3-5|6-8|9-13|14-26|27-43|44-59|60-76", 0.084858000000000045},
    {"resnet101", 8, true, false, 12, "0-4|5-7|8-13|14-24|25-37|38-50|51-63|64-76", 0.066156000000000048},
    {"resnet101", 8, true, false, 16, "0-6|7-10|11-18|19-28|29-40|41-52|53-64|65-76", 0.059028000000000025},
    {"resnet101", 8, true, false, 24, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, false, 32, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, false, 48, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, false, 64, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, true, 0, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, true, 1, "infeasible", 0},
    {"resnet101", 8, true, true, 1.5, "0|1|2|3-6|7-76", 0.37515300000000013},
    {"resnet101", 8, true, true, 2, "0|1|2|3-4|5-8|9-76", 0.35768900000000015},
    {"resnet101", 8, true, true, 3, "0|1-2|3-4|5-7|8-15|16-76", 0.30394000000000015},
    {"resnet101", 8, true, true, 4, "0|1-2|3-4|5-6|7-9|10-28|29-76", 0.23103000000000015},
    {"resnet101", 8, true, true, 6, "0-2|3-4|5|6-8|9-13|14-28|29-52|53-76", 0.11655500000000008},
    {"resnet101", 8, true, true, 8, "0-2|3-5|6-8|9-13|14-26|27-43|44-59|60-76", 0.084858000000000045},
    {"resnet101", 8, true, true, 12, "0-4|5-7|8-13|14-24|25-37|38-50|51-63|64-76", 0.066156000000000048},
    {"resnet101", 8, true, true, 16, "0-6|7-10|11-18|19-28|29-40|41-52|53-64|65-76", 0.059028000000000025},
    {"resnet101", 8, true, true, 24, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, true, 32, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, true, 48, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
    {"resnet101", 8, true, true, 64, "0-8|9-15|16-23|24-34|35-45|46-55|56-65|66-76", 0.056192000000000047},
};

Platform complete(int P, double bandwidth) {
  Platform p;
  for (int i = 0; i < P; ++i) p.devices.push_back({"gpu" + std::to_string(i), 100e12, 32.0 * (1 << 30), "gpu"});
  p.paths.assign(P * P, Path{});
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j)
      if (i != j) p.paths[i * P + j] = {true, 0, bandwidth, 1};
  return p;
}

TEST(PipeDreamPlanner, PartitionsAreThoseOfPipeDreamsOptimizer) {
  int compared = 0;
  for (const char* net : {"resnet18", "resnet50", "resnet101"}) {
    const Workload w =
        import_pipedream(std::string(PIPESIM_SOURCE_DIR) + "/workloads/profiles/" + net + "/graph.txt").workload;
    for (const Expected& e : kExpected) {
      if (std::string(e.net) != net) continue;
      const std::string what = std::string(net) + " P=" + std::to_string(e.machines) +
                               (e.communication ? " comm" : "") + (e.fewer ? " fewer" : "") + " " +
                               std::to_string(e.gib) + " GiB";
      const PipeDreamPlan plan =
          pipedream_plan(w, complete(e.machines, 12.5e9), {e.gib * (1 << 30), e.communication, e.fewer});
      ++compared;
      if (std::string(e.stages) == "infeasible") {
        EXPECT_FALSE(plan.feasible) << what;
        continue;
      }
      ASSERT_TRUE(plan.feasible) << what;
      EXPECT_EQ(describe_stages(plan.last_layer), e.stages) << what;
      EXPECT_EQ(plan.bottleneck, e.time) << what;
      if (e.gib > 0) {
        for (double estimate : plan.estimate) EXPECT_LE(estimate, e.gib * (1 << 30)) << what;
      }
    }
  }
  EXPECT_EQ(compared, 336);
}

// As shipped, PipeDream's optimizer returns a different one of several
// equally good partitions from run to run; every one it returned in 8 runs
// of each of the 336 cases (scripts/pipedream_reference.py /tmp/pipedream
// --unmodified 8) is among pipedream_tied_partitions. Two of those cases:
TEST(PipeDreamPlanner, TiedPartitionsIncludeWhatPipeDreamReturnsAsShipped) {
  struct Case {
    const char* net;
    int machines;
    bool communication, fewer;
    double gib;
    std::vector<std::string> returned;  // by 8 unmodified runs
  };
  const Case cases[] = {
      {"resnet18",
       4,
       true,
       true,
       4,
       {"0|1-2|3-6|7-25", "0|1-2|3-9|10-25", "0|1-3|4-10|11-25", "0|1-3|4-6|7-25", "0|1-3|4-9|10-25"}},
      {"resnet50",
       8,
       false,
       false,
       0,
       {"0-5|6-9|10-11|12-18|19-23|24-30|31-34|35-42", "0-5|6-9|10-13|14-18|19-20|21-29|30-34|35-42",
        "0-5|6-9|10-13|14-18|19-22|23-29|30-34|35-42", "0-5|6-9|10-13|14-18|19-24|25-29|30-33|34-42",
        "0-5|6-9|10-13|14-19|20-24|25-29|30-33|34-42"}},
  };
  for (const Case& c : cases) {
    const Workload w =
        import_pipedream(std::string(PIPESIM_SOURCE_DIR) + "/workloads/profiles/" + c.net + "/graph.txt").workload;
    const PipeDreamChain chain = pipedream_chain(w, complete(c.machines, 12.5e9));
    const PipeDreamSettings s{c.machines, c.gib * (1 << 30), c.fewer, c.communication ? 1.0 : 0.0, 12.5e9};
    const PipeDreamPartition first = pipedream_partition(chain, s);
    const std::vector<PipeDreamPartition> all = pipedream_tied_partitions(chain, s);
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(all[0].last_layer, first.last_layer);  // the planner's own first
    std::set<std::string> stages;
    for (const PipeDreamPartition& p : all) {
      stages.insert(describe_stages(p.last_layer));
      EXPECT_EQ(p.time_per_stage, first.time_per_stage);
      for (double e : p.estimate) EXPECT_TRUE(s.memory_size <= 0 || e <= s.memory_size);
    }
    EXPECT_EQ(stages.size(), all.size());  // distinct
    for (const std::string& r : c.returned) EXPECT_TRUE(stages.count(r)) << c.net << " " << r;
  }
  // Without the communication term, each is a partition whose slowest stage takes that time.
  const Workload w =
      import_pipedream(std::string(PIPESIM_SOURCE_DIR) + "/workloads/profiles/resnet50/graph.txt").workload;
  const PipeDreamChain chain = pipedream_chain(w, complete(8, 12.5e9));
  for (const PipeDreamPartition& p : pipedream_tied_partitions(chain, {8, 0, false, 0, 12.5e9})) {
    double slowest = 0;
    for (std::size_t i = 0, first = 0; i < p.last_layer.size(); first = p.last_layer[i] + 1, ++i) {
      double t = 0;
      for (int l = static_cast<int>(first); l <= p.last_layer[i]; ++l) t += chain.compute[l];
      slowest = std::max(slowest, t);
    }
    EXPECT_NEAR(slowest, p.time_per_stage, 1e-12 * slowest);
  }
}

// The caveat of earlier studies (docs/study.md): on ResNet-18, 8 machines,
// target 17.42 GiB, transfer term and fewer machines on, PipeDream may return
// 0-3|4-5|6-7|8-12|13-16|17-25, not the planner's own, and that partition run
// with NOAM 1 fits 4 GiB at 383.05 ms, which beat the ILP's 399.50 ms there.
// The study's baseline now has its ties: its best at 4 GiB is as fast, and
// the ILP's point (the allocation search's) faster (docs/study/resnet18-8).
TEST(PipeDreamPlanner, TheStudysBaselineHasTheTiesAndTheIlpBeatsThem) {
  const std::string root = std::string(PIPESIM_SOURCE_DIR) + "/";
  const Workload w = import_pipedream(root + "workloads/profiles/resnet18/graph.txt").workload;
  const PipeDreamChain chain = pipedream_chain(w, complete(8, 12.5e9));
  const PipeDreamSettings s{8, 17.42 * (1 << 30), true, 1.0, 12.5e9};
  std::set<std::string> tied;
  for (const PipeDreamPartition& p : pipedream_tied_partitions(chain, s)) tied.insert(describe_stages(p.last_layer));
  const std::string partition = "0-3|4-5|6-7|8-12|13-16|17-25";
  EXPECT_TRUE(tied.count(partition));
  EXPECT_NE(describe_stages(pipedream_partition(chain, s).last_layer), partition);  // not the planner's own

  const std::string workload = testing::write_file(
      "tied.yaml",
      testing::read_text(root + "docs/study/resnet18-8/workload.yaml") +
          "schedule: {name: pipedream, allocation: \"0,0,0,0,1,1,2,2,3,3,3,3,3,4,4,4,4,5,5,5,5,5,5,5,5,5\", "
          "noam: 1, memory_policy: seed000}\n");
  const std::string json = testing::temp_path("tied.json");
  const testing::CliResult r =
      testing::run_pipesim("run " + root + "platforms/complete-8.xml " + workload + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = testing::read_json(json);
  EXPECT_NEAR(report["time_per_microbatch"].get<double>(), 0.38305, 0.000005);
  double peak = 0;
  for (const auto& d : report["devices"]) peak = std::max(peak, d["peak_memory"].get<double>());
  EXPECT_LE(peak, 4.0 * (1 << 30));
  const std::string table = testing::read_text(root + "docs/study/resnet18-8/table.md");
  EXPECT_NE(table.find("| 4.00 GiB | 383.05 ms |"), std::string::npos) << table;  // PipeDream's best, a tie
  EXPECT_NE(table.find("| 300.85 ms |"), std::string::npos) << table;              // the ILP's, faster
}

// The answer changes only at pipedream_memory_thresholds: at any memory
// size it is the answer at the largest threshold at or below it.
TEST(PipeDreamPlanner, AnswersChangeOnlyAtTheThresholds) {
  const Workload w =
      import_pipedream(std::string(PIPESIM_SOURCE_DIR) + "/workloads/profiles/resnet50/graph.txt").workload;
  for (int P : {4, 8}) {
    const PipeDreamChain chain = pipedream_chain(w, complete(P, 12.5e9));
    const std::vector<double> thresholds = pipedream_memory_thresholds(chain, P);
    ASSERT_GT(thresholds.size(), 100u);
    for (std::size_t i = 0; i + 1 < thresholds.size(); i += 7)
      for (bool comm : {false, true})
        for (bool fewer : {false, true}) {
          PipeDreamSettings s{P, thresholds[i], fewer, comm ? 1.0 : 0.0, 12.5e9};
          const PipeDreamPartition at = pipedream_partition(chain, s);
          s.memory_size = (thresholds[i] + thresholds[i + 1]) / 2;  // strictly between two thresholds
          const PipeDreamPartition between = pipedream_partition(chain, s);
          EXPECT_EQ(at.feasible, between.feasible);
          EXPECT_EQ(at.last_layer, between.last_layer) << P << " " << thresholds[i];
        }
  }
}

}  // namespace
}  // namespace pipesim
