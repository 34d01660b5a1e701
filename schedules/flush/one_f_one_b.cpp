#include <algorithm>
#include <stdexcept>
#include <string>

#include "schedules/flush/flush_sequences.hpp"

namespace pipesim {

int one_f_one_b_warmup(int stage, int stages, int microbatches) { return std::min(stages - stage - 1, microbatches); }

namespace {

// 1F1B with stage s warming up with warmups[s] forwards (at most M).
std::vector<StageSequence> sequences_with_warmups(const std::vector<int>& warmups, int microbatches) {
  const int M = microbatches;
  const int stages = static_cast<int>(warmups.size());
  std::vector<StageSequence> result(stages);
  for (int s = 0; s < stages; ++s) {
    const int warmup = std::min(warmups[s], M);
    StageSequence& seq = result[s];
    for (int m = 0; m < warmup; ++m) seq.push_back({TaskKind::Forward, m});
    for (int i = 0; i < M - warmup; ++i) {  // steady: F(warmup+i) then B(i)
      seq.push_back({TaskKind::Forward, warmup + i});
      seq.push_back({TaskKind::Backward, i});
    }
    for (int m = M - warmup; m < M; ++m) seq.push_back({TaskKind::Backward, m});
  }
  return result;
}

}  // namespace

std::vector<StageSequence> one_f_one_b_sequences(int stages, int microbatches) {
  std::vector<int> warmups(stages);
  for (int s = 0; s < stages; ++s) warmups[s] = one_f_one_b_warmup(s, stages, microbatches);
  return sequences_with_warmups(warmups, microbatches);
}

std::vector<int> device_hops_to_last(const StagePlan& plan) {
  const int S = static_cast<int>(plan.stages.size());
  std::vector<int> hops(S, 0);
  for (int s = S - 2; s >= 0; --s) hops[s] = hops[s + 1] + (plan.stages[s].device != plan.stages[s + 1].device ? 1 : 0);
  return hops;
}

std::vector<StageSequence> one_f_one_b_sequences(const StagePlan& plan, int microbatches) {
  return sequences_with_warmups(device_hops_to_last(plan), microbatches);
}

// Firing k of each node handles one micro-batch: F_s handles k + shift(F_s)
// with shift(F_s) = S-s-1 (in steady state stage s runs F(m+S-s-1) just
// before B(m)), B_s handles k (shift 0), and a transfer has the shift of its
// producer. A data arc u -> v (same micro-batch) then carries
// tokens = shift(u) - shift(v): 1 into each F_{s+1}, 0 along the backward
// chain. Device arcs: F_s -> B_s (0 tokens), B_s -> F_s (1 token). Each
// transfer has a self-loop of 1 token: a link carries one transfer per
// direction at a time. Arc delay = duration of its source node.
// For uniform stages (F, B) and per-hop time c, the critical cycle is
// F_0 -> ... -> F_{S-1} -> B_{S-1} -> ... -> B_0 -> F_0 with S tokens:
// period F + B + 2(S-1)c/S; without transfers, F + B.
TimedEventGraph one_f_one_b_event_graph(const StagePlan& plan, const Platform& platform) {
  // Its device arcs are one stage's: stages sharing a device run a merged order it does not describe.
  if (shares_devices(plan)) throw std::invalid_argument("1F1B event graph: one stage per device expected");
  TimedEventGraph g;
  const int S = static_cast<int>(plan.stages.size());
  std::vector<int> f(S), b(S);
  for (int s = 0; s < S; ++s) {
    f[s] = g.add_node("F" + std::to_string(s));
    b[s] = g.add_node("B" + std::to_string(s));
  }
  for (int s = 0; s < S; ++s) {
    const Stage& st = plan.stages[s];
    g.add_arc(f[s], b[s], st.forward_seconds, 0);
    g.add_arc(b[s], f[s], st.backward_seconds, 1);
  }
  // Connects producer -> consumer with `tokens`, through a transfer node when
  // the tensor really crosses devices.
  auto link = [&](int from_node, double from_delay, int src_stage, int dst_stage, double bytes, int to_node,
                  int tokens) {
    const int src = plan.stages[src_stage].device, dst = plan.stages[dst_stage].device;
    if (src == dst || bytes <= 0) {
      g.add_arc(from_node, to_node, from_delay, tokens);
      return;
    }
    const double c = platform.transfer_time(src, dst, bytes);
    const int t = g.add_node("T" + std::to_string(src_stage) + ">" + std::to_string(dst_stage));
    g.add_arc(from_node, t, from_delay, 0);
    g.add_arc(t, to_node, c, tokens);
    g.add_arc(t, t, c, 1);
  };
  for (int s = 0; s + 1 < S; ++s) {
    const Stage& lo = plan.stages[s];
    const Stage& hi = plan.stages[s + 1];
    link(f[s], lo.forward_seconds, s, s + 1, lo.output_bytes, f[s + 1], 1);
    link(b[s + 1], hi.backward_seconds, s + 1, s, hi.input_bytes, b[s], 0);
  }
  return g;
}

}  // namespace pipesim
