#include "sim/exact_period.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/howard_cycle_ratio.hpp>
#include <boost/iterator/transform_iterator.hpp>
#include <boost/range/iterator_range.hpp>

namespace pipesim {
namespace {

struct Arc {            // 16 bytes: there can be millions
  double delay;         // scaled
  int tokens;           // exact; Howard computes in double (TightFloat)
  std::uint32_t index;  // into TimedEventGraph::arcs
};
// A compressed graph: one allocation for millions of arcs (a flush
// schedule's pattern has every task of an iteration), out-arcs in arc order.
using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, Arc>;

// Arc ids grouped by source node, in arc order within a node (counting sort):
// offsets[v] .. offsets[v + 1] index `ids`.
struct OutArcs {
  std::vector<std::size_t> offsets;
  std::vector<std::size_t> ids;
};

// An arc id's (from, to), for building the compressed graph.
struct Ends {
  const TimedEventGraph* g = nullptr;
  std::pair<std::size_t, std::size_t> operator()(std::size_t a) const {
    return {static_cast<std::size_t>(g->arcs[a].from), static_cast<std::size_t>(g->arcs[a].to)};
  }
};

template <class Use>
OutArcs out_arcs(const TimedEventGraph& g, Use use) {
  const std::size_t n = g.nodes.size();
  OutArcs out;
  out.offsets.assign(n + 1, 0);
  for (const EventArc& a : g.arcs)
    if (use(a)) ++out.offsets[a.from + 1];
  for (std::size_t v = 0; v < n; ++v) out.offsets[v + 1] += out.offsets[v];
  out.ids.resize(out.offsets[n]);
  std::vector<std::size_t> fill(out.offsets.begin(), out.offsets.end() - 1);
  for (std::size_t a = 0; a < g.arcs.size(); ++a)
    if (use(g.arcs[a])) out.ids[fill[g.arcs[a].from]++] = a;
  return out;
}

// Boost's default tolerance is an absolute 0.005, far too coarse for delays
// in seconds; delays are scaled to at most 1, so this is relative to the
// largest delay.
struct TightFloat {
  using value_type = double;
  static double infinity() { return std::numeric_limits<double>::infinity(); }
  static double epsilon() { return -1e-10; }
};

// Some cycle among the arcs accepted by `use`, as node ids in order; empty
// if there is none. Iterative DFS: graphs can have millions of nodes.
template <class Use>
std::vector<int> find_cycle(const TimedEventGraph& g, Use use) {
  const int n = static_cast<int>(g.nodes.size());
  const OutArcs out = out_arcs(g, use);
  std::vector<char> color(n, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<int> parent(n, -1);
  std::vector<std::pair<int, std::size_t>> stack;
  for (int root = 0; root < n; ++root) {
    if (color[root]) continue;
    color[root] = 1;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == out.offsets[v + 1] - out.offsets[v]) {
        color[v] = 2;
        stack.pop_back();
        continue;
      }
      const int w = g.arcs[out.ids[out.offsets[v] + next++]].to;
      if (color[w] == 1) {  // back arc: the cycle is w .. v on the stack
        std::vector<int> cycle;
        for (int u = v; u != w; u = parent[u]) cycle.push_back(u);
        cycle.push_back(w);
        std::reverse(cycle.begin(), cycle.end());
        return cycle;
      }
      if (color[w] == 0) {
        color[w] = 1;
        parent[w] = v;
        stack.push_back({w, 0});
      }
    }
  }
  return {};
}

// The event graph for Howard, delays divided by `scale`: built from the arcs
// in source order without copying them first (there can be millions), then
// each arc's weights filled in that order; the arc index is freed on return.
Graph compressed(const TimedEventGraph& g, double scale) {
  const OutArcs all = out_arcs(g, [](const EventArc&) { return true; });
  const Ends ends{&g};
  Graph graph(boost::edges_are_sorted, boost::make_transform_iterator(all.ids.begin(), ends),
              boost::make_transform_iterator(all.ids.end(), ends), g.nodes.size());
  std::size_t k = 0;
  for (const auto e : boost::make_iterator_range(boost::edges(graph))) {
    const std::size_t i = all.ids[k++];
    graph[e] = Arc{g.arcs[i].delay / scale, g.arcs[i].tokens, static_cast<std::uint32_t>(i)};
  }
  return graph;
}

// Boost 1.74's Howard gives up after 100 policy improvements and returns the
// best cycle found so far (howard_cycle_ratio.hpp: `k < 100`): on a large
// flush pattern that is below the maximum. So the answer is certified.
// Longest paths at weights delay - ratio * tokens, relaxed in rounds (each a
// pass in topological order of the token-free arcs, which are acyclic),
// settle exactly when no cycle has a larger ratio; while they do not, the
// predecessor arcs soon close a cycle of positive weight, whose ratio is
// larger, and the search restarts from it. Delays as scaled in `graph`.
struct Critical {
  double ratio = 0;                 // scaled
  std::vector<std::uint32_t> arcs;  // indices into g.arcs, in cycle order
};

std::vector<std::uint32_t> token_free_order(const Graph& graph) {  // Kahn
  const std::size_t n = boost::num_vertices(graph);
  std::vector<std::uint32_t> indegree(n, 0), order;
  order.reserve(n);
  for (const auto e : boost::make_iterator_range(boost::edges(graph)))
    if (graph[e].tokens == 0) ++indegree[boost::target(e, graph)];
  for (std::size_t v = 0; v < n; ++v)
    if (indegree[v] == 0) order.push_back(static_cast<std::uint32_t>(v));
  for (std::size_t i = 0; i < order.size(); ++i)
    for (const auto e : boost::make_iterator_range(boost::out_edges(static_cast<std::size_t>(order[i]), graph)))
      if (graph[e].tokens == 0 && --indegree[boost::target(e, graph)] == 0)
        order.push_back(static_cast<std::uint32_t>(boost::target(e, graph)));
  return order;
}

constexpr std::uint32_t kNoArc = std::numeric_limits<std::uint32_t>::max();

// A cycle among the predecessor arcs (one per node), in cycle order; empty if none.
std::vector<std::uint32_t> predecessor_cycle(const TimedEventGraph& g, const std::vector<std::uint32_t>& pred) {
  const std::size_t n = pred.size();
  std::vector<std::uint32_t> walk(n, kNoArc);  // which walk reached a node first
  for (std::size_t start = 0; start < n; ++start) {
    std::size_t v = start;
    while (walk[v] == kNoArc && pred[v] != kNoArc)
      walk[v] = static_cast<std::uint32_t>(start), v = g.arcs[pred[v]].from;
    if (pred[v] == kNoArc || walk[v] != start) continue;  // a root, or an earlier walk
    std::vector<std::uint32_t> cycle;
    const std::size_t first = v;
    do cycle.push_back(pred[v]), v = g.arcs[pred[v]].from;
    while (v != first);
    std::reverse(cycle.begin(), cycle.end());
    return cycle;
  }
  return {};
}

Critical certify(const TimedEventGraph& g, const Graph& graph, double scale, Critical best) {
  const std::size_t n = boost::num_vertices(graph);
  const std::vector<std::uint32_t> order = token_free_order(graph);
  constexpr double kTolerance = 1e-9;  // of the largest delay, 1 after scaling
  std::vector<double> level(n);
  std::vector<std::uint32_t> pred(n);
  for (;;) {
    std::fill(level.begin(), level.end(), 0.0);
    std::fill(pred.begin(), pred.end(), kNoArc);
    std::vector<std::uint32_t> larger;
    for (std::size_t round = 0; round <= n && larger.empty(); ++round) {
      bool changed = false;
      for (const std::uint32_t v : order)
        for (const auto e : boost::make_iterator_range(boost::out_edges(static_cast<std::size_t>(v), graph))) {
          const Arc& a = graph[e];
          const std::size_t w = boost::target(e, graph);
          const double reach = level[v] + a.delay - best.ratio * a.tokens;
          if (reach > level[w] + kTolerance) level[w] = reach, pred[w] = a.index, changed = true;
        }
      if (!changed) return best;  // settled: no cycle has a larger ratio
      larger = predecessor_cycle(g, pred);
    }
    double delay = 0, tokens = 0;
    for (const std::uint32_t a : larger) delay += g.arcs[a].delay / scale, tokens += g.arcs[a].tokens;
    if (larger.empty() || tokens == 0 || !(delay / tokens > best.ratio)) return best;  // round-off only
    best = {delay / tokens, std::move(larger)};
  }
}

std::string names(const TimedEventGraph& g, const std::vector<int>& cycle) {
  std::string s;
  for (int v : cycle) s += g.nodes[v] + " -> ";
  return s + g.nodes[cycle.front()];
}

}  // namespace

ExactPeriod exact_period(const TimedEventGraph& g) {
  const int n = static_cast<int>(g.nodes.size());
  double scale = 0;
  for (const EventArc& a : g.arcs) {
    if (a.from < 0 || a.from >= n || a.to < 0 || a.to >= n)
      throw std::invalid_argument("exact period: arc between unknown nodes");
    if (a.tokens < 0) throw std::invalid_argument("exact period: arc with negative tokens");
    scale = std::max(scale, std::abs(a.delay));
  }
  // Howard's algorithm assumes every cycle carries a token; a cycle without
  // one is a circular wait, so check that first and name it.
  const auto zero = find_cycle(g, [](const EventArc& a) { return a.tokens == 0; });
  if (!zero.empty())
    throw std::invalid_argument("exact period: cycle with zero tokens (the schedule deadlocks): " + names(g, zero));
  // Searched only when needed: one pass less over millions of arcs.
  auto any_cycle = [&g] {
    auto any = find_cycle(g, [](const EventArc&) { return true; });
    if (any.empty()) throw std::invalid_argument("exact period: the event graph has no cycle");
    return any;
  };

  ExactPeriod result;
  if (scale == 0) {  // all delays zero: every cycle has ratio 0
    result.critical_cycle = any_cycle();
    return result;
  }
  if (g.arcs.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("exact period: more than 2^32 arcs");
  const Graph graph = compressed(g, scale);
  std::vector<boost::graph_traits<Graph>::edge_descriptor> cycle;
  const double ratio =
      boost::maximum_cycle_ratio(graph, boost::get(boost::vertex_index, graph), boost::get(&Arc::delay, graph),
                                 boost::get(&Arc::tokens, graph), &cycle, TightFloat());
  if (!std::isfinite(ratio) || cycle.empty()) {
    any_cycle();  // throws when there is no cycle at all (Howard's infinity)
    throw std::logic_error("exact period: cycle ratio computation failed");
  }
  Critical critical{ratio, {}};
  for (auto e : cycle) critical.arcs.push_back(graph[e].index);
  critical = certify(g, graph, scale, std::move(critical));
  // Recompute the ratio from the critical cycle's original arcs, so the
  // period carries no scaling round-off.
  double delay = 0, tokens = 0;
  for (const std::uint32_t i : critical.arcs) {
    const EventArc& a = g.arcs[i];
    result.critical_cycle.push_back(a.from);
    delay += a.delay;
    tokens += a.tokens;
  }
  result.period = delay / tokens;
  return result;
}

}  // namespace pipesim
