// The PyTorch schedules simulated on SimGrid with unit costs and free
// transfers, against the published closed forms: interleaved 1F1B's bubble
// (p-1)/(v·M) of the ideal time (Megatron-LM, Narayanan et al. 2021);
// ZB-H1's (p-1)(T_F + T_B - T_W) against 1F1B's (p-1)(T_F + T_B + T_W)
// (Qi et al. 2024, T_B the input-gradient part); ZB-H2 and ZB-V without a
// bubble once their iterations tile; and the peak activations each keeps
// in flight.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/memory.hpp"
#include "analysis/metrics.hpp"
#include "schedules/registry.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/fixtures.hpp"

namespace pipesim {
namespace {

struct Case {
  std::string schedule;
  int p;  // devices
  int v;  // stages per device (one layer each)
  int M;
  double input_grad = 1, weight_grad = 1;  // seconds of I and W per layer (B = their sum)
  int iterations = 1;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.schedule << " p=" << c.p << " v=" << c.v << " M=" << c.M << " I=" << c.input_grad << " W=" << c.weight_grad
      << " K=" << c.iterations;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  std::string name = c.schedule + "_p" + std::to_string(c.p) + "_v" + std::to_string(c.v) + "_M" + std::to_string(c.M);
  if (c.input_grad != c.weight_grad) name += "_unequal";
  if (c.iterations > 1) name += "_K" + std::to_string(c.iterations);
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
  if (c.v > 1 && c.schedule != "zbv") w.schedule_params["virtual_stages"] = std::to_string(c.v);
  return w;
}

// The published makespan of one run (see the file comment), per device:
// busy M·v·(T_F + T_B + T_W), plus the bubble.
double closed_form_makespan(const Case& c) {
  const double F = 1, I = c.input_grad, W = c.weight_grad;
  const double busy = c.iterations * c.M * c.v * (F + I + W);
  if (c.schedule == "interleaved-1f1b") return busy * (1 + double(c.p - 1) / (c.v * c.M));
  if (c.schedule == "zb-h1") return busy + (c.p - 1) * (F + I - W);
  if (c.schedule == "1f1b") return busy + (c.p - 1) * (F + I + W);
  // ZB-H2, and ZB-V (PyTorch: zero bubble when T_F = T_B = T_W): only the
  // ramp of the first iteration, the iterations tile.
  if (c.schedule == "zb-h2" || c.schedule == "zbv") return busy + (c.p - 1) * F;
  ADD_FAILURE() << "no closed form for " << c.schedule;
  return 0;
}

class ClosedForms : public ::testing::TestWithParam<Case> {};

TEST_P(ClosedForms, MakespanAndBubble) {
  const Case c = GetParam();
  Simulation sim(testing::complete_platform(c.p));
  const TaskGraph g = generate_schedule(chain(c, 0), sim.platform());
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
    for (int M : {2 * p - 1, 3 * p})
      for (int K : {1, 3}) cases.push_back({"zbv", p, 2, M, 1, 1, K});
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
  if (c.schedule == "zb-h1") return std::min(p, M);  // the paper's p·M_B, on every device
  if (c.schedule == "zb-h2") return std::min(2 * p - 1, M);  // the paper's (2p-1)·M_B
  if (c.schedule == "zbv") return std::min(2 * p, 2 * M);    // the paper: 1F1B's p·M_B, in half-size stashes
  if (c.schedule == "looped-bfs") return v * M;
  ADD_FAILURE() << c.schedule;
  return 0;
}

class PeakActivations : public ::testing::TestWithParam<Case> {};

TEST_P(PeakActivations, PerDevice) {
  const Case c = GetParam();
  const double activation = 1024;  // a KiB over 1 PB/s: transfers take 1e-12 s
  Simulation sim(testing::complete_platform(c.p, "1PBps"));
  const TaskGraph g = generate_schedule(chain(c, activation), sim.platform());
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
    }
    cases.push_back({"looped-bfs", p, 2, 3});
    for (int M : {2 * p - 1, 2 * p}) cases.push_back({"zbv", p, 2, M});  // enough micro-batches to fill the V
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Pytorch, PeakActivations, ::testing::ValuesIn(peak_cases()), case_name);

}  // namespace
}  // namespace pipesim
