// The paper's variables (seed 000 §6.1, §6.2) and the accessors that turn
// them into expressions. z is kept per pair of layers: eq. (4) puts F_l and
// B_l together, so z over tasks is z over their layers. w and ~w have one
// variable per unordered pair: w(o2, o1) = z - w(o1, o2) (Lemma 5: on one
// device exactly one runs first). In fixed-allocation mode z and ~z are
// constants and only pairs of one device get w variables.
#include <stdexcept>

#include "schedules/ilp/ilp_formulation.hpp"

namespace pipesim::ilp {
namespace {

std::string task_name(const Instance& in, int j) {
  return (in.forward(j) ? "F" : "B") + std::to_string(in.layer(j) + 1);
}

}  // namespace

Formulation::Formulation(Instance instance, std::optional<std::chrono::steady_clock::time_point> deadline)
    : in_(std::move(instance)) {
  if (deadline) model_.set_deadline(*deadline);
  add_variables();
  add_allocation_constraints();
  add_ordering_constraints();
  add_shift_constraints();
  add_memory_constraints();
  model_.set_objective(T());
}

void Formulation::add_variables() {
  const int L = in_.L, k = in_.k, N = in_.ops(), n = in_.tasks();
  T_ = model_.add_var("T", in_.T_lower, in_.T_upper, VarType::Continuous);
  if (!in_.fixed) {
    zl_.assign(L * L, -1);
    for (int a = 0; a < L; ++a)
      for (int b = a + 1; b < L; ++b)
        zl_[a * L + b] =
            model_.add_var("z_l" + std::to_string(a + 1) + "_l" + std::to_string(b + 1), 0, 1, VarType::Binary);
    for (int l = 0; l < L; ++l) f_.push_back(model_.add_var("f_l" + std::to_string(l + 1), 0, 1, VarType::Binary));
  }
  // (17), (19): 0 <= tau + d <= T (the upper side is a row), tau(F_1, copy 0) = 0.
  for (int o = 0; o < N; ++o) {
    const double d = in_.duration[o];
    const bool origin = o == in_.op(1, 0);
    tau_.push_back(
        model_.add_var("tau_" + in_.name(o), origin ? 0 : -d, origin ? 0 : in_.T_upper - d, VarType::Continuous));
  }
  ttau_.assign(n * k, -1);
  v_.assign(n * k, -1), vp_ = v_, vt_ = v_, vtp_ = v_;
  for (int e = 1; e < n; ++e)
    if (has_transfer(e))
      for (int c = 0; c < k; ++c) {
        const std::string s = in_.name(in_.op(e, c));
        ttau_[e * k + c] = model_.add_var("ttau_" + s, -in_.transfer[e], in_.T_upper, VarType::Continuous);
        v_[e * k + c] = model_.add_var("v_" + s, 0, 1, VarType::Binary);
        vp_[e * k + c] = model_.add_var("vp_" + s, 0, 1, VarType::Binary);
        vt_[e * k + c] = model_.add_var("vt_" + s, 0, 1, VarType::Binary);
        vtp_[e * k + c] = model_.add_var("vtp_" + s, 0, 1, VarType::Binary);
      }
  // w: pairs that may share a device. The copies of F_1 run in copy order
  // (copies are interchangeable: relabelling them changes nothing).
  w_.assign(N * N, -1);
  for (int a = 0; a < N; ++a)
    for (int b = a + 1; b < N; ++b) {
      const LinExpr together = z(in_.task(a), in_.task(b));
      if (together.is_constant() && together.constant < 0.5) continue;
      const bool first_copies = in_.task(a) == 1 && in_.task(b) == 1 && in_.copy(b) == in_.copy(a) + 1;
      w_[a * N + b] = model_.add_var("w_" + in_.name(a) + "_" + in_.name(b), first_copies ? 1 : 0, 1, VarType::Binary);
    }
  // ~z (free mode) per pair of edges that use links; ~w per pair of transfers that may share one.
  zt_.assign(n * n, -1);
  if (!in_.fixed)
    for (int a = 1; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (in_.uses_link(a) && in_.uses_link(b))
          zt_[a * n + b] = model_.add_var("zt_" + task_name(in_, a) + "_" + task_name(in_, b), 0, 1, VarType::Binary);
  wt_.assign(N * N, -1);
  for (int a = 0; a < N; ++a)
    for (int b = a + 1; b < N; ++b) {
      const int ea = in_.task(a), eb = in_.task(b);
      if (ea >= n || eb >= n) continue;
      const LinExpr shared = zt(ea, eb);
      if (shared.is_constant() && shared.constant < 0.5) continue;
      wt_[a * N + b] = model_.add_var("wt_" + in_.name(a) + "_" + in_.name(b), 0, 1, VarType::Binary);
    }
}

int Formulation::z_index(int l1, int l2) const {
  if (in_.fixed || l1 == l2) return -1;
  return zl_[std::min(l1, l2) * in_.L + std::max(l1, l2)];
}

LinExpr Formulation::z_layers(int l1, int l2) const {
  if (l1 == l2) return 1;
  if (in_.fixed) return in_.allocation[l1] == in_.allocation[l2] ? 1 : 0;
  return LinExpr::var(z_index(l1, l2));
}

LinExpr Formulation::z(int j1, int j2) const { return z_layers(in_.layer(j1), in_.layer(j2)); }

LinExpr Formulation::transfer_duration(int e) const {
  if (!has_transfer(e)) return 0;
  if (in_.fixed) return in_.transfer[e];
  return in_.transfer[e] * (1 - z(e, e + 1));
}

int Formulation::w_index(int o1, int o2) const {
  if (o1 == o2) return -1;
  return w_[std::min(o1, o2) * in_.ops() + std::max(o1, o2)];
}

LinExpr Formulation::w(int o1, int o2) const {
  const int x = w_index(o1, o2);
  if (x < 0) return 0;
  if (o1 < o2) return LinExpr::var(x);
  return z(in_.task(o1), in_.task(o2)) - LinExpr::var(x);
}

int Formulation::zt_index(int e1, int e2) const {
  if (in_.fixed || e1 == e2) return -1;
  return zt_[std::min(e1, e2) * in_.tasks() + std::max(e1, e2)];
}

LinExpr Formulation::zt(int e1, int e2) const {
  if (!in_.uses_link(e1) || !in_.uses_link(e2)) return 0;
  if (e1 == e2) {  // two copies of one edge: one route
    if (in_.fixed) return 1;
    return in_.conflicts[Instance::SameRoute] ? 1 - z(e1, e1 + 1) : LinExpr(0);
  }
  if (in_.fixed) return in_.share_link(e1, e2, in_.allocation) ? 1 : 0;
  return LinExpr::var(zt_index(e1, e2));
}

int Formulation::wt_index(int e1, int c1, int e2, int c2) const {
  const int a = transfer_op(e1, c1), b = transfer_op(e2, c2);
  if (a == b) return -1;
  return wt_[std::min(a, b) * in_.ops() + std::max(a, b)];
}

LinExpr Formulation::wt(int e1, int c1, int e2, int c2) const {
  const int x = wt_index(e1, c1, e2, c2);
  if (x < 0) return 0;
  if (transfer_op(e1, c1) < transfer_op(e2, c2)) return LinExpr::var(x);
  return zt(e1, e2) - LinExpr::var(x);
}

LinExpr Formulation::lag(int e, int c) const {
  if (!has_transfer(e)) return w(in_.op(e + 1, c), in_.op(e, c));  // one device: 1 iff T_e+1 runs first
  return LinExpr::var(v(e, c)) + LinExpr::var(vp(e, c)) + LinExpr::var(vt(e, c)) + LinExpr::var(vtp(e, c));
}

LinExpr Formulation::stash_lag(int l, int c) const {
  LinExpr sum;
  for (int e = in_.forward_task(l); e < in_.backward_task(l); ++e) sum += lag(e, c);
  return sum;
}

}  // namespace pipesim::ilp
