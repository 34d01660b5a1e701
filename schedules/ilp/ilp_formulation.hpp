// Seed 000 §6 as a LinearModel: the paper's variables (as expressions, so
// that a value the instance already knows is a constant) and constraints
// (1)-(36), generalised to k copies per period and to a fixed allocation.
// One file per group of constraints:
//   ilp_variables.cpp             variables and accessors
//   ilp_allocation_constraints.cpp (1)-(4) resources, (8)-(13) links
//   ilp_ordering_constraints.cpp  (5)-(7), (14)-(16) orders, (17)-(21) period
//   ilp_shift_constraints.cpp     (23)-(30) shifts between consecutive tasks
//   ilp_memory_constraints.cpp    (22), (31)-(36) memory
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "schedules/ilp/ilp_instance.hpp"
#include "schedules/ilp/linear_model.hpp"

namespace pipesim::ilp {

class Formulation {
 public:
  // Builds everything; past `deadline`, throws BuildTimeLimit (linear_model.hpp).
  explicit Formulation(Instance instance, std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

  const Instance& instance() const { return in_; }
  const LinearModel& model() const { return model_; }

  // ---- The paper's variables (0-based op indices o, paper task numbers j, edges e).
  LinExpr T() const { return LinExpr::var(T_); }
  LinExpr z(int j1, int j2) const;         // T_j1, T_j2 on one device (eq. 4 built in: per layer)
  LinExpr z_layers(int l1, int l2) const;  // the same for layers
  LinExpr tau(int o) const { return LinExpr::var(tau_[o]); }
  bool has_transfer(int e) const { return in_.cross(e); }
  LinExpr ttau(int e, int c) const { return LinExpr::var(ttau_.at(e * in_.k + c)); }
  LinExpr transfer_duration(int e) const;                     // ~d_e, 0 when T_e and T_e+1 share a device
  LinExpr w(int o1, int o2) const;                            // o1 before o2 on their device (0 if not together)
  LinExpr zt(int e1, int e2) const;                           // transfers of e1, e2 on one link (e1 == e2: two copies)
  LinExpr wt(int e1, int c1, int e2, int c2) const;           // transfer (e1,c1) before (e2,c2) on their link
  LinExpr lag(int e, int c) const;                            // v + v' + ~v + ~v': shift(T_e) - shift(T_e+1), copy c
  LinExpr stash_lag(int l, int c) const;                      // shift(F_l) - shift(B_l): sum of lags from F_l to B_l
  int v(int e, int c) const { return v_.at(e * in_.k + c); }  // -1 if none
  int vp(int e, int c) const { return vp_.at(e * in_.k + c); }
  int vt(int e, int c) const { return vt_.at(e * in_.k + c); }
  int vtp(int e, int c) const { return vtp_.at(e * in_.k + c); }

  int T_index() const { return T_; }
  int tau_index(int o) const { return tau_[o]; }
  int ttau_index(int e, int c) const { return ttau_.at(e * in_.k + c); }
  int z_index(int l1, int l2) const;  // -1 when constant
  int w_index(int o1, int o2) const;  // variable of the unordered pair, -1 when constant
  int zt_index(int e1, int e2) const;
  int wt_index(int e1, int c1, int e2, int c2) const;
  int f_index(int l) const { return f_.empty() ? -1 : f_[l]; }

  // Per op: the memory of its device while it runs, the left side of (36)
  // (constant 0 for ops of zero duration, which get no row).
  const std::vector<LinExpr>& memory() const { return memory_; }

 private:
  void add_variables();               // ilp_variables.cpp
  void add_allocation_constraints();  // (1)-(4), (8)-(13)
  void add_ordering_constraints();    // (5)-(7), (14)-(21)
  void add_shift_constraints();       // (23)-(30)
  void add_memory_constraints();      // (22), (31)-(36)
  int transfer_op(int e, int c) const { return (e - 1) * in_.k + c; }

  // The parts of add_memory_constraints (ilp_memory_constraints.cpp).
  // What every op on the device of a layer l holds besides its own tensors.
  struct DeviceMemory {
    std::vector<LinExpr> stash_lag;  // [l' * k + c]: sigma, layer l' copy c's stash count if on l's device
    std::vector<LinExpr> buffer;     // [e]: b, 1 when exactly one end of edge e is on l's device
    LinExpr weights;                 // M^MOD (33)
  };
  LinExpr layer_in_flight(int lp, int c) const;
  std::vector<int> add_weight_versions();
  DeviceMemory device_memory(int l, const std::vector<int>& versions);
  LinExpr op_memory(int o, const DeviceMemory& device);
  LinExpr waiting_outputs(int o);

  Instance in_;
  LinearModel model_;
  int T_ = -1;
  std::vector<int> zl_;                 // L x L, layer pairs (free mode), -1 when constant
  std::vector<int> f_;                  // per layer (free mode)
  std::vector<int> tau_;                // per op
  std::vector<int> ttau_;               // per (e, c): index e * k + c
  std::vector<int> w_;                  // ops x ops, the unordered pair's variable at [min][max]
  std::vector<int> zt_;                 // edges x edges (index e), free mode
  std::vector<int> wt_;                 // transfer ops x transfer ops ((e - 1) * k + c)
  std::vector<int> v_, vp_, vt_, vtp_;  // per (e, c)
  std::vector<LinExpr> memory_;         // per op
};

}  // namespace pipesim::ilp
