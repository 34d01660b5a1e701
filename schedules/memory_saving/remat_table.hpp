// The table C(s, t, m) of the rematerialization program (docs/memory-saving.md,
// "Rematerialization"), shared by the offloading program, which uses it for
// the sub-chains it does not offload from.
#pragma once

#include <cstdint>
#include <vector>

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/memory_grid.hpp"
#include "schedules/memory_saving/sequence_replay.hpp"

namespace pipesim::memory_saving {

class RematTable {
 public:
  RematTable(int length, int slots);
  double* time(int s, int t) { return &time_[offset_[index(s, t)]]; }
  const double* time(int s, int t) const { return &time_[offset_[index(s, t)]]; }
  std::int32_t* choice(int s, int t) { return &choice_[offset_[index(s, t)]]; }
  const std::int32_t* choice(int s, int t) const { return &choice_[offset_[index(s, t)]]; }

 private:
  std::size_t index(int s, int t) const { return static_cast<std::size_t>(s) * (L_ + 2) + t; }
  int L_;
  std::size_t width_;
  std::vector<std::size_t> offset_;
  std::vector<double> time_;
  std::vector<std::int32_t> choice_;
};

// Fills C(s, t, m) for 1 <= s <= t <= L and m = 0..N (infinity: infeasible).
void fill_remat_table(const Chain& chain, const MemoryGrid& g, RematTable& table);

// Appends the steps of the optimal sequence for C(s, t, m) (finite).
void unfold_remat(const MemoryGrid& g, const RematTable& table, int s, int t, int m, std::vector<Step>& steps);

// need[s][t]: least peak of C(s, t, ·) with true sizes (a^{s-1} excluded,
// δ^t included); infinity outside 1 <= s <= t <= L.
std::vector<std::vector<double>> remat_needs(const Chain& chain);

// Refuses (std::invalid_argument) unusable chains, limits and slot counts.
void check_remat_inputs(const Chain& chain, double limit, int slots);

}  // namespace pipesim::memory_saving
