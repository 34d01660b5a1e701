// What a pattern's operations cost on a given workload and platform, and the
// smallest valid shifts for given offsets (seed 000, Lemma 9).
#pragma once

#include <string>
#include <vector>

#include "patterns/pattern.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// One task of an op whose work a memory-saving program replaces
// (schedules/periodic/pattern_memory_saving): recomputes before a backward,
// then the op's own pass. Its memory is the program's, in Activations.
struct OpStep {
  TaskKind kind = TaskKind::Forward;  // Forward, Recompute or Backward
  int layer = 0;                      // the pattern layer it computes
  double flops = 0;
  double duration = 0;   // flops / the device's speed; an op's steps add up to its duration
  double at_start = 0;   // bytes allocated as it starts
  double at_finish = 0;  // bytes allocated as it ends (<= 0 when it frees)
};

struct PatternTiming {
  std::vector<double> duration;      // per op: seconds on its device
  std::vector<double> flops;         // per op: its amount of work (duration = flops / speed)
  std::vector<double> output_bytes;  // per op: F_l: a_l; B_l: a_{l-1} (gradient of its input), a_{-1} = workload.input
  std::vector<double>
      transfer_duration;        // per op: sending its output to its successor's device; 0 if same device or none
  std::vector<double> weights;  // per layer: bytes of its parameters W_l
  // Per op: the link resources its transfer holds (pattern.links, see
  // LinkResources), as ids into link_names; empty when it sends nothing
  // across devices, sends 0 bytes, or crosses only FatPipe links.
  std::vector<std::vector<int>> transfer_links{};
  std::vector<std::string> link_names{};  // per resource id
  // Per op (or empty for none): the tasks of a memory-saving program that
  // replace the op's plain task and stash; the op's duration is their sum.
  std::vector<std::vector<OpStep>> steps{};
  bool programmed(int op) const { return !steps.empty() && !steps[op].empty(); }
};

// For every link resource (index = id), the pattern's transfers that hold
// it (indices into pattern.transfers), in period order (transfer_before).
std::vector<std::vector<int>> transfers_by_link(const Pattern& pattern, const PatternTiming& timing);

// Throws std::invalid_argument if the pattern is malformed (check_pattern),
// has another layer count than the workload, or a device pair it sends data
// over has no route or no bandwidth, or a device has no speed.
PatternTiming pattern_timing(const Pattern& pattern, const Workload& workload, const Platform& platform);

// Structure only: period > 0, copies >= 1, every F_l/B_l of every copy exactly
// once on a device in [0, device_count) with F and B of a layer-copy on the
// same device (seed 000 eq. 4), offsets in [0, period), at most one transfer
// per op and only between different devices; with require_transfers, one for
// every pair of consecutive ops on different devices. Throws std::invalid_argument.
void check_pattern(const Pattern& pattern, int device_count, bool require_transfers = true);

// Periods a consumer starting at offset `start` must lag behind a producer
// ending at `end` (offset + duration, may exceed the period):
// ceil((end - start) / period), at least 0. An end within 1e-9 period of a
// start counts as equal, so round-off in offsets never costs a period.
// At most kMaxShift (a task that long overlaps itself anyway).
int minimal_shift_step(double end, double start, double period);

// Creates the missing transfers, each at the earliest offset after its
// producer ends (modulo the period), then sets every shift to its smallest
// valid value: the last backward of each copy gets 0 and, walking the chain
// backwards, each producer gets its consumer's shift + minimal_shift_step.
// Throws std::invalid_argument if a shift would exceed kMaxShift.
void assign_minimal_shifts(Pattern& pattern, const PatternTiming& timing);

// Seed 000 Definition 1's exclusive access: on each device, ops must not
// overlap in the cyclic period (nor their total exceed it); likewise the
// transfers of each link resource (timing.transfer_links: pattern.links).
// Ties in start offsets are ordered as unroll_pattern orders them (task
// number, then copy), so a zero-length op tied with a longer one can overlap it.
// Returns "" when valid, else
// a one-line description of the first conflict (device names from platform).
std::string find_overlap(const Pattern& pattern, const PatternTiming& timing, const Platform& platform);

// Seed 000's name of an op, 1-based as in the paper: "F3", "B1"; with
// copies > 1, "F3.c1".
std::string op_name(const Pattern& pattern, int op);

}  // namespace pipesim
