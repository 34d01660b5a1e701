// The data of one ILP instance (seed 000 §3, §6 notation): tasks T_1..T_2L,
// k copies of each (ops), durations d, output sizes a, transfer times ~d,
// memory, the period bounds and the big constant K.
#pragma once

#include <string>
#include <vector>

#include "patterns/allocation.hpp"
#include "patterns/pattern.hpp"
#include "schedules/ilp/ilp.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim::ilp {

struct Instance {
  int L = 0, k = 1, P = 0;  // layers, copies, devices
  bool fixed = false;       // fixed-allocation mode
  Allocation allocation;    // fixed mode: device of every layer
  WeightPolicy weights = WeightPolicy::TwoBW;
  LinkModel links = LinkModel::Platform;

  // Which transfers share a link resource (LinkResources under `links`).
  // Fixed mode: per edge, the resources of its route (empty: none).
  std::vector<std::vector<int>> edge_links;
  // Free mode, where devices are anonymous: whether two transfers of
  // different edges can share a resource, per relation of their end devices
  // (the LinkClass of the pair), over every choice of devices of the
  // platform (so a pattern with any labelling is covered). Under Pair or on
  // a hand-filled path table: SameRoute and Reverse only (seed 000 (8), (9)).
  enum LinkClass { SameRoute, Reverse, SameSource, SameTarget, TargetIsSource, SourceIsTarget, Disjoint, kClasses };
  bool conflicts[kClasses] = {};
  // The class of transfers s1 -> t1 and s2 -> t2 (s1 != t1, s2 != t2).
  static LinkClass link_class(int s1, int t1, int s2, int t2);
  // Whether the transfers of edges e1 != e2 share a resource when layer l
  // runs on devices[l] (both must cross devices).
  bool share_link(int e1, int e2, const std::vector<int>& devices) const;

  // Paper tasks j = 1..2L: F_l is j = l + 1, B_l is j = 2L - l (0-based l).
  // Ops o = (j - 1) * k + c for copy c. Edges e = 1..2L-1: T_e -> T_{e+1}.
  int tasks() const { return 2 * L; }
  int ops() const { return 2 * L * k; }
  int op(int j, int c) const { return (j - 1) * k + c; }
  int task(int o) const { return o / k + 1; }
  int copy(int o) const { return o % k; }
  int layer(int j) const { return j <= L ? j - 1 : 2 * L - j; }
  bool forward(int j) const { return j <= L; }
  int forward_task(int l) const { return l + 1; }
  int backward_task(int l) const { return 2 * L - l; }
  int device(int j) const { return allocation[layer(j)]; }  // fixed mode only

  std::vector<double> duration;  // per op: d_j on its device (free mode: on the slowest device)
  std::vector<double> out;       // per task j (index j; [0] unused): bytes of T_j's output a_j
  std::vector<double> transfer;  // per edge e (index e): ~d_e (free: slowest pair; fixed: its pair, 0 if none)
  std::vector<double> stash;     // per layer: a_{l-1}, the input F_l keeps for B_l
  std::vector<double> weight;    // per layer: W_l
  std::vector<double> memory;    // per device (free mode: one value, the smallest)

  double T_lower = 0, T_upper = 0, K = 0;

  // The edge can need a transfer (F_L -> B_L never does; fixed mode: devices differ).
  bool cross(int e) const;
  // The transfer occupies a link: cross and out[e] > 0 (empty ones use none, as in find_overlap).
  // Fixed mode: and its route holds a resource (not only FatPipe links).
  bool uses_link(int e) const { return cross(e) && out[e] > 0 && (!fixed || !edge_links[e].empty()); }
  double memory_of(int j) const { return fixed ? memory[device(j)] : memory[0]; }
  std::string name(int o) const;  // F1, B2; with copies F1c0
};

// Throws std::invalid_argument for bad options or a platform the mode cannot
// use (see docs/ilp.md). upper: a known feasible period (0: none).
Instance make_instance(const Workload& workload, const Platform& platform, const IlpOptions& options, double upper);

}  // namespace pipesim::ilp
