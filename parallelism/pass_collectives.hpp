// Which tensor-parallel collectives follow one pass of a layer (docs/parallelism.md).
#pragma once

#include "models/transformer.hpp"
#include "sim/task_graph.hpp"

namespace pipesim {

// The TP collectives that follow one pass of a layer. A model folds its
// recompute into the input-gradient pass (workloads/model_section.cpp), so
// that pass also runs the recompute's collectives.
inline TpPassCollectives collectives_of(TaskKind kind, const TpCollectives& tp) {
  switch (kind) {
    case TaskKind::Forward:
      return tp.forward;
    case TaskKind::Recompute:
      return tp.forward;
    case TaskKind::Backward:
    case TaskKind::BackwardInput: {
      TpPassCollectives p = tp.backward;
      p.all_reduce += tp.recompute.all_reduce;
      p.all_gather += tp.recompute.all_gather;
      p.reduce_scatter += tp.recompute.reduce_scatter;
      return p;
    }
    default:
      return {};
  }
}

}  // namespace pipesim
