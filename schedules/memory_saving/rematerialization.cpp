// Seed 002's program with rematerialization alone: the table C(s, t, m) of
// remat_table.cpp read at the top, C(1, L, N - a^0).
#include "schedules/memory_saving/rematerialization.hpp"

#include <cmath>
#include <limits>

#include "schedules/memory_saving/memory_grid.hpp"
#include "schedules/memory_saving/remat_table.hpp"
#include "schedules/memory_saving/sequence_replay.hpp"

namespace pipesim::memory_saving {

double min_feasible_limit(const Chain& chain) { return chain.input_size + remat_needs(chain)[1][chain.length()]; }

Solution solve_rematerialization(const Chain& chain, double limit, int slots) {
  check_remat_inputs(chain, limit, slots);
  Solution out;
  out.min_feasible_limit = min_feasible_limit(chain);
  const MemoryGrid g = make_grid(chain, limit, slots);
  out.slot = g.slot;
  out.makespan = std::numeric_limits<double>::infinity();
  const int top = slots - g.a[0];
  if (top < 0) return out;
  RematTable table(chain.length(), slots);
  fill_remat_table(chain, g, table);
  const int L = chain.length();
  if (!std::isfinite(table.time(1, L)[top])) return out;
  std::vector<Step> steps;
  unfold_remat(g, table, 1, L, top, steps);
  out.feasible = true;
  out.makespan = table.time(1, L)[top];
  out.ops = replay_sequence(chain, steps);
  out.peak_memory = peak_memory(out.ops);
  return out;
}

}  // namespace pipesim::memory_saving
