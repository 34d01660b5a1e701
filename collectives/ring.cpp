// Ring collectives (NCCL's ring; Patarasuk & Yuan 2009; Thakur, Rabenseifner
// & Gropp 2005) and broadcast along the ring's chain, both pipelined in chunks.
#include "collectives/schedule.hpp"

namespace pipesim::collectives {

namespace {

void append(std::vector<int>& to, const std::vector<int>& from) { to.insert(to.end(), from.begin(), from.end()); }

// Broadcast: chunk k crosses hop h (ring position root+h -> root+h+1) after
// it crossed hop h-1; the connection of each hop sends chunk after chunk.
std::vector<std::vector<int>> add_chain(StepList& list, const std::vector<int>& ring, double bytes, int chunks,
                                        int channel, int root, const std::vector<std::vector<int>>& start) {
  const int m = static_cast<int>(ring.size());
  const auto at = [&](int h) { return (root + h) % m; };
  std::vector<int> hop_step(m > 1 ? m - 1 : 0, -1);
  for (int k = 0; k < chunks; ++k)
    for (int h = 0; h + 1 < m; ++h) {
      Step step{ring[at(h)], ring[at(h + 1)], bytes / chunks, channel, {}};
      if (h > 0) step.after.push_back(hop_step[h - 1]);
      if (k == 0 && !start.empty()) append(step.after, start[at(h)]);
      hop_step[h] = list.add(std::move(step));
    }
  std::vector<std::vector<int>> ends(m);
  for (int h = 0; h < m; ++h) {
    if (h + 1 < m) ends[at(h)].push_back(hop_step[h]);
    if (h > 0) ends[at(h)].push_back(hop_step[h - 1]);
  }
  return ends;
}

}  // namespace

std::vector<std::vector<int>> add_ring(StepList& list, RingKind kind, const std::vector<int>& ring, double bytes,
                                       int chunks, int channel, int root, const std::vector<std::vector<int>>& start) {
  const int m = static_cast<int>(ring.size());
  if (m < 2) return start.empty() ? std::vector<std::vector<int>>(m) : start;
  if (kind == RingKind::Broadcast) return add_chain(list, ring, bytes, chunks, channel, root, start);
  // Reduce-scatter and all-gather take m-1 steps, all-reduce both one after
  // the other: 2(m-1). In each, position p sends one m-th of the chunk to
  // p+1: at step 0 its own piece, later the piece it received at the step
  // before (reduced with its own, in reduce-scatter).
  const int steps = kind == RingKind::AllReduce ? 2 * (m - 1) : m - 1;
  const double piece = bytes / chunks / m;
  std::vector<int> sent(m, -1), sent_before(m, -1);
  for (int k = 0; k < chunks; ++k)
    for (int s = 0; s < steps; ++s) {
      sent_before.swap(sent);
      for (int p = 0; p < m; ++p) {
        Step step{ring[p], ring[(p + 1) % m], piece, channel, {}};
        if (s > 0) step.after.push_back(sent_before[(p + m - 1) % m]);
        if (k == 0 && s == 0 && !start.empty()) append(step.after, start[p]);
        sent[p] = list.add(std::move(step));
      }
    }
  std::vector<std::vector<int>> ends(m);
  for (int p = 0; p < m; ++p) ends[p] = {sent[p], sent[(p + m - 1) % m]};
  return ends;
}

}  // namespace pipesim::collectives
