// Which tensor-parallel collectives follow one pass of a layer, and whether
// a pipeline transfer crosses as 1/tp per TP rank (docs/parallelism.md).
#pragma once

#include <cmath>

#include "models/transformer.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

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

// Whether a pipeline transfer crosses as Megatron's scatter/gather
// (Narayanan et al. 2021, section 4.1): with tp > 1 and scatter_gather, a
// transfer between devices of a tensor every TP rank holds whole (its bytes
// are its boundary layer's full b.s.h: no sequence parallelism) goes as
// 1/tp per rank, then the receiving TP group all-gathers it.
inline bool scattered_transfer(const Task& t, const Workload& w, int tp) {
  if (tp == 1 || !w.parallel.scatter_gather || t.kind != TaskKind::Transfer || t.peer == t.device ||
      t.collective >= 0 || t.layer_last < 0 || t.layer_last >= static_cast<int>(w.layers.size()))
    return false;
  const double whole = w.layers[t.layer_last].tp.bytes;
  return whole > 0 && std::abs(t.amount - whole) <= 1e-9 * whole;
}

}  // namespace pipesim
