#include "schedules/flush/flush_pattern.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "patterns/pattern_timing.hpp"
#include "schedules/stages/stage_merge.hpp"

namespace pipesim {
namespace {

// Ops of the pattern, and each device's list of op indices in execution order.
struct Layout {
  Pattern pattern;
  std::vector<std::vector<int>> device_ops;
};

Layout layout(const StagePlan& plan, const std::vector<StageSequence>& sequences, int layers, int devices) {
  Layout out;
  Pattern& p = out.pattern;
  p.layers = layers;
  p.copies = static_cast<int>(sequences.at(0).size() / 2);
  p.period = 1;  // placeholder until the offsets are known
  p.weights = WeightPolicy::Flush;
  out.device_ops.resize(devices);
  auto add = [&](const Stage& stage, const Op& op) {
    const bool forward = op.kind == TaskKind::Forward;
    for (int i = 0; i <= stage.last_layer - stage.first_layer; ++i) {
      const int layer = forward ? stage.first_layer + i : stage.last_layer - i;  // backward runs the stage in reverse
      out.device_ops[stage.device].push_back(static_cast<int>(p.ops.size()));
      p.ops.push_back({op.kind, layer, op.microbatch, stage.device, 0, 0});
    }
  };
  if (shares_devices(plan)) {  // the devices' orders of the run: the merged order, as build_pipeline emits it
    for (const StageOp& x : merge_stage_sequences(sequences)) add(plan.stages[x.stage], x.op);
    return out;
  }
  for (std::size_t s = 0; s < plan.stages.size(); ++s)
    for (const Op& op : sequences[s]) add(plan.stages[s], op);
  return out;
}

}  // namespace

Pattern flush_pattern(const StagePlan& plan, const std::vector<StageSequence>& sequences, const Workload& workload,
                      const Platform& platform, LinkModel links) {
  Layout l = layout(plan, sequences, static_cast<int>(workload.layers.size()), platform.size());
  Pattern& p = l.pattern;
  p.links = links;
  const PatternTiming timing = pattern_timing(p, workload, platform);
  const std::vector<int> successor = p.successors();
  const double unknown = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> input_ready(p.ops.size(), unknown);
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (p.task_number(p.ops[i]) == 1) input_ready[i] = 0;  // F of the first layer needs nothing
  std::vector<std::size_t> next(platform.size(), 0);
  std::vector<double> device_free(platform.size(), 0);
  std::vector<int> last_op(platform.size(), -1);
  struct Link {
    double free = 0;
    int last = -1;  // its latest transfer
  };
  std::vector<Link> on_link(timing.link_names.size());  // per link resource
  const double inf = std::numeric_limits<double>::infinity();
  double period = 0, last_start = 0;
  for (std::size_t placed = 0; placed < p.ops.size(); ++placed) {
    // The device whose next op can start first.
    int best = -1;
    double best_start = 0;
    for (int d = 0; d < platform.size(); ++d) {
      if (next[d] >= l.device_ops[d].size()) continue;
      const double ready = input_ready[l.device_ops[d][next[d]]];
      if (ready != ready) continue;  // its input is not produced yet
      const double start = std::max(device_free[d], ready);
      if (best < 0 || start < best_start) best = d, best_start = start;
    }
    if (best < 0) throw std::logic_error("flush pattern: the stage sequences deadlock");
    const int i = l.device_ops[best][next[best]++];
    p.ops[i].start = best_start;
    // Equal offsets run in task-number order (Pattern::runs_before): an op
    // that starts where a zero-length one (a free layer, or a cost lost in
    // the round-off of a large time) starts, but comes first in that order,
    // moves to the next double, so that the period keeps the sequence.
    if (const int prev = last_op[best]; prev >= 0 && p.ops[prev].start == best_start && !p.runs_before(prev, i))
      p.ops[i].start = best_start = std::nextafter(best_start, inf);
    last_op[best] = i;
    last_start = std::max(last_start, best_start);
    const double end = best_start + timing.duration[i];
    device_free[best] = end;
    period = std::max(period, end);
    const int j = successor[i];
    if (j < 0) continue;
    if (p.ops[j].device == p.ops[i].device) {
      input_ready[j] = end;
      continue;
    }
    // When every link resource of its route is free (timing.transfer_links:
    // the platform's Shared links, or seed 000's device pair).
    double sent = end;
    for (int r : timing.transfer_links[i]) sent = std::max(sent, on_link[r].free);
    p.transfers.push_back({i, sent, 0});
    const int t = static_cast<int>(p.transfers.size()) - 1;
    for (int r : timing.transfer_links[i])
      if (const int last = on_link[r].last; last >= 0 && p.transfers[last].start == sent && !p.transfer_before(last, t))
        p.transfers[t].start = sent = std::nextafter(sent, inf);  // as for ops
    last_start = std::max(last_start, sent);
    input_ready[j] = sent + timing.transfer_duration[i];
    for (int r : timing.transfer_links[i]) on_link[r] = {input_ready[j], t};
    period = std::max(period, input_ready[j]);
  }
  // Offsets lie in [0, period): a zero-length op (a free layer, or a cost
  // too small to move a large end time) may start when the iteration ends,
  // so the period is then the next double after it.
  p.period = period > last_start ? period : std::nextafter(last_start, inf);
  return p;
}

}  // namespace pipesim
