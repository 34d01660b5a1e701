// The state of expand_job while it builds: which task of the job finishes
// each pipeline task in each replica. Three phases: the passes (with their
// TP collectives), the gradient reduction, then the tasks held back until
// the gradients are reduced (the optimizer step and what follows it).
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collectives/collective.hpp"
#include "layout/rank_map.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

class JobBuilder {
 public:
  // folded > 0: build replicas 0..folded-1 alone (folded divides the DP
  // size), their DP collectives as folded rings (collectives/:
  // add_folded_collective), for a folded run (sim/folding.hpp); 0: every
  // replica. fold_tp: build TP rank 0 alone, its TP collectives folded rings too.
  JobBuilder(const TaskGraph& pipeline, const Workload& w, const Platform& platform, const RankMap& map, int folded = 0,
             bool fold_tp = false);
  // Why the job's own structure keeps its replicas (or its TP ranks) from
  // folding: a DP (TP) collective that is not a ring, offloading, fetched
  // weights; empty when it does not. Read before building.
  std::string fold_refusal() const;
  std::string tp_fold_refusal() const;
  void copy_passes();         // every task but those deferred, replica by replica
  void reduce_gradients();    // parallelism/gradient_reduction.cpp
  void sum_tied_gradients();  // the tied embeddings' gradient, between the first and last stage
  void copy_deferred();       // the gradient norms and optimizer steps, after the reduction and the sum
  TaskGraph finish();         // device orders and static memory
  const std::string& failing_field() const { return field_; }

 private:
  static constexpr TaskId kNone = 0xffffffffu;
  int replicas() const { return built_tp_ * built_dp_; }  // the (t, d) copies built
  int replica(int t, int d) const { return d * built_tp_ + t; }
  std::size_t slot(TaskId x, int r) const { return static_cast<std::size_t>(x) * replicas() + r; }
  std::size_t at(int p, int r) const { return static_cast<std::size_t>(p) * replicas() + r; }  // per (device p, copy)
  void plan_copy_order();
  const std::vector<TaskId>& held_by_sends(TaskId x) const;
  bool scatters(TaskId x) const;
  void gather_after_transfer(TaskId x, int d);
  bool moves_to_host() const;  // offloading or fetched weights: nothing folds
  void copy_task(TaskId x, int r, const std::vector<TaskId>& extra_deps);
  void add_tp_collectives(TaskId x, int d);
  // Adds one collective over `group`; ready[i] for rank i; returns the done
  // tasks. folded: a DP group's ring, the built replicas' steps alone.
  std::vector<TaskId> collective(CollectiveOp op, const std::string& algorithm, const std::vector<int>& group,
                                 double bytes, const std::string& purpose,
                                 const std::vector<std::vector<TaskId>>& ready, const Task& tag, bool folded = false);
  struct Bucket {
    double bytes = 0;
    TaskId ready = 0;         // the pipeline task after which its gradients are final
    int first = 0, last = 0;  // its layers
  };
  void plan_buckets();
  TaskId gradient_ready(const Bucket& b, int r) const;
  TaskId copy_pieces(TaskId x, int r, const Task& task, const std::vector<TaskId>& deps);
  void gather_weights(TaskId step);
  // Overlapped weight gathers (parallel.overlap_param_gather): the step's
  // all-gather, which belongs to the next iteration, before the device's
  // first forward (its first bucket) and first backward (the rest). A job
  // with an optimizer runs one iteration, so its start stands for the next.
  bool overlaps_weight_gather() const;
  void plan_weight_gathers();
  void gather_weights_before(TaskId x);
  TaskId weights_wait(TaskId x, int r) const;
  void copy_deferred_task(TaskId x);
  std::vector<TaskId> sent(int p, int r) const;
  void sum_gradient_norms();
  void sum_norms_over(const std::vector<int>& stages, bool across_tp, const Task& tag);
  CollectiveSpec dp_spec(CollectiveOp op, const std::string& algorithm, int t, int p, double bytes)
      const;  // the norms all-reduced: over each replica's model-parallel ranks, or all (ZeRO)

  const TaskGraph& pipe_;
  const Workload& w_;
  const Platform& platform_;
  const RankMap& map_;
  const bool fold_, fold_tp_;
  const int built_dp_;  // the replicas built: the folded ones, else every one
  const int built_tp_;  // the TP ranks built: 1 when folded, else every one
  TaskGraph job_;
  std::vector<TaskId> first_, last_;          // per (pipeline task, replica): its copy, and what finishes it
  std::vector<TaskId> order_previous_;        // per pipeline task: the ordered task before it on its device
  std::vector<TaskId> copy_order_;            // the pipeline's tasks after their dependencies and order predecessors
  std::vector<bool> deferred_;                // the optimizer steps and their dependants
  std::vector<std::vector<TaskId>> reduced_;  // per (device p, replica): the gradient reduction's done tasks
  std::vector<std::vector<TaskId>> tied_;     // per (device p, replica): the tied gradient sum's done task
  std::vector<std::vector<TaskId>> normed_;   // per (device p, replica): the gradient norm's all-reduce, done
  std::vector<TaskId> first_deferred_;        // per pipeline device: its gradient norm, else its step
  std::vector<std::vector<TaskId>> sends_;    // per pipeline device: the pipeline transfers it sends
  std::vector<std::vector<TaskId>> sent_by_;  // without overlap_p2p, per pipeline pass: the transfers it sends
  std::vector<std::vector<Bucket>> buckets_;  // per pipeline device, in backward order
  std::map<TaskId, std::vector<int>> cuts_;   // per cut backward: the layers where a bucket ends
  std::map<std::size_t, std::vector<std::pair<int, TaskId>>> pieces_;  // per (task, replica): (lowest layer, piece)
  std::vector<double> weight_bytes_;  // per pipeline device: the weights it holds (per TP rank)
  // Overlapped weight gathers: per pipeline task, 1 for its device's first
  // forward, 2 for its first backward, else 0 (devices with a step only);
  // per device, each built copy's gathers (first bucket, all) once made.
  std::vector<char> weights_waits_;
  std::map<int, std::pair<std::vector<TaskId>, std::vector<TaskId>>> weight_gathers_;
  std::map<std::tuple<int, double, std::string, std::vector<int>>, int> records_;
  std::string field_ = "parallel";
};

}  // namespace pipesim
