// The PyTorch schedules simulated on SimGrid with unit costs and free
// transfers, against the published closed forms: interleaved 1F1B's bubble
// (p-1)/(v·M) of the ideal time (Megatron-LM, Narayanan et al. 2021);
// ZB-H1's (p-1)(T_F + T_B - T_W) against 1F1B's (p-1)(T_F + T_B + T_W)
// (Qi et al. 2024, T_B the input-gradient part); ZB-H2 and ZB-V without a
// bubble once their iterations tile; and the peak activations each keeps
// in flight.
#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "schedules/registry.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim {
namespace {

struct Case {
  std::string schedule;
  int p;  // devices
  int v;  // stages per device (one layer each)
  int M;
  double input_grad = 1, weight_grad = 1;  // seconds of I and W per layer (B = their sum)
  int iterations = 1;
  int memory_limit = 0;  // zb-auto: stashes per stage in units of p (0: its default, 1)
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.schedule << " p=" << c.p << " v=" << c.v << " M=" << c.M << " I=" << c.input_grad << " W=" << c.weight_grad
      << " K=" << c.iterations << " limit=" << c.memory_limit;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  std::string name = c.schedule + "_p" + std::to_string(c.p) + "_v" + std::to_string(c.v) + "_M" + std::to_string(c.M);
  if (c.input_grad != c.weight_grad) name += "_unequal";
  if (c.iterations > 1) name += "_K" + std::to_string(c.iterations);
  if (c.memory_limit > 0) name += "_limit" + std::to_string(c.memory_limit);
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

// p·v layers of forward 1 s; activations of `activation` bytes.
Workload chain(const Case& c, double activation) {
  Workload w;
  w.file = "chain.yaml";
  w.schedule = c.schedule;
  w.microbatches = c.M;
  w.iterations = c.iterations;
  w.reference_speed = 1e12;
  w.input = activation;
  for (int l = 0; l < c.p * c.v; ++l) {
    Layer layer{"l" + std::to_string(l), {1, false}, {c.input_grad + c.weight_grad, false}, activation, 0};
    if (c.input_grad != c.weight_grad) {
      layer.split_given = true;
      layer.backward_input = {c.input_grad, false};
      layer.backward_weight = {c.weight_grad, false};
    }
    w.layers.push_back(layer);
  }
  if (c.v > 1 && c.schedule != "zbv" && c.schedule != "dualpipev")
    w.schedule_params["virtual_stages"] = std::to_string(c.v);
  if (c.memory_limit > 0) w.schedule_params["memory_limit"] = std::to_string(c.memory_limit);
  return w;
}

// The published makespan of one run (see the file comment), per device:
// busy M·v·(T_F + T_B + T_W), plus the bubble.
double closed_form_makespan(const Case& c) {
  const double F = 1, I = c.input_grad, W = c.weight_grad;
  const double busy = c.iterations * c.M * c.v * (F + I + W);
  if (c.schedule == "interleaved-1f1b") return busy * (1 + double(c.p - 1) / (c.v * c.M));
  // The automatic schedule (the paper's ZB-1p, ZB-2p): what the handcrafted
  // ZB-H1 and ZB-H2 reach within the same memory (the paper, section 3.1).
  if (c.schedule == "zb-h1" || (c.schedule == "zb-auto" && c.memory_limit <= 1)) return busy + (c.p - 1) * (F + I - W);
  if (c.schedule == "1f1b") return busy + (c.p - 1) * (F + I + W);
  // ZB-H2, and ZB-V (PyTorch: zero bubble when T_F = T_B = T_W): only the
  // ramp of the first iteration, the iterations tile.
  if (c.schedule == "zb-h2" || c.schedule == "zbv" || c.schedule == "zb-auto") return busy + (c.p - 1) * F;
  // DualPipeV with its pairs sharing the device (no published form for this
  // model; hand-derived below for p = 2, M = 4): the same ramp of p-1 forwards.
  if (c.schedule == "dualpipev") return busy + (c.p - 1) * F;
  ADD_FAILURE() << "no closed form for " << c.schedule;
  return 0;
}

class ClosedForms : public ::testing::TestWithParam<Case> {};

TEST_P(ClosedForms, MakespanAndBubble) {
  const Case c = GetParam();
  Simulation sim(testing::complete_platform(c.p));
  const TaskGraph g = generate(chain(c, 0), sim.platform()).graph;
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const Metrics m = compute_metrics(g, tl, sim.platform(), 1);
  const double busy = c.iterations * c.M * c.v * (1 + c.input_grad + c.weight_grad);
  EXPECT_DOUBLE_EQ(m.makespan, closed_form_makespan(c));
  for (int d = 0; d < c.p; ++d) EXPECT_DOUBLE_EQ(m.devices[d].busy_time, busy) << d;
  if (c.schedule == "interleaved-1f1b") {  // Megatron-LM's bubble fraction, of the ideal time
    EXPECT_NEAR((m.makespan - busy) / busy, double(c.p - 1) / (c.v * c.M), 1e-12);
  }
  if (c.schedule == "zb-h2") {
    // Every device busy from its first op to its last: no bubble inside.
    for (int d = 0; d < c.p; ++d) {
      double first = 1e300, last = 0;
      for (TaskId t : g.device_order(d)) first = std::min(first, tl.start[t]), last = std::max(last, tl.finish[t]);
      EXPECT_DOUBLE_EQ(last - first, busy) << "device " << d;
    }
  }
}

std::vector<Case> closed_form_cases() {
  std::vector<Case> cases;
  for (int p : {2, 4})
    for (int v : {2, 3})
      for (int k : {1, 2}) cases.push_back({"interleaved-1f1b", p, v, k * p});
  for (const char* s : {"zb-h1", "1f1b"})
    for (int p : {2, 3, 4})
      for (int M : {p, 2 * p, 3 * p}) cases.push_back({s, p, 1, M});
  cases.push_back({"zb-h1", 4, 1, 8, 1.5, 0.5});
  cases.push_back({"1f1b", 4, 1, 8, 1.5, 0.5});
  for (int p : {2, 3, 4})
    for (int M : {2 * p - 1, 2 * p, 3 * p}) cases.push_back({"zb-h2", p, 1, M, 1, 1, 3});
  cases.push_back({"zb-h2", 4, 1, 8});
  for (int p : {2, 3, 4})
    for (int M : {p, 2 * p, 3 * p})
      for (int limit : {1, 2}) cases.push_back({"zb-auto", p, 1, M, 1, 1, 1, limit});
  for (int p : {2, 3, 4})
    for (int M : {2 * p - 1, 3 * p})
      for (int K : {1, 3}) cases.push_back({"zbv", p, 2, M, 1, 1, K});
  for (int p : {1, 2, 3, 4})
    for (int M : {2 * p, 2 * p + 1, 4 * p + 2}) cases.push_back({"dualpipev", p, 2, M});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Pytorch, ClosedForms, ::testing::ValuesIn(closed_form_cases()), case_name);

// Peak activations per device, in stage stashes (a layer's input each):
// what the schedule keeps between a micro-batch's F and its last backward
// op (B, or W, which holds the stash until it runs).
int expected_peak(const Case& c, int r) {
  const int p = c.p, v = c.v, M = c.M;
  if (c.schedule == "interleaved-1f1b") {  // warm-up forwards + 1 (Megatron-LM §2.2)
    const int round = M / std::max(1, M / p);
    return std::min((v - 1) * round + 2 * (p - 1 - r) + 1, v * M);
  }
  if (c.schedule == "1f1b") return std::min(p - r, M);
  if (c.schedule == "zb-h1") return std::min(p, M);          // the paper's p·M_B, on every device
  if (c.schedule == "zb-h2") return std::min(2 * p - 1, M);  // the paper's (2p-1)·M_B
  if (c.schedule == "zb-auto") return std::min(std::max(1, c.memory_limit) * p, M);  // its limit
  if (c.schedule == "zbv") return std::min(2 * p, 2 * M);  // the paper: 1F1B's p·M_B, in half-size stashes
  if (c.schedule == "looped-bfs") return v * M;
  // DeepSeek's DualPipe table: activations PP + 1 per device for DualPipeV on
  // PP / 2 devices, PP being the stages (here 2p, each a half-size stash).
  if (c.schedule == "dualpipev") return 2 * p + 1;
  ADD_FAILURE() << c.schedule;
  return 0;
}

class PeakActivations : public ::testing::TestWithParam<Case> {};

TEST_P(PeakActivations, PerDevice) {
  const Case c = GetParam();
  const double activation = 1024;  // a KiB over 1 PB/s: transfers take 1e-12 s
  Simulation sim(testing::complete_platform(c.p, "1PBps"));
  const TaskGraph g = generate(chain(c, activation), sim.platform()).graph;
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const auto peaks = peak_memory(g, tl);
  const int activations = static_cast<int>(MemoryCategory::Activations);
  for (int r = 0; r < c.p; ++r)
    EXPECT_DOUBLE_EQ(peaks[r].category_peaks[activations] / activation, expected_peak(c, r)) << "device " << r;
}

std::vector<Case> peak_cases() {
  std::vector<Case> cases;
  for (int p : {2, 4}) {
    for (int M : {p, 2 * p}) {
      cases.push_back({"interleaved-1f1b", p, 2, M});
      cases.push_back({"1f1b", p, 1, M});
      cases.push_back({"zb-h1", p, 1, M});
      cases.push_back({"zb-h2", p, 1, M});
      for (int limit : {1, 2}) cases.push_back({"zb-auto", p, 1, M, 1, 1, 1, limit});
    }
    cases.push_back({"looped-bfs", p, 2, 3});
    for (int M : {2 * p - 1, 2 * p}) cases.push_back({"zbv", p, 2, M});           // enough micro-batches to fill the V
    for (int M : {2 * p, 3 * p, 5 * p}) cases.push_back({"dualpipev", p, 2, M});  // needs M >= 2p
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Pytorch, PeakActivations, ::testing::ValuesIn(peak_cases()), case_name);

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// DualPipeV on 2 devices, 4 micro-batches, unit costs (F 1 s, I 1 s, W 1 s,
// B 2 s per stage), free transfers: every op's start and finish derived by
// hand from the orders
//   gpu0: 0F0 0F1 0F2 3F0 3I0 3W0 3F1 (0F3;3B1) (3F2;0B0) 3B2 (3F3;0B1) 3B3 0I2 0W2 0I3 0W3
//   gpu1: 1F0 2F0 1F1 2F1 1F2 2B0 (2F2;1B0) (1F3;2B1) (2F3;1B1) 2B2 1B2 2I3 1I3 2W3 1W3
// A pair starts when the ops before it have finished (each of its two ops
// when its input is there too) and shares the device: each runs at half
// speed while both run, at full speed alone. E.g. at 7 s gpu0 starts 0F3
// (1 s of work) and 3B1 (2 s): 0F3 ends at 9, 3B1 has 1 s left and ends at
// 10. (3F3;0B1) at 16: 0B1 waits for 1B1 (until 17), so 3F3 runs alone.
TEST(DualPipeV, HandDerivedTimesWithUnitCosts) {
  Case c{"dualpipev", 2, 2, 4};
  Simulation sim(testing::complete_platform(2));
  const TaskGraph g = generate(chain(c, 0), sim.platform()).graph;
  const Timeline tl = sim.run(g);
  ASSERT_TRUE(tl.completed()) << tl.deadlock;
  const char* kinds = "FBIW";
  auto name = [&](TaskId t) {
    const Task& task = g.task(t);
    const int k = task.kind == TaskKind::Forward         ? 0
                  : task.kind == TaskKind::Backward      ? 1
                  : task.kind == TaskKind::BackwardInput ? 2
                                                         : 3;
    return std::to_string(task.stage) + kinds[k] + std::to_string(task.microbatch);
  };
  auto times = [&](int d) {
    std::string s;
    for (TaskId t : g.device_order(d)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s%s[%g,%g]", s.empty() ? "" : " ", name(t).c_str(), tl.start[t], tl.finish[t]);
      s += buf;
    }
    return s;
  };
  EXPECT_EQ(times(0),
            "0F0[0,1] 0F1[1,2] 0F2[2,3] 3F0[3,4] 3I0[4,5] 3W0[5,6] 3F1[6,7] 0F3[7,9] 3B1[7,10] 3F2[10,11] "
            "0B0[11,13] 3B2[13,15] 3F3[16,17] 0B1[17,19] 3B3[19,21] 0I2[21,22] 0W2[22,23] 0I3[23,24] 0W3[24,25]");
  EXPECT_EQ(times(1),
            "1F0[1,2] 2F0[2,3] 1F1[3,4] 2F1[4,5] 1F2[5,6] 2B0[6,8] 2F2[8,10] 1B0[8,11] 1F3[11,13] 2B1[11,14] "
            "2F3[14,16] 1B1[14,17] 2B2[17,19] 1B2[19,21] 2I3[21,22] 1I3[22,23] 2W3[23,24] 1W3[24,25]");
  EXPECT_DOUBLE_EQ(tl.makespan, 25);  // busy 24 + (p-1)·T_F
  // The pairs' second ops run on lane 1, the rest on lane 0.
  for (TaskId t : g.device_order(0)) EXPECT_EQ(g.task(t).lane, g.beside_previous(t) ? 1 : 0) << name(t);
  // The device's work is counted once: 24 s busy, and as much work on its resource.
  const Metrics m = compute_metrics(g, tl, sim.platform(), 1);
  for (int d = 0; d < 2; ++d) {
    EXPECT_DOUBLE_EQ(m.devices[d].busy_time, 24);
    ASSERT_EQ(m.devices[d].resources.size(), 1u);
    EXPECT_DOUBLE_EQ(m.devices[d].resources[0].busy_time, 24);
  }
}

}  // namespace
}  // namespace pipesim
