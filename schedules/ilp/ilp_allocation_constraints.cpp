// Seed 000 §6.1.1 (1)-(4): at most P devices; §6.1.3 (8)-(13): which
// transfers share a link. Free-allocation mode only: with a fixed
// allocation z and ~z are constants.
#include "schedules/ilp/ilp_formulation.hpp"

namespace pipesim::ilp {

void Formulation::add_allocation_constraints() {
  if (in_.fixed) return;
  const int L = in_.L, n = in_.tasks();
  const std::string s = "_";
  auto id = [](int x) { return std::to_string(x + 1); };
  // (1) z is an equivalence: every rotation of the triple (the paper writes one).
  for (int a = 0; a < L; ++a)
    for (int b = a + 1; b < L; ++b)
      for (int c = b + 1; c < L; ++c) {
        const std::string t = id(a) + s + id(b) + s + id(c);
        model_.add("eq1a_" + t, z_layers(b, c), Sense::GreaterEqual, z_layers(a, b) + z_layers(a, c) - 1);
        model_.add("eq1b_" + t, z_layers(a, c), Sense::GreaterEqual, z_layers(a, b) + z_layers(b, c) - 1);
        model_.add("eq1c_" + t, z_layers(a, b), Sense::GreaterEqual, z_layers(a, c) + z_layers(b, c) - 1);
      }
  // (2) f_l = 1 for the first layer of each device; (3) at most P devices.
  // Per layer: the lowest task of a device is always a forward (4).
  LinExpr devices;
  for (int l = 0; l < L; ++l) {
    LinExpr earlier;
    for (int m = 0; m < l; ++m) earlier += z_layers(l, m);
    model_.add("eq2_l" + id(l), LinExpr::var(f_[l]), Sense::GreaterEqual, 1 - earlier);
    devices += LinExpr::var(f_[l]);
  }
  model_.add("eq3", devices, Sense::LessEqual, in_.P);
  // (4) F_l and B_l on one device: built into z (per layer).

  // Not in the paper, implied by (5)-(7) and (20): a device's ops fit in T.
  // Tightens the relaxation, whose T otherwise knows nothing of loads.
  for (int l = 0; l < L; ++l) {
    LinExpr load;
    for (int m = 0; m < L; ++m)
      for (int c = 0; c < in_.k; ++c)
        load += (in_.duration[in_.op(in_.forward_task(m), c)] + in_.duration[in_.op(in_.backward_task(m), c)]) *
                z_layers(l, m);
    model_.add("load_l" + id(l), T(), Sense::GreaterEqual, load);
  }

  // (8)-(13) for both orientations of every pair of edges using links.
  for (int e1 = 1; e1 < n; ++e1)
    for (int e2 = e1 + 1; e2 < n; ++e2) {
      if (!in_.uses_link(e1) || !in_.uses_link(e2)) continue;
      const LinExpr zt12 = zt(e1, e2);
      for (int side = 0; side < 2; ++side) {
        const int a = side == 0 ? e1 : e2, b = side == 0 ? e2 : e1;
        const std::string t = std::to_string(a) + s + std::to_string(b);
        model_.add("eq8_" + t, zt12, Sense::GreaterEqual, z(a, b) + z(a + 1, b + 1) - z(a, a + 1) - 1);
        model_.add("eq9_" + t, zt12, Sense::GreaterEqual, z(a, b + 1) + z(a + 1, b) - z(a, a + 1) - 1);
        model_.add("eq10_" + t, zt12, Sense::LessEqual, 1 - z(a, a + 1));
        model_.add("eq12_" + t, zt12, Sense::LessEqual, z(a, b) + z(a + 1, b));
        model_.add("eq13_" + t, zt12, Sense::LessEqual, z(a, b + 1) + z(a + 1, b + 1));
      }
      // (11) is (10) of the other orientation.
    }
}

}  // namespace pipesim::ilp
