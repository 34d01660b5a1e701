// Seed 000 §6.1.2 (5)-(7): ops of one device do not overlap; §6.1.3
// (14)-(16): nor transfers of one link; §6.1.4 (17)-(21): everything ends
// in [0, T] and each device's (link's) ops fit in a window of length T.
#include "schedules/ilp/ilp_formulation.hpp"

namespace pipesim::ilp {

void Formulation::add_ordering_constraints() {
  const int N = in_.ops(), n = in_.tasks();
  const double K = in_.K;
  const std::string s = "_";
  // (5)-(7), (20) for every pair of ops that may share a device.
  for (int a = 0; a < N; ++a)
    for (int b = a + 1; b < N; ++b) {
      const int x = w_index(a, b);
      if (x < 0) continue;
      const LinExpr zz = z(in_.task(a), in_.task(b)), W = LinExpr::var(x);
      const double da = in_.duration[a], db = in_.duration[b];
      const std::string t = in_.name(a) + s + in_.name(b);
      model_.add("eq5_" + t, tau(a) - tau(b) + K * (1 - zz + W), Sense::GreaterEqual, db);
      model_.add("eq6_" + t, tau(b) - tau(a) + K * (2 - zz - W), Sense::GreaterEqual, da);
      if (!zz.is_constant()) model_.add("eq7_" + t, W, Sense::LessEqual, zz);
      model_.add("eq20_" + t, T(), Sense::GreaterEqual, tau(a) + da - tau(b) - K * (1 - zz));
      model_.add("eq20_" + in_.name(b) + s + in_.name(a), T(), Sense::GreaterEqual,
                 tau(b) + db - tau(a) - K * (1 - zz));
    }
  // (17) (the lower side is a bound), (18).
  for (int o = 0; o < N; ++o) model_.add("eq17_" + in_.name(o), tau(o) + in_.duration[o], Sense::LessEqual, T());
  for (int e = 1; e < n; ++e)
    if (has_transfer(e))
      for (int c = 0; c < in_.k; ++c) {
        const std::string t = in_.name(in_.op(e, c));
        const LinExpr end = ttau(e, c) + transfer_duration(e);
        model_.add("eq18_" + t, end, Sense::LessEqual, T());
        if (!in_.fixed) model_.add("eq18b_" + t, end, Sense::GreaterEqual, 0);
      }
  // (14)-(16), (21) for every pair of transfers that may share a link.
  for (int a = 0; a < N; ++a)
    for (int b = a + 1; b < N; ++b) {
      const int ea = in_.task(a), eb = in_.task(b), ca = in_.copy(a), cb = in_.copy(b);
      const int x = ea < n && eb < n ? wt_index(ea, ca, eb, cb) : -1;
      if (x < 0) continue;
      const LinExpr zz = zt(ea, eb), W = LinExpr::var(x);
      const double da = in_.transfer[ea], db = in_.transfer[eb];
      const std::string t = in_.name(a) + s + in_.name(b);
      model_.add("eq14_" + t, ttau(ea, ca) - ttau(eb, cb) + K * (1 - zz + W), Sense::GreaterEqual, db);
      model_.add("eq15_" + t, ttau(eb, cb) - ttau(ea, ca) + K * (2 - zz - W), Sense::GreaterEqual, da);
      if (!zz.is_constant()) model_.add("eq16_" + t, W, Sense::LessEqual, zz);
      model_.add("eq21_" + t, T(), Sense::GreaterEqual, ttau(ea, ca) + da - ttau(eb, cb) - K * (1 - zz));
      model_.add("eq21_" + in_.name(b) + s + in_.name(a), T(), Sense::GreaterEqual,
                 ttau(eb, cb) + db - ttau(ea, ca) - K * (1 - zz));
    }
}

}  // namespace pipesim::ilp
