// Exhaustive search over the class of sequences the offloading program is
// optimal in (docs/memory-saving.md, "The program with offloading"), written
// from the class's definition, not from the program's recursion: every
// split of the chain into top-level segments (F_all^p alone, F_ck^p F_∅ ..
// F_∅^c holding a^c, or the tail p..L), every choice of which held a^c to
// offload, and for each segment's backward the best persistent sequence of
// the exhaustive search (test_memory_saving_exhaustive.hpp) under the memory
// the other segments leave. Each whole sequence is timed and sized by
// replay_with_transfers; the least time among those within the limit wins.
#pragma once

#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "schedules/memory_saving/transfer_replay_internal.hpp"
#include "tests/schedules/memory_saving/test_memory_saving_exhaustive.hpp"

namespace pipesim::memory_saving::testing {

struct Segment {
  int first = 1, last = 1;  // layers
  bool tape = false;        // F_all^first alone
  bool tail = false;        // first..L by rematerialization
  bool offload = false;     // a^last offloaded during the next segment's forwards
};

// The whole sequence of a split, or an empty list when some segment's
// backward has no sequence within its memory.
inline std::vector<Step> class_sequence(const Chain& c, double limit, const std::vector<Segment>& split) {
  const int k = static_cast<int>(split.size());
  auto held = [&](int i) { return split[i].tape ? c.abar(split[i].first) : c.a(split[i].last); };
  // Memory in use, from the other segments, while segment j's backward runs:
  // a^0 and what the segments before hold, except what was offloaded and is
  // not yet coming back (the one of segment j-2 is being prefetched).
  auto outside = [&](int j) {
    double m = c.input_size;
    for (int i = 0; i < j; ++i)
      if (!(split[i].offload && i <= j - 3)) m += held(i);
    return m;
  };
  auto inner = [&](int j, std::vector<Step>& steps) {
    const Segment& s = split[j];
    Chain sub;
    sub.input_size = c.a(s.first - 1);
    sub.input_gradient_size = c.delta(s.first - 1);
    sub.layers.assign(c.layers.begin() + (s.first - 1), c.layers.begin() + s.last);
    std::vector<Step> path;
    if (exhaustive_optimum(sub, limit - outside(j) + sub.input_size, true, &path) == kNever) return false;
    for (auto [kind, i] : path) steps.push_back({kind, i + s.first - 1});
    return true;
  };
  std::vector<Step> steps;
  for (int j = 0; j + 1 < k; ++j) {
    const Segment& s = split[j];
    if (s.tape) {
      steps.push_back({OpKind::ForwardAll, s.first});
    } else {
      steps.push_back({OpKind::ForwardCheckpoint, s.first});
      for (int i = s.first + 1; i <= s.last; ++i) steps.push_back({OpKind::ForwardNone, i});
    }
    if (j >= 1 && split[j - 1].offload) steps.push_back({OpKind::Free, split[j - 1].last});
    if (s.offload) steps.push_back({OpKind::Offload, s.last});
  }
  for (int j = k - 1; j >= 0; --j) {
    if (j >= 2 && split[j - 2].offload) steps.push_back({OpKind::Prefetch, split[j - 2].last});
    if (split[j].tail || !split[j].tape) {
      if (!inner(j, steps)) return {};
    } else {
      steps.push_back({OpKind::Backward, split[j].first});
    }
  }
  return steps;
}

// Least time over the class (kNever when nothing fits).
inline double class_optimum(const Chain& c, double limit, double bandwidth) {
  const int L = c.length();
  double best = kNever;
  std::vector<Segment> split;
  std::function<void(int)> extend = [&](int p) {
    // The tail ends the split; the segment before it may not offload (its
    // a^c has no next forwards to overlap).
    if (split.empty() || !split.back().offload) {
      split.push_back({p, L, false, true, false});
      const std::vector<Step> steps = class_sequence(c, limit, split);
      if (!steps.empty()) {
        const std::vector<Operation> ops = replay_with_transfers(c, steps, bandwidth);
        if (peak_memory(ops) <= limit + 1e-9) best = std::min(best, finish_time(ops));
      }
      split.pop_back();
    }
    if (p == L) return;
    split.push_back({p, p, true, false, false});
    extend(p + 1);
    split.pop_back();
    for (int last = p; last < L; ++last)
      for (bool offload : {false, true}) {
        if (offload && bandwidth <= 0 && c.a(last) > 0) continue;
        split.push_back({p, last, false, false, offload});
        extend(last + 1);
        split.pop_back();
      }
  };
  extend(1);
  return best;
}

}  // namespace pipesim::memory_saving::testing
