// How large the ILP model of a workload will be, counted before it is
// built: a model of many copies or layers takes minutes and gigabytes to
// build, so one too large for the machine is refused at once, with its
// figure, instead of failing after minutes (or meeting the OOM killer).
#pragma once

#include <optional>

#include "patterns/allocation.hpp"
#include "schedules/ilp/ilp.hpp"

namespace pipesim::ilp {

// Upper bounds, in closed form, of what Formulation builds (the pairs of
// ops that may share a device dominate: (2 L k)^2 / 2 of them in free mode).
struct ModelSize {
  double variables = 0, rows = 0, nonzeros = 0;
};
ModelSize estimated_model_size(int layers, int devices, int copies, const std::optional<Allocation>& allocation,
                               WeightPolicy weights);

// Measured with /usr/bin/time -v (maximum resident set) on `pipesim run`
// with schedule ilp, 4 layers on platforms/complete-4.xml, k = 15 and 30
// (3.6e5 and 1.4e6 counted nonzeros: 272 MB and 974 MB): the model, its
// copies for the warm start's LP and for CBC, CBC's own, rows and names
// took 640-670 bytes per counted nonzero beyond the run's 40 MB. Rounded up
// by a fifth.
constexpr double kModelBytesPerNonzero = 800;

// The memory that building and solving the model takes.
inline double estimated_model_bytes(const ModelSize& size) { return kModelBytesPerNonzero * size.nonzeros; }

}  // namespace pipesim::ilp
