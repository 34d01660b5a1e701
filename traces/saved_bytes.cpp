#include "traces/saved_bytes.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "sim/input_error.hpp"

namespace pipesim {
namespace {

const std::string kBackwardNode = "autograd::engine::evaluate_function: ";
constexpr long long kForward = -2, kBackwardUnowned = -1;

// Where a node runs: inside which labelled region (the outermost), and
// whether in a backward (then the sequence number of the autograd node it
// serves, or kBackwardUnowned).
struct Context {
  long region = -1;  // index into Regions
  long long backward = kForward;
};

struct Region {
  ModelPart part;
  int occurrence;  // the how-manieth region of its label
};

std::vector<Context> node_contexts(const ExecutionTrace& trace, const LabelMatcher& labels,
                                   std::vector<Region>& regions) {
  const std::size_t n = trace.nodes.size();
  std::unordered_map<long long, std::size_t> index_of;
  for (std::size_t i = 0; i < n; ++i) index_of.emplace(trace.nodes[i].id, i);
  std::vector<Context> ctx(n);
  std::vector<char> state(n, 0);  // 0 not done, 1 on the walk, 2 done
  std::map<std::string, int> seen;
  // Parents first; nodes are in rf_id order, so a region's occurrence counts in the order regions began.
  for (std::size_t start = 0; start < n; ++start) {
    std::vector<std::size_t> walk;
    for (std::size_t i = start; state[i] == 0;) {
      state[i] = 1;
      walk.push_back(i);
      const auto p = index_of.find(trace.nodes[i].parent);
      if (p == index_of.end() || p->second == i) break;
      if (state[p->second] == 1)
        throw InputError(trace.file, "nodes",
                         "node " + std::to_string(trace.nodes[i].id) + "'s ctrl_deps make a cycle");
      i = p->second;
    }
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) {
      const EtNode& node = trace.nodes[*it];
      const auto p = index_of.find(node.parent);
      Context c = p == index_of.end() || p->second == *it ? Context{} : ctx[p->second];
      if (node.name.rfind(kBackwardNode, 0) == 0)
        c.backward = node.seq_id >= 0 ? node.seq_id : kBackwardUnowned;
      else if (c.backward == kBackwardUnowned && node.seq_id >= 0)
        c.backward = node.seq_id;
      else if (c.backward == kForward && c.region < 0)
        if (const auto part = labels.part(node.name)) {
          c.region = static_cast<long>(regions.size());
          regions.push_back({*part, seen[node.name]++});
        }
      ctx[*it] = c;
      state[*it] = 2;
    }
  }
  return ctx;
}

// A storage allocated by an op: which, where, and its size.
struct Allocation {
  long long serial;
  long region;  // -1: outside the labelled regions, or in a backward
  double bytes;
};

}  // namespace

SavedBytes saved_bytes(const ExecutionTrace& trace, const TraceLabels& labels) {
  const LabelMatcher matcher(labels, trace.file);
  std::vector<Region> regions;
  const std::vector<Context> ctx = node_contexts(trace, matcher, regions);
  if (std::none_of(regions.begin(), regions.end(), [](const Region& r) { return r.part == ModelPart::Block; }))
    throw InputError(trace.file, "nodes",
                     "no record_function node named like a block ('" + labels.block +
                         "'): label each block's forward with torch.profiler.record_function");
  // Forward ops -> their region, by autograd sequence number.
  std::unordered_map<long long, long> region_of_sequence;
  for (std::size_t i = 0; i < ctx.size(); ++i)
    if (ctx[i].backward == kForward && ctx[i].region >= 0 && trace.nodes[i].seq_id >= 0)
      region_of_sequence.emplace(trace.nodes[i].seq_id, ctx[i].region);

  // Bytes kept, by group: a block region; the embedding's or head's regions of one occurrence.
  std::map<std::pair<ModelPart, long>, double> kept;
  const auto group = [&](long region) {
    const Region& r = regions[static_cast<std::size_t>(region)];
    return std::make_pair(r.part, r.part == ModelPart::Block ? region : static_cast<long>(r.occurrence));
  };
  std::unordered_map<long long, Allocation> allocated;  // storage -> its latest allocation
  std::unordered_set<long long> counted;                // allocations already kept by a part
  long long serial = 0;
  const auto keep = [&](const Allocation& a, long region) {
    if (counted.insert(a.serial).second) kept[group(region)] += a.bytes;
  };
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
    const EtNode& node = trace.nodes[i];
    const Context& c = ctx[i];
    for (const EtTensor& t : node.inputs) {
      const auto a = allocated.find(t.storage);
      if (a == allocated.end() || a->second.region < 0) continue;
      if (c.backward >= 0) {  // a backward reads what a labelled forward allocated: kept for it
        const auto owner = region_of_sequence.find(c.backward);
        if (owner != region_of_sequence.end()) keep(a->second, owner->second);
      } else if (c.backward == kForward && a->second.region != c.region &&
                 regions[static_cast<std::size_t>(a->second.region)].part == ModelPart::Head) {
        keep(a->second, a->second.region);  // the head's outputs: the training loop holds them
      }
    }
    // Outputs in storages none of the op's inputs use are new allocations (views and in-place ops are not).
    std::map<long long, double> fresh;
    for (const EtTensor& t : node.outputs)
      if (std::none_of(node.inputs.begin(), node.inputs.end(),
                       [&](const EtTensor& in) { return in.storage == t.storage; }))
        fresh[t.storage] = std::max(fresh[t.storage], t.extent);
    for (const auto& [storage, extent] : fresh)
      allocated[storage] = {serial++, c.backward == kForward ? c.region : -1,
                            std::ceil(extent / kAllocationGranule) * kAllocationGranule};
  }
  SavedBytes out;
  for (const Region& r : regions) {
    out.microbatches = std::max(out.microbatches, r.occurrence + 1);
    out.stash.emplace(r.part, 0.0);
  }
  for (const auto& [key, bytes] : kept) out.stash[key.first] = std::max(out.stash[key.first], bytes);
  for (const auto& [part, bytes] : out.stash)
    if (bytes > 1e15)
      throw InputError(trace.file, "nodes", std::string("the ") + part_key(part) + " keeps more than 1e15 bytes");
  return out;
}

}  // namespace pipesim
