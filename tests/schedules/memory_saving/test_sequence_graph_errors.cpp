// A sequence that cannot run is refused by the step that breaks it
// (schedules/memory_saving/sequence_graph): the message names the step's
// index, kind and layer, and why; a sequence that runs gives one task per step.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "schedules/memory_saving/chain_internal.hpp"
#include "schedules/memory_saving/sequence_graph.hpp"

namespace pipesim::memory_saving {
namespace {

const Chain kChain = homogeneous_chain(2, {1, 2, 1, 2, 1, 0, 0}, 1);

std::string error_of(const std::vector<Step>& steps, int host_memory = 1) {
  TaskGraph graph(2);
  ChainPlacement where;
  where.host_memory = host_memory;
  SequenceEmitter emitter(graph, kChain, where);
  try {
    emitter.emit(steps);
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

TEST(SequenceGraphErrors, TheStepThatCannotRunIsNamed) {
  EXPECT_EQ(error_of({{OpKind::ForwardAll, 3}}), "sequence graph: step 0 (F_all 3): no such layer");
  EXPECT_EQ(error_of({{OpKind::Backward, 2}}), "sequence graph: step 0 (B 2): tape missing");
  EXPECT_EQ(error_of({{OpKind::ForwardAll, 1}, {OpKind::Backward, 1}}),
            "sequence graph: step 1 (B 1): gradient missing");
  EXPECT_EQ(error_of({{OpKind::ForwardNone, 2}}), "sequence graph: step 0 (F_none 2): input activation missing");
  EXPECT_EQ(error_of({{OpKind::ForwardCheckpoint, 1}, {OpKind::ForwardCheckpoint, 1}}),
            "sequence graph: step 1 (F_ck 1): output already there");
  EXPECT_EQ(error_of({{OpKind::ForwardCheckpoint, 1}, {OpKind::Offload, 1}}, -1),
            "sequence graph: step 1 (offload 1): no host memory to transfer to");
  EXPECT_EQ(error_of({{OpKind::Offload, 1}}),
            "sequence graph: step 0 (offload 1): nothing to offload (a^i not on the GPU)");
  EXPECT_EQ(error_of({{OpKind::Prefetch, 1}}),
            "sequence graph: step 0 (prefetch 1): nothing to prefetch (a^i never offloaded)");
  EXPECT_EQ(error_of({{OpKind::ForwardCheckpoint, 1}, {OpKind::Offload, 1}, {OpKind::Prefetch, 1}}),
            "sequence graph: step 2 (prefetch 1): a^i already on the GPU");
  EXPECT_EQ(error_of({{OpKind::Free, 2}}), "sequence graph: step 0 (free 2): nothing to free (a^i not on the GPU)");
}

TEST(SequenceGraphErrors, ARunnableSequenceGivesOneTaskPerStep) {
  const std::vector<Step> steps = {
      {OpKind::ForwardCheckpoint, 1}, {OpKind::Offload, 1},  {OpKind::ForwardAll, 2}, {OpKind::Free, 1},
      {OpKind::Prefetch, 1},          {OpKind::Backward, 2}, {OpKind::ForwardAll, 1}, {OpKind::Backward, 1}};
  EXPECT_EQ(error_of(steps), "");
  TaskGraph graph(2);
  ChainPlacement where;
  where.host_memory = 1;
  SequenceEmitter emitter(graph, kChain, where);
  const std::vector<TaskId> ids = emitter.emit(steps);
  ASSERT_EQ(ids.size(), steps.size());
  EXPECT_EQ(graph.task(ids[1]).kind, TaskKind::Offload);
  EXPECT_EQ(graph.task(ids[1]).peer, 1);                  // to host memory
  EXPECT_EQ(graph.task(ids[3]).kind, TaskKind::Offload);  // Free: a zero-byte offload
  EXPECT_EQ(graph.task(ids[3]).amount, 0);
  EXPECT_EQ(graph.task(ids[4]).kind, TaskKind::Prefetch);
  EXPECT_EQ(graph.task(ids[5]).kind, TaskKind::Backward);
  EXPECT_EQ(graph.task(ids[6]).kind, TaskKind::Recompute);  // F^1 ran before
  EXPECT_EQ(graph.task(ids[7]).kind, TaskKind::Backward);
}

}  // namespace
}  // namespace pipesim::memory_saving
