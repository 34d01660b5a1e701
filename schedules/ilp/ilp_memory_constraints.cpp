// Seed 000 §6.2 (22), (31)-(36): the memory of a device while each op runs,
// as analysis/pattern_memory computes it (docs/memory-model.md), k copies:
//   M^MOD (33): W_p x (1 + weight versions): 2 (flush), 3 (2bw), or
//         1 + max(1, in flight) with weight stashing (versions N, y = N z);
//   M^BUF (34)-(35), Lemma 11: a_e on both ends of every cross-device edge, per copy;
//   M^ACT (31)-(32), Lemma 10: the working tensors a_{j-1} + a_j (a forward's
//         input is its own stash) and, per layer-copy (l', c') on the device,
//         a_{l'-1} x (sigma + w(F_l', o) + [F_l' = o] - w(B_l', o)), sigma = the
//         shift difference s(F_l') - s(B_l') (Lemma 9);
//   M^DIR (22), Lemma 8: a_e for every edge T_e -> T_e+1 of the device whose
//         output waits while o runs.
// sigma, o, b, y are continuous here: each only has lower bounds, integral
// whenever the binaries are, and only raises memory, so the smallest value
// is the integral one (the paper declares them integer or binary).
#include <algorithm>
#include <cmath>

#include "schedules/ilp/ilp_formulation.hpp"

namespace pipesim::ilp {
namespace {

std::string id(int x) { return std::to_string(x + 1); }

}  // namespace

void Formulation::add_memory_constraints() {
  const std::vector<int> versions = add_weight_versions();
  // Free mode: sigma, b and the weights depend on the layer of o only (its device).
  std::vector<DeviceMemory> devices;
  for (int l = 0; l < in_.L; ++l) devices.push_back(device_memory(l, versions));
  // (36) for every op that lasts (pattern_memory skips empty ones).
  memory_.assign(in_.ops(), LinExpr(0));
  for (int o = 0; o < in_.ops(); ++o) {
    if (!(in_.duration[o] > 0)) continue;
    const int j = in_.task(o);
    const LinExpr memory = op_memory(o, devices[in_.layer(j)]);
    if (std::isfinite(in_.memory_of(j))) model_.add("eq36_" + in_.name(o), memory, Sense::LessEqual, in_.memory_of(j));
    memory_[o] = memory;
  }
}

// Micro-batches of layer l' in flight right after F(l', c) starts, all
// copies of l' (pattern_memory's in_flight).
LinExpr Formulation::layer_in_flight(int lp, int c) const {
  const int f = in_.op(in_.forward_task(lp), c);
  LinExpr count = 1;
  for (int cp = 0; cp < in_.k; ++cp) {
    count += stash_lag(lp, cp);
    if (cp != c) count += w(in_.op(in_.forward_task(lp), cp), f);
    count -= w(in_.op(in_.backward_task(lp), cp), f);
  }
  return count;
}

// Weight stashing's versions: a variable per device (fixed allocation) or
// per layer's device (free), at least the in-flight count of every layer it
// holds. Empty for the other weight policies.
std::vector<int> Formulation::add_weight_versions() {
  std::vector<int> versions;
  if (in_.weights != WeightPolicy::Stashing) return versions;
  const double most = in_.k * (8.0 * in_.L + 1);  // most micro-batches of a layer in flight on a device
  const int holders = in_.fixed ? in_.P : in_.L;
  for (int h = 0; h < holders; ++h)
    versions.push_back(model_.add_var((in_.fixed ? "versions_p" : "versions_l") + id(h), 1, most, VarType::Continuous));
  for (int h = 0; h < holders; ++h)
    for (int lp = 0; lp < in_.L; ++lp) {
      const LinExpr together = in_.fixed ? LinExpr(in_.allocation[lp] == h ? 1 : 0) : z_layers(h, lp);
      if (together.is_constant() && together.constant < 0.5) continue;
      for (int c = 0; c < in_.k; ++c)
        model_.add("versions_" + id(h) + "_l" + id(lp) + "c" + std::to_string(c), LinExpr::var(versions[h]),
                   Sense::GreaterEqual, layer_in_flight(lp, c) - most * (1 - together));
    }
  return versions;
}

// sigma (31)-(32), b (34)-(35) and the weights (33) of layer l's device,
// each variable added where the allocation leaves it open.
Formulation::DeviceMemory Formulation::device_memory(int l, const std::vector<int>& versions) {
  const int L = in_.L, k = in_.k, n = in_.tasks();
  const double U = 8.0 * L;               // most shifts between F_l and B_l (paper: 8L)
  const double most = k * (8.0 * L + 1);  // most micro-batches of a layer in flight on a device
  DeviceMemory device{std::vector<LinExpr>(L * k), std::vector<LinExpr>(n), LinExpr(0)};
  for (int lp = 0; lp < L; ++lp)
    for (int c = 0; c < k; ++c) {
      LinExpr& s = device.stash_lag[lp * k + c];
      const LinExpr together = z_layers(l, lp);
      if (together.is_constant()) {
        s = together.constant > 0.5 ? stash_lag(lp, c) : LinExpr(0);
        continue;
      }
      if (!(in_.stash[lp] > 0)) continue;
      const std::string t = "l" + id(l) + "_l" + id(lp) + "c" + std::to_string(c);
      s = LinExpr::var(model_.add_var("sigma_" + t, 0, U, VarType::Continuous));
      model_.add("eq31_" + t, s, Sense::LessEqual, U * together);
      model_.add("eq32_" + t, s, Sense::GreaterEqual, stash_lag(lp, c) - U * (1 - together));
    }
  const int j = in_.forward_task(l);
  for (int e = 1; e < n; ++e) {
    if (!(in_.out[e] > 0) || !in_.cross(e)) continue;
    const LinExpr first = z(j, e), second = z(j, e + 1);
    LinExpr& b = device.buffer[e];
    if (first.is_constant() && second.is_constant()) {
      b = first.constant != second.constant ? 1 : 0;
      continue;
    }
    const std::string t = "l" + id(l) + "_" + std::to_string(e);
    b = LinExpr::var(model_.add_var("b_" + t, 0, 1, VarType::Continuous));
    model_.add("eq34_" + t, b, Sense::GreaterEqual, first - second);
    model_.add("eq35_" + t, b, Sense::GreaterEqual, second - first);
  }
  // (33), generalised to the weight policy.
  const double copies_of_weights = in_.weights == WeightPolicy::Flush ? 2 : 3;  // with the gradient buffer
  for (int lp = 0; lp < L; ++lp) {
    if (!(in_.weight[lp] > 0)) continue;
    const LinExpr together = z_layers(l, lp);
    if (in_.weights != WeightPolicy::Stashing) {
      device.weights += copies_of_weights * in_.weight[lp] * together;
    } else if (in_.fixed) {
      if (together.constant > 0.5) device.weights += in_.weight[lp] * (1 + LinExpr::var(versions[in_.allocation[l]]));
    } else {  // y = versions x z, linearised
      const std::string t = "l" + id(l) + "_l" + id(lp);
      const LinExpr y = LinExpr::var(model_.add_var("y_" + t, 0, most, VarType::Continuous));
      model_.add("y_" + t, y, Sense::GreaterEqual, LinExpr::var(versions[l]) - most * (1 - together));
      device.weights += in_.weight[lp] * (together + y);
    }
  }
  return device;
}

// The left side of (36): the memory of o's device while o runs.
LinExpr Formulation::op_memory(int o, const DeviceMemory& device) {
  const int L = in_.L, k = in_.k, n = in_.tasks(), j = in_.task(o);
  LinExpr memory = device.weights;
  for (int e = 1; e < n; ++e)
    if (in_.out[e] > 0 && in_.cross(e)) memory += k * in_.out[e] * device.buffer[e];
  // M^ACT: working tensors, then stashes.
  memory += in_.out[j] + (in_.forward(j) ? 0 : in_.out[j - 1]);
  for (int lp = 0; lp < L; ++lp) {
    if (!(in_.stash[lp] > 0)) continue;
    for (int c = 0; c < k; ++c) {
      const int f = in_.op(in_.forward_task(lp), c), b = in_.op(in_.backward_task(lp), c);
      memory += in_.stash[lp] * (device.stash_lag[lp * k + c] + w(f, o) + (f == o ? 1 : 0) - w(b, o));
    }
  }
  return memory + waiting_outputs(o);
}

// M^DIR (22): the output of T_e waits for T_e+1 while o runs iff, in the
// device's order, T_e < o < T_e+1, or o < T_e+1 < T_e, or T_e+1 < T_e < o.
LinExpr Formulation::waiting_outputs(int o) {
  const int j = in_.task(o);
  LinExpr memory = 0;
  for (int e = 1; e < in_.tasks(); ++e) {
    if (!(in_.out[e] > 0)) continue;
    const LinExpr pair = z(e, e + 1), here = z(j, e);
    if ((pair.is_constant() && pair.constant < 0.5) || (here.is_constant() && here.constant < 0.5)) continue;
    for (int c = 0; c < in_.k; ++c) {
      const int p = in_.op(e, c), q = in_.op(e + 1, c);
      if (o == p || o == q) continue;
      const std::string t = in_.name(o) + "_" + in_.name(p);
      const LinExpr waits = LinExpr::var(model_.add_var("o_" + t, 0, 1, VarType::Continuous));
      model_.add("eq22_" + t, waits, Sense::GreaterEqual, w(p, o) + w(o, q) + w(q, p) - 1);
      memory += in_.out[e] * waits;
    }
  }
  return memory;
}

}  // namespace pipesim::ilp
