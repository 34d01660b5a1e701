// One profiled training step cut into what each part of the model costs:
// every second of the step goes to the forward or backward of a labelled
// region (embedding, a block, the head) of one micro-batch, or to the
// optimizer. docs/import.md#profiler-traces.
#pragma once

#include <string>
#include <vector>

#include "traces/kineto_trace.hpp"
#include "traces/trace_labels.hpp"

namespace pipesim {

// A part's forward or backward in one micro-batch (one labelled region and
// the backward of its ops), or the optimizer (zero_grad and step).
struct StepPiece {
  ModelPart part = ModelPart::Block;
  std::string label;   // the region's name ("block2"), "optimizer"
  int occurrence = 0;  // the how-manieth region of this label: the micro-batch
  bool backward = false;
  // What the piece adds to the step: from the previous piece's finish to
  // its own, the later of its host work and its kernels.
  double seconds = 0;
  // Its kernels' time on the device, each with the device's launch gap.
  double device_seconds = 0;
  double weight_device_seconds = 0;  // of which weight-gradient kernels
  int kernels = 0;
};

struct StepCosts {
  std::string step;               // "ProfilerStep#2"
  double seconds = 0;             // the step's wall time
  double kernel_gap = 0;          // seconds between kernels queued back to back (the lowest decile of the gaps)
  long long tokens = 0;           // per micro-batch, from the embedding's input; 0: unknown (no weight split)
  std::vector<StepPiece> pieces;  // in the order they start
};

// The last complete ProfilerStep#N of the trace. Throws InputError(trace
// file, "traceEvents", WHAT) when it has no step or no labelled block.
StepCosts attribute_step(const KinetoTrace& trace, const TraceLabels& labels = {});

}  // namespace pipesim
