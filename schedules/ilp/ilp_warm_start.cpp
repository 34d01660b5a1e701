// A pattern as values of the ILP's variables (the warm start), and the LP
// that completes the continuous ones.
#include <OsiClpSolverInterface.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <tuple>

#include "patterns/pattern_timing.hpp"
#include "schedules/ilp/ilp_solution.hpp"

namespace pipesim::ilp {

std::optional<std::vector<double>> complete_continuous(const Formulation& F, const std::vector<double>& x,
                                                       double seconds) {
  const LinearModel& model = F.model();
  const auto solver = model.to_osi();
  const int n = static_cast<int>(model.variables().size());
  std::vector<char> timing(n, 0);
  timing[F.T_index()] = 1;
  for (int o = 0; o < F.instance().ops(); ++o) timing[F.tau_index(o)] = 1;
  for (int e = 1; e < F.instance().tasks(); ++e)
    if (F.has_transfer(e))
      for (int c = 0; c < F.instance().k; ++c) timing[F.ttau_index(e, c)] = 1;
  for (int i = 0; i < n; ++i) {
    const Variable& v = model.variables()[i];
    if (v.type != VarType::Continuous) {
      const double value = std::round(x[i]);
      solver->setColBounds(i, value, value);
      solver->setInteger(i);
    }
    // T and the times: minimal period; auxiliaries: smallest (they are independent).
    solver->setObjCoeff(i, i == F.T_index() ? 1.0 : timing[i] ? 0.0 : v.type == VarType::Continuous ? 1.0 : 0.0);
  }
  solver->messageHandler()->setLogLevel(0);
  if (seconds > 0) solver->getModelPtr()->setMaximumWallSeconds(seconds);
  solver->initialSolve();
  if (!solver->isProvenOptimal()) return std::nullopt;
  const double* solution = solver->getColSolution();
  return std::vector<double>(solution, solution + n);
}

std::optional<std::vector<double>> pattern_values(const Formulation& F, const Pattern& p, const Workload& w,
                                                  const Platform& platform, std::string& why, double seconds) {
  const Instance& in = F.instance();
  const int N = in.ops(), k = in.k, L = in.L;
  if (p.layers != L || p.copies != k) {
    why = "it has " + std::to_string(p.copies) + " copies of " + std::to_string(p.layers) + " layers, the model " +
          std::to_string(k) + " of " + std::to_string(L);
    return std::nullopt;
  }
  const PatternTiming t = pattern_timing(p, w, platform);
  const double T = p.period, eps = 1e-9 * T;
  std::vector<int> at(N, -1);  // pattern op of each instance op, copies relabelled
  auto old_at = [&](int j, int c) { return p.find(j, c); };
  // Copies in the order of their F_1 after F_1 of copy 0 (all copies of a layer share a device).
  const double origin = p.ops[old_at(1, 0)].start;
  std::vector<int> label(k);
  std::iota(label.begin(), label.end(), 0);
  auto after_origin = [&](int c) { return std::fmod(p.ops[old_at(1, c)].start - origin + T, T); };
  std::stable_sort(label.begin(), label.end(), [&](int a, int b) { return after_origin(a) < after_origin(b); });
  for (int j = 1; j <= in.tasks(); ++j)
    for (int c = 0; c < k; ++c) at[in.op(j, c)] = old_at(j, label[c]);

  std::vector<int> device(L);
  for (int l = 0; l < L; ++l) {
    device[l] = p.ops[at[in.op(in.forward_task(l), 0)]].device;
    for (int c = 0; c < k; ++c)
      if (p.ops[at[in.op(in.forward_task(l), c)]].device != device[l]) {
        why = "the copies of layer " + std::to_string(l + 1) + " are on different devices";
        return std::nullopt;
      }
    if (in.fixed && device[l] != in.allocation[l]) {
      why = "it has another allocation";
      return std::nullopt;
    }
  }
  std::vector<int> used = device;
  std::sort(used.begin(), used.end());
  if (std::unique(used.begin(), used.end()) - used.begin() > in.P) {
    why = "it uses more devices than the platform has";
    return std::nullopt;
  }

  // Times in each device's window: offsets from F_1's, an op that would end
  // after T starts before 0 instead (seed 000 (17)-(19)).
  auto window = [&](double start, double length) {
    double r = std::fmod(start - origin, T);
    if (r < 0) r += T;
    if (r >= T - eps) r = 0;
    return r + length > T + eps ? r - T : r;
  };
  std::vector<double> x(F.model().variables().size(), 0);
  x[F.T_index()] = T;
  std::vector<double> tau(N), ttau(N, 0);
  const std::vector<int> transfer = p.transfer_of();
  for (int o = 0; o < N; ++o) {
    tau[o] = window(p.ops[at[o]].start, t.duration[at[o]]);
    x[F.tau_index(o)] = tau[o];
  }
  auto same = [&](int j1, int j2) { return device[in.layer(j1)] == device[in.layer(j2)]; };
  for (int e = 1; e < in.tasks(); ++e)
    for (int c = 0; c < k; ++c) {
      if (!F.has_transfer(e)) continue;
      const int a = in.op(e, c), b = in.op(e + 1, c);
      const double end = tau[a] + in.duration[a];
      if (same(e, e + 1)) {  // free mode, one device: an empty transfer right after T_e
        ttau[a] = end;
        x[F.vt(e, c)] = end > tau[b] + eps;
      } else {
        const int tr = transfer[at[a]];
        if (tr < 0) {
          why = "a transfer is missing";
          return std::nullopt;
        }
        ttau[a] = window(p.transfers[tr].start, t.transfer_duration[at[a]]);
        const double arrive = ttau[a] + in.transfer[e];
        x[F.v(e, c)] = end > ttau[a] + eps;
        x[F.vp(e, c)] = end > ttau[a] + T + eps;
        x[F.vt(e, c)] = arrive > tau[b] + eps;
        x[F.vtp(e, c)] = arrive > tau[b] + T + eps;
      }
      x[F.ttau_index(e, c)] = ttau[a];
    }
  for (int a = 0; a < L; ++a)
    for (int b = a + 1; b < L; ++b)
      if (const int i = F.z_index(a, b); i >= 0) x[i] = device[a] == device[b];
  for (int l = 0; l < L; ++l)
    if (const int i = F.f_index(l); i >= 0)
      x[i] = std::find(device.begin(), device.end(), device[l]) - device.begin() == l;
  // Orders: by window time, ties as the pattern orders them (task number, copy).
  auto before = [&](const std::vector<double>& time, int a, int b) {
    return std::make_tuple(time[a], in.task(a), in.copy(a)) < std::make_tuple(time[b], in.task(b), in.copy(b));
  };
  for (int a = 0; a < N; ++a)
    for (int b = a + 1; b < N; ++b) {
      if (const int i = F.w_index(a, b); i >= 0) x[i] = same(in.task(a), in.task(b)) && before(tau, a, b);
    }
  auto on_link = [&](int e) { return in.uses_link(e) && !same(e, e + 1); };
  // ~z exactly as the model's rows define it (Instance::share_link).
  auto shared = [&](int e1, int e2) { return on_link(e1) && on_link(e2) && in.share_link(e1, e2, device); };
  for (int e1 = 1; e1 < in.tasks(); ++e1)
    for (int e2 = e1 + 1; e2 < in.tasks(); ++e2)
      if (const int i = F.zt_index(e1, e2); i >= 0) x[i] = shared(e1, e2);
  for (int a = 0; a < N; ++a)
    for (int b = a + 1; b < N; ++b) {
      const int ea = in.task(a), eb = in.task(b);
      if (ea >= in.tasks() || eb >= in.tasks()) continue;
      const int i = F.wt_index(ea, in.copy(a), eb, in.copy(b));
      if (i < 0) continue;
      const bool one_route = on_link(ea) && (in.fixed || in.conflicts[Instance::SameRoute]);
      x[i] = (ea == eb ? one_route : shared(ea, eb)) && before(ttau, a, b);
    }
  const auto start = std::chrono::steady_clock::now();
  auto full = complete_continuous(F, x, seconds);
  if (!full && seconds > 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds) {
    why = "its LP was not solved within the time limit";
    return std::nullopt;
  }
  if (!full) why = "the model rejects it (memory or a time constraint)";
  return full;
}

}  // namespace pipesim::ilp
