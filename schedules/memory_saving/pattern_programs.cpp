#include "schedules/memory_saving/pattern_programs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_steady_memory.hpp"
#include "patterns/pattern_unroll.hpp"
#include "schedules/memory_saving/sequence_replay.hpp"
#include "schedules/training_state.hpp"
#include "sim/input_error.hpp"

namespace pipesim::memory_saving {
namespace {

// Index into pattern.ops of F_l (or B_l) of copy c: [l * copies + c].
std::vector<int> op_index(const Pattern& p, TaskKind kind) {
  std::vector<int> index(static_cast<std::size_t>(p.layers) * p.copies, -1);
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].kind == kind) index[p.ops[i].layer * p.copies + p.ops[i].copy] = static_cast<int>(i);
  return index;
}

// Maximal runs of consecutive layers on one device; every copy must place
// each layer where copy 0 does (one program per stage serves them all).
std::vector<PatternStage> pattern_stages(const Workload& w, const Pattern& p) {
  const std::vector<int> forward = op_index(p, TaskKind::Forward);
  std::vector<PatternStage> stages;
  for (int l = 0; l < p.layers; ++l) {
    const int device = p.ops[forward[l * p.copies]].device;
    for (int c = 1; c < p.copies; ++c)
      if (p.ops[forward[l * p.copies + c]].device != device)
        throw InputError(w.file, "memory_saving",
                         "the pattern places layer " + std::to_string(l) +
                             " on different devices in different copies; memory saving needs one device per layer");
    if (stages.empty() || stages.back().device != device)
      stages.push_back({l, l, device});
    else
      stages.back().last_layer = l;
  }
  return stages;
}

// Seed 000's memory model as a chain: a layer keeps its input (ā = a),
// and what the workload declares beyond it (a model layer's stash larger
// than its input, its workspaces), which add_training_state leaves to the
// program on a stage that saves memory. What crosses to another device is
// held by the pattern's buffers, not the program: the input gradient δ^0
// and, but on the stage ending the network, the output a^L and its
// gradient δ^L are 0.
Chain pattern_chain(const Workload& w, const Pattern& p, const PatternTiming& t, const PatternStage& stage) {
  const std::vector<int> forward = op_index(p, TaskKind::Forward), backward = op_index(p, TaskKind::Backward);
  Chain chain;
  chain.input_size = t.output_bytes[backward[stage.first_layer * p.copies]];
  for (int l = stage.first_layer; l <= stage.last_layer; ++l) {
    ChainLayer c;
    c.forward_time = t.duration[forward[l * p.copies]];
    c.backward_time = t.duration[backward[l * p.copies]];
    const bool sent = l == stage.last_layer && l + 1 < p.layers;
    c.output_size = c.tape_size = c.gradient_size = sent ? 0 : t.output_bytes[forward[l * p.copies]];
    if (l < static_cast<int>(w.layers.size())) {
      const double input = l == 0 ? w.input : w.layers[l - 1].activation;
      c.tape_size += std::max(0.0, layer_stash(w, l) - input);
      c.forward_overhead = w.layers[l].forward_workspace;
      c.backward_overhead = w.layers[l].backward_workspace;
    }
    chain.layers.push_back(c);
  }
  return chain;
}

bool is_forward(OpKind kind) {
  return kind == OpKind::ForwardAll || kind == OpKind::ForwardCheckpoint || kind == OpKind::ForwardNone;
}

}  // namespace

PatternPrograms plan_pattern_programs(const Workload& workload, const Platform& platform, const Pattern& plain,
                                      const PatternTiming& plain_timing) {
  PatternPrograms out;
  out.folded = workload;
  out.stages = pattern_stages(workload, plain);
  check_stage_count(workload, out.stages.size());
  const std::vector<int> forward = op_index(plain, TaskKind::Forward), backward = op_index(plain, TaskKind::Backward);
  for (int l = 0; l < plain.layers; ++l) {
    out.forward_flops.push_back(plain_timing.flops[forward[l * plain.copies]]);
    out.backward_flops.push_back(plain_timing.flops[backward[l * plain.copies]]);
  }

  // The budgets: what the plain pattern holds statically per device, and
  // its micro-batches in flight per stage (those of the stage's first layer).
  const int devices = platform.size();
  const PatternMemory memory = pattern_memory(plain, plain_timing, workload, devices);
  const TaskGraph unrolled =
      unroll_pattern(plain, plain_timing, devices, steady_microbatches(plain, steady_range(plain)));
  std::vector<double> reserved(devices, 0);
  for (const StaticMemory& m : unrolled.static_memory()) reserved[m.device] += m.bytes;
  std::vector<int> sharing(devices, 0);
  std::vector<ProgramStage> stages;
  for (std::size_t s = 0; s < out.stages.size(); ++s) {
    const PatternStage& stage = out.stages[s];
    ProgramStage p;
    p.device = stage.device;
    p.first_layer = stage.first_layer, p.last_layer = stage.last_layer;
    p.chain = pattern_chain(workload, plain, plain_timing, stage);
    reserved[stage.device] += training_state_bytes(workload, stage.first_layer, stage.last_layer);
    p.in_flight = std::max(1, memory.stash_counts[stage.first_layer]);
    // Lifetime buffers are not static: one each way where the stage meets
    // another device (its output, which the chain leaves to the buffers).
    if (plain.buffers == BufferPolicy::Lifetime)
      reserved[stage.device] +=
          (s > 0 ? 2 * p.chain.input_size : 0) +
          (s + 1 < out.stages.size() ? 2 * plain_timing.output_bytes[forward[stage.last_layer * plain.copies]] : 0);
    const std::string& policy = stage_option(workload, s).policy;
    if (policy != "none" && policy != "remat")
      throw InputError(workload.file,
                       workload.memory_saving_stages.empty() ? "memory_saving.policy"
                                                             : "memory_saving[" + std::to_string(s) + "].policy",
                       "schedule '" + workload.schedule + "' runs policy remat (or none), not " + policy +
                           ": offloading is run by gpipe and 1f1b");
    if (policy != "none") sharing[stage.device] += p.in_flight;
    stages.push_back(std::move(p));
  }
  for (ProgramStage& p : stages) {
    p.reserved = reserved[p.device];
    p.device_in_flight = std::max(p.in_flight, sharing[p.device]);
  }
  out.programs = solve_stage_programs(workload, platform, stages);

  // Fold each backward's recomputes into it.
  for (std::size_t s = 0; s < out.programs.size(); ++s) {
    const StageProgram& program = out.programs[s];
    if (!program.active) continue;
    const int first = out.stages[s].first_layer, length = program.chain.length();
    if (static_cast<int>(program.forward_steps.size()) != length)
      throw std::logic_error("memory saving: a forward phase that is not one forward per layer");
    double pending = 0;
    for (const Step& step : program.backward_steps) {
      if (is_forward(step.first)) {
        pending += out.forward_flops[first + step.second - 1];
        continue;
      }
      Cost& cost = out.folded.layers[first + step.second - 1].backward;
      cost = Cost{out.backward_flops[first + step.second - 1] + pending, true};
      pending = 0;
    }
  }
  return out;
}

void attach_programs(const PatternPrograms& programs, const Pattern& pattern, const Platform& platform,
                     PatternTiming& timing) {
  const int k = pattern.copies;
  const std::vector<int> forward = op_index(pattern, TaskKind::Forward),
                         backward = op_index(pattern, TaskKind::Backward);
  timing.steps.assign(pattern.ops.size(), {});
  for (std::size_t s = 0; s < programs.programs.size(); ++s) {
    const StageProgram& program = programs.programs[s];
    if (!program.active) continue;
    const PatternStage& stage = programs.stages[s];
    const Chain& chain = program.chain;
    const double speed = platform.devices[stage.device].speed;
    // One micro-batch's steps with their memory (Table 1 of seed 002), grouped by op.
    std::vector<Step> all = program.forward_steps;
    all.insert(all.end(), program.backward_steps.begin(), program.backward_steps.end());
    std::vector<std::vector<OpStep>> forward_op(chain.length() + 1), backward_op(chain.length() + 1);
    std::vector<OpStep> pending;
    GpuContents gpu(chain);
    for (std::size_t n = 0; n < all.size(); ++n) {
      const auto [kind, i] = all[n];
      const StepMemory m = gpu.compute(n, all[n]);
      OpStep step;
      step.layer = stage.first_layer + i - 1;
      const bool back = kind == OpKind::Backward;
      step.kind = back                               ? TaskKind::Backward
                  : n < program.forward_steps.size() ? TaskKind::Forward
                                                     : TaskKind::Recompute;
      step.flops = back ? programs.backward_flops[step.layer] : programs.forward_flops[step.layer];
      step.duration = step.flops / speed;
      step.at_start = m.at_start;
      step.at_finish = m.at_end - (m.frees_input ? chain.a(m.frees_input) : 0);
      if (n == 0) step.at_start += chain.input_size + chain.delta(chain.length());  // held from the first forward
      if (n + 1 == all.size()) step.at_finish -= chain.input_size + chain.input_gradient_size;
      if (step.kind == TaskKind::Forward) {
        forward_op[i].push_back(step);
      } else {
        pending.push_back(step);
        if (back) backward_op[i] = std::move(pending), pending.clear();
      }
    }
    for (int c = 0; c < k; ++c)
      for (int i = 1; i <= chain.length(); ++i) {
        const int layer = stage.first_layer + i - 1;
        for (const auto& [op, steps] :
             {std::pair{forward[layer * k + c], &forward_op[i]}, std::pair{backward[layer * k + c], &backward_op[i]}}) {
          if (pattern.ops[op].device != stage.device)
            throw std::logic_error("memory saving: the pattern moved a stage's layer");
          timing.steps[op] = *steps;
          double duration = 0;
          for (const OpStep& step : *steps) duration += step.duration;
          timing.duration[op] = duration;
        }
      }
  }
}

std::vector<StageMemorySaving> summaries(const PatternPrograms& programs) {
  std::vector<StageMemorySaving> out;
  for (const StageProgram& p : programs.programs)
    if (p.active) out.push_back(p.summary);
  return out;
}

}  // namespace pipesim::memory_saving
