// Seed 003's master scheduler: one round of B micro-batches through S stages
// on W workers, described by a compute map w_compute(s, b), a weight map
// w_weights(s, b) and a priority n(s, b, d). Workers run greedily: whenever a
// worker is idle it starts whichever of its ready jobs has the smallest n.
// See docs/master-scheduler.md.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "schedules/registry.hpp"
#include "sim/platform.hpp"
#include "sim/task_graph.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// The built-in maps (seed 003, "Formal definitions of distributed schedules"),
// with h(s, b) = R (b mod G) + (s mod R):
//   ddp   (w_weights, w_compute) = (b, b)              W = B
//   fsdp                         = (s, b)              W = B (and S <= B)
//   gpipe                        = (s, s)              W = S
//   lpp                          = (h(s,b), h(s,b))    W = G R, R | S
//   fslpp                        = (h(s,s), h(s,b))    W = G R, R | S
// (The seed writes w(s, b, d) = (w_weights, w_compute); none of its maps
// depends on the direction d, so these are functions of (s, b).)
enum class MasterScheme { DDP, FSDP, GPipe, LPP, FSLPP };

// How a worker breaks ties among its ready jobs, as a total order n(s, b, d)
// (smaller runs first). k is the job's position in its batch's chain:
// k = s for F(s, b), k = 2S - 1 - s for B(s, b).
//   1f1b          backward before forward; then older batch; then smaller k
//                 n = [d = F] 2SB + 2S b + k
//   depth-first   oldest batch first (the job pending longest: a batch's jobs
//                 become ready in chain order), then chain position
//                 n = 2S b + k
//   breadth-first earliest chain position first (all batches through a stage
//                 before the next), then older batch
//                 n = B k + b
enum class MasterPriority { OneFOneB, DepthFirst, BreadthFirst };

std::string_view to_string(MasterScheme scheme);
std::string_view to_string(MasterPriority priority);
std::optional<MasterScheme> parse_master_scheme(std::string_view name);
std::optional<MasterPriority> parse_master_priority(std::string_view name);

struct MasterSpec {
  MasterScheme scheme = MasterScheme::LPP;
  MasterPriority priority = MasterPriority::OneFOneB;
  int G = 0;  // lpp, fslpp: groups (0 = not given)
  int R = 0;  // lpp, fslpp: workers per group (0 = not given)
  // Weight prefetch lookahead, in jobs of the batch's chain: the fetch of
  // stage s's weights for F(s, b) is issued when F(s - 1 - prefetch, b)
  // finishes (at the start of the round if s - 1 - prefetch < 0). 1 (the
  // default) overlaps the fetch with the predecessor F(s - 1, b), as the
  // seed's prefetch thread does; 0 fetches only once F(s - 1, b) is done.
  int prefetch = 1;
  // false (default, the seed's count: one fetch per (s, b) whose weights live
  // elsewhere): the copy fetched for F(s, b) stays until B(s, b) ends.
  // true (FSDP's "reshard after forward"): the copy is dropped when F(s, b)
  // ends and fetched again for B(s, b), issued `prefetch` jobs ahead in the
  // chain; twice the weight traffic, fewer copies held.
  bool refetch = false;
};

// The dimensions of one round once the spec is checked.
struct MasterShape {
  int S = 0;  // stages
  int B = 0;  // micro-batches
  int W = 0;  // workers: devices 0 .. W-1 of the platform
  int G = 1;  // groups (1 unless lpp / fslpp)
  int R = 1;  // workers per group (1 unless lpp / fslpp)
};

// A rejected spec: which schedule parameter is wrong ("G", "R", "workers",
// "scheme", ...) and why, in one sentence.
class MasterSpecError : public std::invalid_argument {
 public:
  MasterSpecError(std::string param, const std::string& what) : std::invalid_argument(what), param_(std::move(param)) {}
  const std::string& param() const { return param_; }

 private:
  std::string param_;
};

// Checks the spec for S stages and B micro-batches and returns its shape.
// `workers` (0 = not given) must equal the scheme's W. Throws MasterSpecError:
// S or B < 1; G or R given to a scheme without groups; lpp/fslpp without G or
// R, W != G R, R not dividing S, G > B (a group with no batch); fsdp with
// S > B (stage s's owner, worker s, would not exist); prefetch < 0.
MasterShape master_shape(const MasterSpec& spec, int S, int B, int workers = 0);

int master_compute_worker(const MasterSpec& spec, const MasterShape& shape, int s, int b);
int master_weight_owner(const MasterSpec& spec, const MasterShape& shape, int s, int b);
// n(s, b, d): unique per job, smaller runs first.
double master_priority(const MasterSpec& spec, const MasterShape& shape, int s, int b, bool backward);

// One stage of the chain (contiguous layers).
struct MasterStage {
  int first_layer = -1;
  int last_layer = -1;
  double forward_flops = 0;
  double backward_flops = 0;
  double output_bytes = 0;  // activation sent to stage s + 1 (and the gradient coming back)
  double stash_bytes = 0;   // kept from F(s, b) until B(s, b)
  double weight_bytes = 0;
};

// The task graph of one round, on devices 0 .. W-1 of a platform with
// `device_count` devices. No device has an order: the engine dispatches each
// worker's ready jobs by Task::priority = n(s, b, d). Tasks:
//  - F(s, b), B(s, b): Forward / Backward on w_compute(s, b);
//  - a Transfer of stage s-1's output from w_compute(s-1, b) to w_compute(s, b)
//    before F(s, b) when they differ, and of the gradient from
//    w_compute(s+1, b) to w_compute(s, b) before B(s, b);
//  - a WeightFetch of stage s's weights from w_weights(s, b) to
//    w_compute(s, b) when they differ, before F(s, b) (issued `prefetch` jobs
//    ahead); B(s, b) runs on the same worker and reuses that copy, or, with
//    `refetch`, gets its own fetch.
// Transfers are created even when they carry 0 bytes (they then take no
// time), so that the counts of seed 003's Table 1 can be read off the graph.
// Memory (docs/master-scheduler.md): Weights and Gradients of every stage are
// static on each of its owners; a fetched copy is held (Weights) on the
// compute worker from the start of the fetch to the end of B(s, b) (with
// `refetch`: to the end of the job it was fetched for); the
// stash (Activations) from the start of F(s, b) to the end of B(s, b);
// CommBuffers as in the flush schedules (sender: producer start to transfer
// end; receiver: transfer start to consumer end).
// Throws MasterSpecError on a bad spec and std::invalid_argument when the
// platform has fewer than W devices.
TaskGraph build_master_graph(const MasterSpec& spec, const std::vector<MasterStage>& stages, int microbatches,
                             int device_count);

// Registry entry `master`: schedule {name: master, scheme: ..., priority: ...,
// G: .., R: .., workers: .., prefetch: .., refetch: ..}; stages from the workload's
// placement (auto: one stage per layer; {stages: N}: N balanced contiguous
// stages); one round (iterations: 1). Throws InputError.
GeneratedSchedule master_schedule(const Workload& workload, const Platform& platform);

}  // namespace pipesim
