// Exhaustive search over offload-only sequences, written from the class's
// definition (docs/memory-saving.md, "The program with offloading alone"),
// not from the program: F_all^1..F_all^L, B^L..B^1 (positions 1..2L), and for
// each tape ā^i (i <= L-2) either nothing or an offload right after F^i, a
// free after position j (i+1 <= j <= 2L-i-1) and a prefetch before position
// s (j < s <= 2L-i: before B^{i+1}, which reads a^i). Every sequence is timed
// and sized by replay_with_transfers. The program's class: the transfers'
// spans (gaps i+1..j+1 and s..2L-i) do not overlap.
#pragma once

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

#include "schedules/memory_saving/chain.hpp"
#include "schedules/memory_saving/transfer_replay_internal.hpp"

namespace pipesim::memory_saving::testing {

struct Candidate {
  double time = 0, peak = 0;
  bool in_class = true;
};

struct TapeMove {
  int free_after = 0, prefetch_before = 0;  // 0: not offloaded
};

inline std::vector<Step> offload_only_steps(int L, const std::vector<TapeMove>& moves) {
  std::vector<Step> steps;
  for (int g = 1; g <= 2 * L + 1; ++g) {
    for (int i = 1; i <= L - 2; ++i)
      if (moves[i].free_after && moves[i].free_after + 1 == g) steps.push_back({OpKind::Free, i});
    for (int i = L - 2; i >= 1; --i)
      if (moves[i].free_after && moves[i].prefetch_before == g) steps.push_back({OpKind::Prefetch, i});
    if (g >= 2 && g - 1 <= L - 2 && moves[g - 1].free_after) steps.push_back({OpKind::Offload, g - 1});
    if (g <= L)
      steps.push_back({OpKind::ForwardAll, g});
    else if (g <= 2 * L)
      steps.push_back({OpKind::Backward, 2 * L + 1 - g});
  }
  return steps;
}

// Every candidate (only the class's when class_only).
inline std::vector<Candidate> offload_only_candidates(const Chain& chain, double bandwidth, bool class_only) {
  const int L = chain.length();
  std::vector<TapeMove> moves(std::max(L - 1, 1));
  std::vector<Candidate> out;
  auto spans_disjoint = [&](int upto) {
    std::vector<std::pair<int, int>> spans;
    for (int i = 1; i <= upto; ++i)
      if (moves[i].free_after)
        spans.push_back({i + 1, moves[i].free_after + 1}), spans.push_back({moves[i].prefetch_before, 2 * L - i});
    for (std::size_t a = 0; a < spans.size(); ++a)
      for (std::size_t b = a + 1; b < spans.size(); ++b)
        if (!(spans[a].second <= spans[b].first || spans[b].second <= spans[a].first)) return false;
    return true;
  };
  std::function<void(int)> go = [&](int i) {
    if (i > L - 2) {
      Candidate c;
      c.in_class = spans_disjoint(L - 2);
      const std::vector<Operation> ops = replay_with_transfers(chain, offload_only_steps(L, moves), bandwidth);
      c.time = finish_time(ops);
      for (const Operation& op : ops) c.peak = std::max(c.peak, op.memory);
      out.push_back(c);
      return;
    }
    moves[i] = {};
    go(i + 1);
    for (int j = i + 1; j <= 2 * L - i - 1; ++j)
      for (int s = j + 1; s <= 2 * L - i; ++s) {
        moves[i] = {j, s};
        if (class_only && !spans_disjoint(i)) continue;
        go(i + 1);
      }
    moves[i] = {};
  };
  go(1);
  return out;
}

// Least time among the candidates within the limit (-1 when none).
inline double least_time(const std::vector<Candidate>& candidates, double limit, bool class_only) {
  double best = -1;
  for (const Candidate& c : candidates)
    if ((c.in_class || !class_only) && c.peak <= limit + 1e-9 && (best < 0 || c.time < best)) best = c.time;
  return best;
}

}  // namespace pipesim::memory_saving::testing
