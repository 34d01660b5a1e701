// Seed 000 §6.2.2 (23)-(30): the shift between T_e and its transfer (v, v')
// and between the transfer and T_e+1 (~v, ~v'), per copy. A task pair on
// one device has no transfer variables: its lag is w(T_e+1, T_e) (Lemma 8's
// observation; in free mode the transfer of a pair that ends up on one
// device lasts 0 and can sit right after T_e, so the lag is that too).
#include "schedules/ilp/ilp_formulation.hpp"

namespace pipesim::ilp {

void Formulation::add_shift_constraints() {
  const double K = in_.K;
  for (int e = 1; e < in_.tasks(); ++e) {
    if (!has_transfer(e)) continue;
    for (int c = 0; c < in_.k; ++c) {
      const int p = in_.op(e, c), q = in_.op(e + 1, c);
      const LinExpr end = tau(p) + in_.duration[p], start = tau(q), tt = ttau(e, c);
      const LinExpr arrive = tt + transfer_duration(e);
      const LinExpr V = LinExpr::var(v(e, c)), Vp = LinExpr::var(vp(e, c));
      const LinExpr Vt = LinExpr::var(vt(e, c)), Vtp = LinExpr::var(vtp(e, c));
      const std::string t = "_" + in_.name(p);
      model_.add("eq23" + t, end - tt + K * (1 - V), Sense::GreaterEqual, 0);
      model_.add("eq24" + t, tt - end + K * V, Sense::GreaterEqual, 0);
      model_.add("eq25" + t, arrive - start + K * (1 - Vt), Sense::GreaterEqual, 0);
      model_.add("eq26" + t, start - arrive + K * Vt, Sense::GreaterEqual, 0);
      model_.add("eq27" + t, tt + T() - end + 2 * K * Vp, Sense::GreaterEqual, 0);
      model_.add("eq28" + t, end - tt - T() + 2 * K * (1 - Vp), Sense::GreaterEqual, 0);
      model_.add("eq29" + t, start + T() - arrive + 2 * K * Vtp, Sense::GreaterEqual, 0);
      model_.add("eq30" + t, arrive - start - T() + 2 * K * (1 - Vtp), Sense::GreaterEqual, 0);
      // Implied (a shift of 2 is also a shift of 1); tightens the relaxation.
      model_.add("eq28b" + t, Vp, Sense::LessEqual, V);
      model_.add("eq30b" + t, Vtp, Sense::LessEqual, Vt);
    }
  }
}

}  // namespace pipesim::ilp
