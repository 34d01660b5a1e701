// The ILP model's size, group by group of Formulation (ilp_formulation.hpp
// lists the files), each an upper bound: every pair of ops that may share a
// device, every transfer pair, every (op, edge, copy) of M^DIR, the memory
// row of every op, and the smaller groups.
#include "schedules/ilp/ilp_size.hpp"

#include <algorithm>
#include <vector>

namespace pipesim::ilp {

ModelSize estimated_model_size(int layers, int devices, int copies, const std::optional<Allocation>& allocation,
                               WeightPolicy weights) {
  const double L = layers, k = copies, N = 2 * L * k, E = 2 * L - 1;
  // Groups of ops that may share a device (free mode: all of them): their
  // ops, and the edges both of whose tasks they run.
  std::vector<double> ops, inner;
  double cross = E - 1;  // edges that may need a transfer (F_L -> B_L never does)
  if (allocation) {
    ops.assign(devices, 0), inner.assign(devices, 0);
    cross = 0;
    auto layer = [&](int j) { return j <= layers ? j - 1 : 2 * layers - j; };
    for (int l = 0; l < layers; ++l) ops[(*allocation)[l]] += 2 * k;
    for (int e = 1; e < 2 * layers; ++e) {
      const int a = (*allocation)[layer(e)], b = (*allocation)[layer(e + 1)];
      if (a == b)
        inner[a] += 1;
      else
        cross += 1;
    }
  } else {
    ops = {N}, inner = {E};
  }
  ModelSize s;
  auto add = [&](double variables, double rows, double nonzeros) {
    s.variables += variables, s.rows += rows, s.nonzeros += nonzeros;
  };
  const double transfers = cross * k;
  for (std::size_t g = 0; g < ops.size(); ++g) {
    const double pairs = ops[g] * (ops[g] - 1) / 2;
    add(pairs, 5 * pairs, 18 * pairs);           // w, (5)-(7), (20)
    const double waits = ops[g] * inner[g] * k;  // o, (22), and its term in (36)
    add(waits, waits, 8 * waits);
  }
  const double transfer_pairs = transfers * (transfers - 1) / 2;
  add(transfer_pairs, 5 * transfer_pairs, 18 * transfer_pairs);            // ~w, (14)-(16), (21)
  add(1 + N + 5 * transfers, N + 12 * transfers, 2 * N + 76 * transfers);  // T, tau, ~tau, v: (17), (18), (23)-(30)
  // (36): the weights, the buffers and every layer-copy's stash (free mode
  // sigma and two w; fixed mode the lags themselves, at most every lag and w).
  const double stash_terms = allocation ? std::min(L * k * (4 * E + 4), 4 * E * k + 2 * N) : 5 * L * k;
  add(0, N, N * (2 * L + E + stash_terms));
  add(L * E, 2 * L * E, 6 * L * E);  // b, (34)-(35)
  add(0, L, L * (L + 1));            // the load rows
  if (weights == WeightPolicy::Stashing) {
    const double holders = allocation ? devices : L;
    const double rows = (allocation ? 1 : L) * L * k;  // fixed mode: each layer with its own device only
    add(holders + L * L, rows + L * L, rows * (2 + std::min(k * (4 * E + 4), 4 * E * k + 2 * N)) + 3 * L * L);
  }
  if (!allocation) {
    add(L * L, L * L * L / 2 + L + 1, 2 * L * L * L + L * L);       // z, f, (1)-(3)
    add(cross * cross / 2, 9 * cross * cross, 60 * cross * cross);  // ~z, (8)-(13)
    add(L * L * k, 2 * L * L * k, L * L * k * (4 + 4 * E));         // sigma, (31)-(32)
  }
  return s;
}

}  // namespace pipesim::ilp
