// Per-stage operation orders of the flush schedules, and the steady state of
// 1F1B as a timed event graph.
#pragma once

#include <vector>

#include "schedules/stages/pipeline_builder.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/event_graph.hpp"
#include "sim/platform.hpp"

namespace pipesim {

// GPipe: every stage runs F0..F(M-1), then B0..B(M-1) (PyTorch ScheduleGPipe).
std::vector<StageSequence> gpipe_sequences(int stages, int microbatches);
// The same for the plan's stages (the placement does not change them).
std::vector<StageSequence> gpipe_sequences(const StagePlan& plan, int microbatches);

// 1F1B with flush (Megatron-LM, PyTorch Schedule1F1B): warm-up forwards, then
// one forward / one backward, then the remaining backwards.
std::vector<StageSequence> one_f_one_b_sequences(int stages, int microbatches);
// Forwards stage s runs before its first backward, minus one: min(S-s-1, M).
int one_f_one_b_warmup(int stage, int stages, int microbatches);
// 1F1B for the plan's stages: stage s warms up with min(h_s, M) forwards, h_s
// the number of device changes between s and the last stage (S-s-1 with one
// stage per device, where this is one_f_one_b_sequences(S, M)). Stages on one
// device then run as one stage of a pipeline as deep as its devices: on one
// device, every micro-batch's forwards and backwards before the next one's.
std::vector<StageSequence> one_f_one_b_sequences(const StagePlan& plan, int microbatches);
// h_s above, per stage.
std::vector<int> device_hops_to_last(const StagePlan& plan);

// Steady state of 1F1B with one stage per device: nodes "F<s>", "B<s>" and, per boundary with a real
// transfer, "T<s>><s+1>" (activations) and "T<s+1>><s>" (gradients).
// Its maximum cycle ratio is the time per micro-batch of a long 1F1B run.
// Throws std::invalid_argument for a plan whose stages share a device.
TimedEventGraph one_f_one_b_event_graph(const StagePlan& plan, const Platform& platform);

}  // namespace pipesim
