// The order of one iteration's operations when several stages share a
// device (docs/workload-format.md#placement): one global order of every
// stage's operations, which each device runs restricted to its own stages.
#pragma once

#include <vector>

#include "schedules/stages/pipeline_builder.hpp"

namespace pipesim {

struct StageOp {
  int stage;
  Op op;
  bool operator==(const StageOp& o) const { return stage == o.stage && op == o.op; }
};

// Repeatedly takes, among the stages whose next operation has its input
// (F(s,m) after F(s-1,m); B(S-1,m) after F(S-1,m); B(s,m) after B(s+1,m)),
// the one of the oldest micro-batch. A micro-batch's operations form one
// chain, so at most one of them is ready at a time: the choice is unique.
// Each stage keeps its own sequence; the result is a topological order of
// the data dependencies, so the devices' orders (its restrictions) cannot
// deadlock. On one device the micro-batches go depth first: GPipe gives
// 0F0 1F0 .. (S-1)F0 0F1 .. (S-1)F(M-1), then (S-1)B0 .. 0B0 (S-1)B1 .. 0B(M-1).
// sequences[s] must hold F and B of every micro-batch 0..M-1 once (as
// build_pipeline checks); throws std::logic_error if they deadlock.
std::vector<StageOp> merge_stage_sequences(const std::vector<StageSequence>& sequences);

}  // namespace pipesim
