#include "schedules/memory_saving/combined.hpp"

#include <algorithm>

#include "schedules/memory_saving/offload_only.hpp"
#include "schedules/memory_saving/offloading.hpp"

namespace pipesim::memory_saving {

Solution solve_combined(const Chain& chain, double limit, int slots, double bandwidth) {
  Solution with_remat = solve_offloading(chain, limit, slots, bandwidth);
  Solution alone = solve_offload_only(chain, limit, slots, bandwidth);
  const double least = std::min(with_remat.min_feasible_limit, alone.min_feasible_limit);
  Solution& best =
      alone.feasible && (!with_remat.feasible || alone.makespan < with_remat.makespan) ? alone : with_remat;
  best.min_feasible_limit = least;
  return best;
}

double min_feasible_limit_combined(const Chain& chain, double bandwidth) {
  return std::min(min_feasible_limit_offloading(chain, bandwidth), min_feasible_limit_offload_only(chain, bandwidth));
}

}  // namespace pipesim::memory_saving
