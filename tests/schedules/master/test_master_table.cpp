// Seed 003's Table 1 against the simulated master scheduler: identical unit
// stages (F = B = 1 s; Table 1's time unit is F + B = 2 s), free transfers,
// every scheme and priority on a grid of (S, B, G, R). Each quantity is
// checked two ways:
//  1. against a closed form that holds for the simulation everywhere on the
//     grid (derived in docs/master-scheduler.md, with proofs), and
//  2. against Table 1 as the seed writes it: the two must agree exactly where
//     docs/master-scheduler.md says the table holds, and differ elsewhere.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/worker_metrics.hpp"
#include "schedules/master/master_scheduler.hpp"
#include "tests/schedules/master/master_test_support.hpp"

namespace pipesim {
namespace {

using testing::kTableUnit;

// What Table 1 says (per worker). The seed's GPipe row is empty; its text says
// LPP with G = 1, R = S is GPipe, so GPipe gets LPP's formulas with those.
struct Table1 {
  double latency;  // in Table 1 units (F + B)
  double activation_xmit;
  double weight_xmit;
  double activation_storage;
  double weight_storage;
};

Table1 table1(MasterScheme scheme, int S, int B, int G, int R) {
  switch (scheme) {
    case MasterScheme::DDP:
      return {double(S), 0, 0, double(S), double(S)};
    case MasterScheme::FSDP:
      return {double(S), 0, double(S - 1), double(S), 1};
    case MasterScheme::GPipe:
      G = 1, R = S;
      [[fallthrough]];
    case MasterScheme::LPP:
    case MasterScheme::FSLPP: {
      const double n = double(B) / G;
      const bool fs = scheme == MasterScheme::FSLPP;
      return {S + n - 1, double(B), fs ? double(S - 1) : 0, double(S) / R * std::min(double(S), n),
              fs ? 1 : double(S) / R};
    }
  }
  return {};
}

struct Case {
  MasterSpec spec;
  MasterShape shape;
  TaskGraph graph;
};

std::string describe(const MasterSpec& spec, const MasterShape& sh) {
  std::string s = std::string(to_string(spec.scheme)) + "/" + std::string(to_string(spec.priority)) +
                  " S=" + std::to_string(sh.S) + " B=" + std::to_string(sh.B);
  if (spec.G) s += " G=" + std::to_string(sh.G) + " R=" + std::to_string(sh.R);
  return s;
}

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

// Stages of worker w = gR + r owned under FSLPP: s = r (mod R) and s = g (mod G).
int fslpp_owned(int S, int G, int R, int w) {
  int n = 0;
  for (int s = 0; s < S; ++s) n += s % R == w % R && s % G == w / R;
  return n;
}

struct SB {
  int S, B;
};
void PrintTo(const SB& sb, std::ostream* os) { *os << "S=" << sb.S << " B=" << sb.B; }

class MasterTable1 : public ::testing::TestWithParam<SB> {};

TEST_P(MasterTable1, ClosedFormsAndWhereTheTableHolds) {
  const auto [S, B] = GetParam();
  std::vector<Case> cases;
  for (MasterPriority p : {MasterPriority::OneFOneB, MasterPriority::DepthFirst, MasterPriority::BreadthFirst}) {
    std::vector<MasterSpec> specs;
    for (MasterScheme scheme : {MasterScheme::DDP, MasterScheme::FSDP, MasterScheme::GPipe}) {
      if (scheme == MasterScheme::FSDP && S > B) continue;
      specs.push_back({scheme, p, 0, 0});
    }
    for (MasterScheme scheme : {MasterScheme::LPP, MasterScheme::FSLPP})
      for (int G : divisors(B))
        for (int R : divisors(S)) specs.push_back({scheme, p, G, R});
    for (const MasterSpec& spec : specs) {
      const MasterShape shape = master_shape(spec, S, B);
      cases.push_back({spec, shape, build_master_graph(spec, testing::unit_stages(S), B, shape.W)});
    }
  }
  std::vector<const TaskGraph*> graphs;
  int hosts = 0;
  for (const Case& c : cases) graphs.push_back(&c.graph), hosts += c.shape.W;
  const std::vector<Timeline> timelines = testing::run_side_by_side(graphs, testing::hosts_platform(hosts));

  // Latencies of breadth-first LPP, to compare the other priorities with.
  std::map<std::pair<int, int>, double> bf_latency;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (cases[i].spec.scheme == MasterScheme::LPP && cases[i].spec.priority == MasterPriority::BreadthFirst)
      bf_latency[{cases[i].shape.G, cases[i].shape.R}] = timelines[i].makespan / kTableUnit;

  // On identical stages 1F1B and depth-first make the same choices: every
  // timeline of one is the other's.
  const std::size_t per_priority = cases.size() / 3;
  for (std::size_t i = 0; i < per_priority; ++i) {
    ASSERT_EQ(cases[i].spec.priority, MasterPriority::OneFOneB);
    ASSERT_EQ(cases[i + per_priority].spec.priority, MasterPriority::DepthFirst);
    EXPECT_EQ(timelines[i].start, timelines[i + per_priority].start) << describe(cases[i].spec, cases[i].shape);
  }

  int table_agreements = 0, table_disagreements = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const MasterScheme scheme = c.spec.scheme;
    const bool looped = scheme == MasterScheme::LPP || scheme == MasterScheme::FSLPP;
    // GPipe is LPP with G = 1, R = S (its shape has no groups).
    const int G = c.shape.G, R = scheme == MasterScheme::GPipe ? S : c.shape.R, W = c.shape.W;
    const int n = B / G;  // batches per group
    const bool bf = c.spec.priority == MasterPriority::BreadthFirst;
    SCOPED_TRACE(describe(c.spec, c.shape));
    const Timeline& tl = timelines[i];
    ASSERT_TRUE(tl.completed()) << tl.deadlock;
    const WorkerReport r = compute_worker_metrics(c.graph, tl, testing::named_devices(W));
    ASSERT_EQ(r.workers, W);
    ASSERT_EQ(r.stages, S);
    ASSERT_EQ(r.microbatches, B);

    // --- Latency, in Table 1 units.
    const double L = r.latency / kTableUnit;
    double expected_L = -1;  // -1: no closed form for this priority
    switch (scheme) {
      case MasterScheme::DDP:
      case MasterScheme::FSDP:
        expected_L = S;
        break;
      case MasterScheme::GPipe:
        expected_L = S + B - 1;
        break;
      default:
        if (bf || R == 1 || R == S) expected_L = std::max(S + n - 1, S / R * n + R - 1);
    }
    if (expected_L >= 0) {
      EXPECT_DOUBLE_EQ(L, expected_L);
    }
    if (looped) {
      // Worker R-1 of a group starts after R-1 forwards (R-1 half units),
      // computes (S/R) n units, and its last backward B(s, b), s >= R-1, is
      // followed by B(s-1, b) .. B(0, b) on the other workers.
      EXPECT_GE(L, double(S / R * n + R - 1));
      EXPECT_GE(L, bf_latency.at({G, R}));
    }

    // --- Per worker: receives, stashes, owned weights.
    int max_act = 0, max_wx = 0, max_owned = 0;
    for (const WorkerMetrics& w : r.per_worker) {
      const int d = w.device, rr = d % R;
      int act = 0, grad = 0, wx = 0, owned = 0;
      switch (scheme) {
        case MasterScheme::DDP:
          owned = S;
          break;
        case MasterScheme::FSDP:
          wx = d < S ? S - 1 : S;
          owned = d < S ? 1 : 0;
          break;
        case MasterScheme::GPipe:
          act = d > 0 ? B : 0;
          grad = d < S - 1 ? B : 0;
          owned = 1;
          break;
        default:
          if (R > 1) {
            act = (S / R - (rr == 0)) * n;       // F(s, b) with s = r (mod R), s >= 1
            grad = (S / R - (rr == R - 1)) * n;  // B(s, b) with s = r (mod R), s <= S - 2
          }
          if (scheme == MasterScheme::LPP) {
            owned = S / R;
          } else {
            owned = fslpp_owned(S, G, R, d);
            wx = (S / R - owned) * n;
          }
      }
      EXPECT_EQ(w.activation_receives, act) << w.name;
      EXPECT_EQ(w.gradient_receives, grad) << w.name;
      EXPECT_EQ(w.weight_receives, wx) << w.name;
      EXPECT_EQ(w.owned_weights, owned) << w.name;
      EXPECT_EQ(w.jobs, 2 * S * B / W) << w.name;
      EXPECT_LE(w.peak_activations, w.jobs / 2) << w.name;    // the seed's bound: items the worker processes
      EXPECT_DOUBLE_EQ(w.busy_time, w.jobs * 1.0) << w.name;  // unit jobs
      EXPECT_DOUBLE_EQ(w.rho, w.busy_time / r.latency) << w.name;
      EXPECT_LE(w.last_finish, r.latency) << w.name;
      max_act = std::max(max_act, w.activation_receives);
      max_wx = std::max(max_wx, w.weight_receives);
      max_owned = std::max(max_owned, w.owned_weights);
    }
    const int M = r.peak_activations;
    int expected_M = -1;
    switch (scheme) {
      case MasterScheme::DDP:
      case MasterScheme::FSDP:
        expected_M = S;
        break;
      case MasterScheme::GPipe:
        expected_M = bf ? B : std::min(B, 2 * S - 1);
        break;
      default:
        if (bf)
          expected_M = S / R * n;
        else if (R == 1)
          expected_M = S;
        else if (R == S)
          expected_M = std::min(n, 2 * S - 1);
    }
    if (expected_M >= 0) {
      EXPECT_EQ(M, expected_M);
    }

    // --- Throughput per worker and the seed's bound rho <= M / S.
    EXPECT_NEAR(r.rho, double(S) * B / (L * W), 1e-12);
    EXPECT_LE(r.rho, double(M) / S + 1e-12);

    // --- Table 1: where it holds (docs/master-scheduler.md, "Table 1").
    const Table1 t = table1(scheme, S, B, G, R);
    auto check = [&](const char* what, double simulated, double table, bool holds) {
      EXPECT_EQ(simulated == table, holds) << what << ": simulated " << simulated << ", Table 1 says " << table;
      (simulated == table ? table_agreements : table_disagreements)++;
    };
    switch (scheme) {
      case MasterScheme::DDP:
        check("latency", L, t.latency, true);
        check("activation xmit", max_act, t.activation_xmit, true);
        check("weight xmit", max_wx, t.weight_xmit, true);
        check("activation storage", M, t.activation_storage, true);
        check("weight storage", max_owned, t.weight_storage, true);
        break;
      case MasterScheme::FSDP:
        check("latency", L, t.latency, true);
        check("activation xmit", max_act, t.activation_xmit, true);
        check("weight xmit", max_wx, t.weight_xmit, B == S);  // workers S..B-1 own no stage: they fetch all S
        check("activation storage", M, t.activation_storage, true);
        check("weight storage", max_owned, t.weight_storage, true);
        break;
      default: {
        if (expected_L >= 0) check("latency", L, t.latency, R == S || n <= R);
        check("activation xmit", max_act, t.activation_xmit, R > 1 && S == W);
        if (scheme != MasterScheme::FSLPP) check("weight xmit", max_wx, t.weight_xmit, true);
        if (expected_M >= 0) {
          const bool holds = bf ? n <= S : R == 1 ? (n == 1 || S == 1) : n <= S;
          check("activation storage", M, t.activation_storage, holds);
        }
        if (scheme == MasterScheme::FSLPP) {
          // One stage per worker only if no two stages share (s mod R, s mod G).
          check("weight storage", max_owned, t.weight_storage, S <= std::lcm(G, R));
          check("weight xmit", max_wx, t.weight_xmit, max_wx == S - 1);
        } else {
          check("weight storage", max_owned, t.weight_storage, true);
        }
      }
    }
  }
  RecordProperty("table1_agreements", table_agreements);
  RecordProperty("table1_disagreements", table_disagreements);
}

std::vector<SB> grid() {
  std::vector<SB> g;
  for (int S : {1, 2, 3, 4, 6, 8})
    for (int B : {1, 2, 3, 4, 8, 16}) g.push_back({S, B});
  return g;
}

INSTANTIATE_TEST_SUITE_P(Grid, MasterTable1, ::testing::ValuesIn(grid()), [](const ::testing::TestParamInfo<SB>& info) {
  return "S" + std::to_string(info.param.S) + "_B" + std::to_string(info.param.B);
});

}  // namespace
}  // namespace pipesim
