// The workload's memory_saving option on a flush pipeline: seed 002's program
// for each stage's chain of layers under a per-micro-batch budget, and an
// emitter that puts the program's operations in place of the stage's
// forward and backward tasks (docs/memory-saving.md, "Pipelines").
#pragma once

#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/rematerialization.hpp"
#include "schedules/memory_saving/sequence_graph.hpp"
#include "schedules/stages/pipeline_builder.hpp"
#include "schedules/stages/stage_plan.hpp"
#include "sim/memory_saving_summary.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim::memory_saving {

// Stage s's layers as a chain: times on its device, a^i = δ^i = ā^i = the
// layer's activation (the workload has no separate tape size), a^0 = δ^0 =
// the stage's input, no overheads.
Chain stage_chain(const Workload& workload, const Platform& platform, const Stage& stage);

// The most micro-batches a stage holds at once: the largest count of
// forwards done and backwards not yet done along its sequence.
int in_flight(const StageSequence& sequence);

struct StageProgram {
  bool active = false;  // false: policy none on this stage, its plain tasks stay
  Chain chain;
  Solution solution;
  int host_memory = -1;
  std::vector<Step> forward_steps;   // up to the first forward of the last layer
  std::vector<Step> backward_steps;  // the rest
  StageMemorySaving summary;
};

// One entry per stage (inactive where the stage's policy is none), or none
// when no stage saves memory. The workload's memory_saving map applies to
// every stage, its list (memory_saving_stages) one entry per stage. Limit auto:
// (device memory - weights - gradient buffer - one send and one receive
// buffer each way to each neighbour stage) / in-flight micro-batches. Throws InputError for a
// policy needing host memory the platform does not route to, and
// InfeasibleRun naming the smallest limit that works when a stage's budget
// is too small.
std::vector<StageProgram> plan_stage_programs(const Workload& workload, const Platform& platform, const StagePlan& plan,
                                              const std::vector<StageSequence>& sequences);

// What the programs need of one stage, whatever schedule built it.
struct ProgramStage {
  int device = 0;
  int first_layer = 0, last_layer = -1;  // the stage's layers
  Chain chain;
  int in_flight = 1;         // micro-batches the stage holds at most
  int device_in_flight = 1;  // those of every saving stage on its device (>= in_flight)
  double reserved = 0;       // device bytes outside the budgets: static memory, buffers
};

// plan_stage_programs' work for any stages: the budget of `auto` is
// (memory - reserved) / device_in_flight, `fit` fills the stage's share
// (memory - reserved) x in_flight / device_in_flight.
std::vector<StageProgram> solve_stage_programs(const Workload& workload, const Platform& platform,
                                               const std::vector<ProgramStage>& stages);

// The workload's memory_saving option for stage s (its list's entry, or the single map).
const MemorySaving& stage_option(const Workload& workload, std::size_t stage);
// Throws InputError naming memory_saving when its list has another length than the stages.
void check_stage_count(const Workload& workload, std::size_t stages);

// Puts each stage's program in place of its forward and backward tasks:
// the forward phase for F(s,m), the rest for B(s,m). a^0 and δ^L are
// allocated when the forward phase starts, a^0 and δ^0 freed when the
// backward phase ends (as the program counts them).
class ProgramEmitter : public StageComputeEmitter {
 public:
  explicit ProgramEmitter(const std::vector<StageProgram>& programs, const StagePlan& plan, const Platform& platform)
      : programs_(programs), plan_(plan), platform_(platform) {}
  bool replaces(int stage) const override {
    return stage < static_cast<int>(programs_.size()) && programs_[stage].active;
  }
  TaskId emit(TaskGraph& graph, const Task& base, const std::vector<TaskId>& input) override;

 private:
  const std::vector<StageProgram>& programs_;
  const StagePlan& plan_;
  const Platform& platform_;
  // Open micro-batches: (stage, iteration, micro-batch) -> what is on the GPU.
  std::map<std::tuple<int, int, int>, std::unique_ptr<SequenceEmitter>> open_;
};

}  // namespace pipesim::memory_saving
