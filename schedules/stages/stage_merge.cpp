#include "schedules/stages/stage_merge.hpp"

#include <functional>
#include <queue>
#include <stdexcept>
#include <utility>

namespace pipesim {

std::vector<StageOp> merge_stage_sequences(const std::vector<StageSequence>& sequences) {
  const int S = static_cast<int>(sequences.size());
  if (S == 0) return {};
  const int M = static_cast<int>(sequences[0].size() / 2);
  // chain[m]: how many of micro-batch m's 2S operations (F0..F(S-1), B(S-1)..B0) are placed.
  std::vector<int> chain(M, 0);
  std::vector<std::size_t> pos(S, 0);
  std::vector<char> queued(S, 0);
  using Ready = std::pair<int, int>;  // (micro-batch, stage)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready;
  auto offer = [&](int s) {  // queues stage s if its next operation has its input
    if (queued[s] || pos[s] >= sequences[s].size()) return;
    const Op& op = sequences[s][pos[s]];
    const int step = op.kind == TaskKind::Forward ? s : 2 * S - 1 - s;
    if (chain[op.microbatch] != step) return;
    queued[s] = 1;
    ready.push({op.microbatch, s});
  };
  for (int s = 0; s < S; ++s) offer(s);
  std::vector<StageOp> order;
  order.reserve(static_cast<std::size_t>(2) * M * S);
  while (!ready.empty()) {
    const int s = ready.top().second;
    ready.pop();
    queued[s] = 0;
    const Op op = sequences[s][pos[s]++];
    order.push_back({s, op});
    const int next = ++chain[op.microbatch];
    offer(s);
    if (next < 2 * S) offer(next < S ? next : 2 * S - 1 - next);
  }
  if (order.size() != static_cast<std::size_t>(2) * M * S)
    throw std::logic_error("pipeline builder: the stage sequences deadlock");
  return order;
}

}  // namespace pipesim
