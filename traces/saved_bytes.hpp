// What each part of a model keeps from its forward for its backward, read
// from an execution trace of one training step: the tensors its backward
// reads that the step's forward allocated. docs/import.md#execution-traces.
#pragma once

#include <map>

#include "traces/execution_trace.hpp"
#include "traces/trace_labels.hpp"

namespace pipesim {

// PyTorch's CUDA caching allocator rounds every block up to 512 bytes
// (c10/cuda/CUDACachingAllocator.cpp, kMinBlockSize).
constexpr double kAllocationGranule = 512;

struct SavedBytes {
  // Bytes one micro-batch's part keeps until its backward, the largest over
  // its occurrences (a block: over the blocks and micro-batches).
  std::map<ModelPart, double> stash;
  int microbatches = 0;  // occurrences of the most frequent label
};

// A tensor counts for the part whose backward reads it first (autograd's
// sequence numbers link a backward node to the forward op, and so to the
// labelled region, it came from) when a labelled forward region allocated
// it. The head also keeps its outputs (what its regions allocate and a later
// forward op outside them reads: the logits, the loss), which the training
// loop holds until the loss's backward has run. Throws InputError(trace file, "nodes", WHAT) when no region is
// labelled like a block, or the call tree has a cycle.
SavedBytes saved_bytes(const ExecutionTrace& trace, const TraceLabels& labels = {});

}  // namespace pipesim
