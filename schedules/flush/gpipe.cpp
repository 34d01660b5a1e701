#include "schedules/flush/flush_sequences.hpp"

namespace pipesim {

std::vector<StageSequence> gpipe_sequences(int stages, int microbatches) {
  StageSequence seq;
  for (int m = 0; m < microbatches; ++m) seq.push_back({TaskKind::Forward, m});
  for (int m = 0; m < microbatches; ++m) seq.push_back({TaskKind::Backward, m});
  return std::vector<StageSequence>(stages, seq);
}

std::vector<StageSequence> gpipe_sequences(const StagePlan& plan, int microbatches) {
  return gpipe_sequences(static_cast<int>(plan.stages.size()), microbatches);
}

}  // namespace pipesim
