#include "schedules/ilp/ilp_solution.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "patterns/pattern_analysis.hpp"
#include "patterns/pattern_timing.hpp"
#include "sim/exact_period.hpp"

namespace pipesim::ilp {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("ILP solution: " + what); }

int rounded(double v) { return static_cast<int>(std::lround(v)); }

// Devices of the layers: the allocation, or the classes of z numbered in
// order of first use along the chain.
std::vector<int> devices_of(const Formulation& F, const std::vector<double>& x) {
  const Instance& in = F.instance();
  if (in.fixed) return in.allocation;
  std::vector<int> device(in.L, -1);
  int used = 0;
  for (int l = 0; l < in.L; ++l) {
    for (int m = 0; m < l && device[l] < 0; ++m)
      if (F.z_layers(l, m).value(x) > 0.5) device[l] = device[m];
    if (device[l] < 0) device[l] = used++;
  }
  for (int a = 0; a < in.L; ++a)
    for (int b = a + 1; b < in.L; ++b)
      if ((F.z_layers(a, b).value(x) > 0.5) != (device[a] == device[b]))
        fail("z is not an equivalence (layers " + std::to_string(a + 1) + ", " + std::to_string(b + 1) + ")");
  if (used > in.P) fail(std::to_string(used) + " devices used, the platform has " + std::to_string(in.P));
  return device;
}

// Offset within [0, T): an instant within round-off of T is 0 (as pattern_timing does).
double wrap(double t, double T) {
  double r = std::fmod(t, T);
  if (r < 0) r += T;
  return r >= T * (1 - 1e-9) ? 0 : r;
}

// Sorts items by how many of the others the solver put before them (then by time).
template <class Before, class Time>
void order_by_rank(std::vector<int>& items, Before before, Time time) {
  std::map<int, int> rank;
  for (int a : items) {
    int r = 0;
    for (int b : items)
      if (a != b && before(b, a)) ++r;
    rank[a] = r;
  }
  std::sort(items.begin(), items.end(),
            [&](int a, int b) { return std::make_tuple(rank[a], time(a), a) < std::make_tuple(rank[b], time(b), b); });
}

}  // namespace

Pattern solution_to_pattern(const Formulation& F, const std::vector<double>& x, const Workload& w,
                            const Platform& platform) {
  const Instance& in = F.instance();
  if (x.size() != F.model().variables().size()) fail("wrong number of values");
  const int N = in.ops(), k = in.k;
  const std::vector<int> device = devices_of(F, x);

  Pattern p;
  p.layers = in.L;
  p.copies = k;
  p.period = 1;
  p.weights = in.weights;
  p.links = in.links;
  for (int o = 0; o < N; ++o) {
    const int j = in.task(o);
    PatternOp op;
    op.kind = in.forward(j) ? TaskKind::Forward : TaskKind::Backward;
    op.layer = in.layer(j);
    op.copy = in.copy(o);
    op.device = device[op.layer];
    p.ops.push_back(op);  // ops[o] is op o of the instance
  }
  std::vector<int> transfer_of(N, -1);
  for (int e = 1; e < in.tasks(); ++e)
    for (int c = 0; c < k; ++c)
      if (device[in.layer(e)] != device[in.layer(e + 1)]) {
        if (!F.has_transfer(e)) fail("a transfer the model does not have");
        transfer_of[in.op(e, c)] = static_cast<int>(p.transfers.size());
        p.transfers.push_back({in.op(e, c), 0, 0});
      }
  const PatternTiming t = pattern_timing(p, w, platform);

  // The event graph of the solver's orders and shifts.
  TimedEventGraph g;
  for (int o = 0; o < N; ++o) g.add_node(in.name(o));
  for (const PatternTransfer& tr : p.transfers) g.add_node("~" + in.name(tr.from));
  const int M = static_cast<int>(p.transfers.size());
  auto bit = [&](int var) { return rounded(x[var]); };
  for (int e = 1; e < in.tasks(); ++e)
    for (int c = 0; c < k; ++c) {
      const int a = in.op(e, c), b = in.op(e + 1, c), tr = transfer_of[a];
      if (tr < 0) {
        g.add_arc(a, b, t.duration[a], rounded(F.lag(e, c).value(x)));
      } else {
        g.add_arc(a, N + tr, t.duration[a], bit(F.v(e, c)) + bit(F.vp(e, c)));
        g.add_arc(N + tr, b, t.transfer_duration[a], bit(F.vt(e, c)) + bit(F.vtp(e, c)));
      }
    }
  auto add_cycle = [&](const std::vector<int>& items, auto delay) {
    for (std::size_t i = 0; i < items.size(); ++i)
      g.add_arc(items[i], items[(i + 1) % items.size()], delay(items[i]), i + 1 == items.size() ? 1 : 0);
  };
  for (int d = 0; d < platform.size(); ++d) {
    std::vector<int> items;
    for (int o = 0; o < N; ++o)
      if (p.ops[o].device == d) items.push_back(o);
    if (items.empty()) continue;
    order_by_rank(
        items, [&](int a, int b) { return F.w(a, b).value(x) > 0.5; }, [&](int a) { return x[F.tau_index(a)]; });
    add_cycle(items, [&](int o) { return t.duration[o]; });
  }
  // Each link resource's transfers (the model's ~z covers every pair that shares one).
  for (std::vector<int> items : transfers_by_link(p, t)) {
    for (int& r : items) r += N;
    auto edge = [&](int node) { return in.task(p.transfers[node - N].from); };
    auto copy = [&](int node) { return in.copy(p.transfers[node - N].from); };
    order_by_rank(
        items, [&](int a, int b) { return F.wt(edge(a), copy(a), edge(b), copy(b)).value(x) > 0.5; },
        [&](int a) { return x[F.ttau_index(edge(a), copy(a))]; });
    add_cycle(items, [&](int node) { return t.transfer_duration[p.transfers[node - N].from]; });
  }
  double lambda = 0;
  try {
    lambda = exact_period(g).period;
  } catch (const std::invalid_argument& e) {
    fail(std::string("its orders and shifts deadlock: ") + e.what());
  }
  if (!(lambda > 0)) fail("every task lasts 0");

  // Earliest times at period lambda (longest paths, delay - lambda x tokens).
  const int V = static_cast<int>(g.nodes.size());
  std::vector<double> time;
  for (int attempt = 0; attempt < 4 && time.empty(); ++attempt) {
    const double period = lambda * (1 + (attempt == 0 ? 0 : 1e-12 * std::pow(100.0, attempt)));
    std::vector<double> pot(V, 0);
    bool changed = true;
    for (int round = 0; round <= V && changed; ++round) {
      changed = false;
      for (const EventArc& a : g.arcs) {
        const double cand = pot[a.from] + a.delay - period * a.tokens;
        if (cand > pot[a.to] + 1e-13 * period) pot[a.to] = cand, changed = true;
      }
    }
    if (!changed) time = pot, lambda = period;
  }
  if (time.empty()) fail("no schedule at its exact period (round-off)");
  p.period = lambda;
  for (int o = 0; o < N; ++o) p.ops[o].start = wrap(time[o], lambda);
  for (int r = 0; r < M; ++r) p.transfers[r].start = wrap(time[N + r], lambda);
  assign_minimal_shifts(p, t);
  const std::string overlap = find_overlap(p, t, platform);
  if (!overlap.empty()) fail(overlap);
  return p;
}

}  // namespace pipesim::ilp
