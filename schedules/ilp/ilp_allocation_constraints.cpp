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

  // (8)-(13) for both orientations of every pair of edges using links,
  // generalised to the platform's links: ~z is at least the indicator of
  // every relation of the two transfers' devices that makes them share a
  // resource (Instance::conflicts). S, D: same source, same target; X: the
  // source of a is the target of b; Y: the target of a is the source of b.
  // Seed 000's one resource per pair is SameRoute (8) and Reverse (9); its
  // upper bounds (12) S + Y and (13) X + D generalise to one literal per
  // class that can share.
  using C = Instance::LinkClass;
  const bool* share = in_.conflicts;
  for (int e1 = 1; e1 < n; ++e1)
    for (int e2 = e1 + 1; e2 < n; ++e2) {
      if (!in_.uses_link(e1) || !in_.uses_link(e2)) continue;
      const LinExpr zt12 = zt(e1, e2);
      for (int side = 0; side < 2; ++side) {
        const int a = side == 0 ? e1 : e2, b = side == 0 ? e2 : e1;
        const std::string t = std::to_string(a) + s + std::to_string(b);
        const LinExpr S = z(a, b), D = z(a + 1, b + 1), X = z(a, b + 1), Y = z(a + 1, b);
        const LinExpr both_cross = z(a, a + 1) + z(b, b + 1);  // 0 when both transfers cross devices
        if (share[C::SameRoute]) model_.add("eq8_" + t, zt12, Sense::GreaterEqual, S + D - z(a, a + 1) - 1);
        if (share[C::Reverse]) model_.add("eq9_" + t, zt12, Sense::GreaterEqual, X + Y - z(a, a + 1) - 1);
        if (side == 0) {  // the other orientation gives the same rows
          if (share[C::SameSource]) model_.add("src_" + t, zt12, Sense::GreaterEqual, S - D - both_cross);
          if (share[C::SameTarget]) model_.add("dst_" + t, zt12, Sense::GreaterEqual, D - S - both_cross);
          if (share[C::TargetIsSource] || share[C::SourceIsTarget]) {  // equal: swapping a and b swaps them
            model_.add("ys_" + t, zt12, Sense::GreaterEqual, Y - X - both_cross);
            model_.add("xs_" + t, zt12, Sense::GreaterEqual, X - Y - both_cross);
          }
          if (share[C::Disjoint]) model_.add("any_" + t, zt12, Sense::GreaterEqual, 1 - S - D - X - Y - both_cross);
        }
        model_.add("eq10_" + t, zt12, Sense::LessEqual, 1 - z(a, a + 1));
        if (share[C::Disjoint]) continue;  // any two may share: no upper bound from the devices
        LinExpr first, second;             // a literal of every class that shares, true when it holds
        if (share[C::SameRoute]) first += S;
        if (share[C::Reverse]) first += Y, second += X;
        if (share[C::SameRoute]) second += D;
        if (share[C::SameSource]) first += S, second += S;
        if (share[C::SameTarget]) first += D, second += D;
        if (share[C::TargetIsSource] || share[C::SourceIsTarget]) first += X + Y, second += X + Y;
        model_.add("eq12_" + t, zt12, Sense::LessEqual, first);
        model_.add("eq13_" + t, zt12, Sense::LessEqual, second);
      }
      // (11) is (10) of the other orientation.
    }
}

}  // namespace pipesim::ilp
