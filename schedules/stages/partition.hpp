// Balanced contiguous partition of a chain of layers into P stages placed in
// order on P (possibly heterogeneous) devices: PipeDream's min-max problem.
#pragma once

#include <vector>

namespace pipesim {

struct PartitionProblem {
  // layer_seconds[s][l]: forward + backward seconds of layer l on stage s's
  // device. One row per stage; the number of rows is P.
  std::vector<std::vector<double>> layer_seconds;
  // boundary_seconds[s][l]: communication load of the boundary between
  // stages s and s+1 when s ends at layer l (P-1 rows; may be empty for P=1).
  std::vector<std::vector<double>> boundary_seconds;
};

struct Partition {
  std::vector<int> last_layer;  // inclusive last layer of each stage
  double max_load = 0;          // the largest stage or boundary load
};

// Optimal among contiguous partitions into exactly P non-empty stages, by
// PipeDream's dynamic program, evaluated in O(P L log L) (a stack of the
// candidate cuts that can still win); among optimal partitions the one the
// plain O(P L^2) program picks (each stage's cut as early as possible, from
// the last stage back). Throws std::invalid_argument if P > L.
Partition partition_chain(const PartitionProblem& problem);

}  // namespace pipesim
