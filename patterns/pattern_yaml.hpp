// Pattern files (docs/pattern-format.md): reading, making ready for a
// workload, and writing them back.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "patterns/pattern.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

// Where each op and transfer came from (for messages) and which shifts the
// file gave; parallel to Pattern::ops and Pattern::transfers.
struct PatternSource {
  std::string file;
  int tasks_line = 0;                 // line of the `tasks:` key; 0 = unknown
  std::vector<int> op_line, op_item;  // 1-based line and index in tasks[]
  std::vector<bool> op_shift;         // shift given
  std::vector<int> transfer_line, transfer_item;
  std::vector<bool> transfer_shift;
};

// Parses a pattern file; device names are resolved against the platform.
// `layers` > 0 is the expected layer count (0: the largest layer named).
// Missing shifts are left 0 and missing transfers absent (see load_pattern).
// Throws InputError ("FILE: line N: tasks[3].device: WHAT") for bad YAML,
// unknown or missing keys, unknown task names, missing or duplicate tasks,
// offsets outside [0, period), unknown devices, F and B of a layer on
// different devices (seed 000 eq. 4), non-integer shifts, and transfers
// after the last task, between ops of one device, or given twice.
Pattern read_pattern_yaml(const std::string& path, const Platform& platform, int layers = 0,
                          PatternSource* source = nullptr);
Pattern parse_pattern_yaml(const std::string& text, const std::string& file, const Platform& platform, int layers = 0,
                           PatternSource* source = nullptr);

// A pattern file ready to unroll for a workload: its layer count must be the
// workload's; when every shift and every transfer is given they are checked
// (each at least the minimal step of seed 000 Lemma 9), otherwise
// assign_minimal_shifts places the missing transfers and computes all shifts,
// and any shift the file gave must equal the computed one; finally ops and
// transfers must not overlap (Definition 1). Throws InputError.
Pattern load_pattern(const std::string& path, const Workload& workload, const Platform& platform);
Pattern load_pattern_text(const std::string& text, const std::string& file, const Workload& workload,
                          const Platform& platform);

// The pattern of a workload with schedule {name: pattern, file: F}: F is
// relative to the workload file; no other parameter and no placement are
// allowed. Then as load_pattern. Throws InputError.
Pattern load_workload_pattern(const Workload& workload, const Platform& platform);

// The same format, deterministic: ops by copy then task, transfers likewise,
// numbers in their shortest exact form, so read(write(p)) == p.
void write_pattern_yaml(std::ostream& out, const Pattern& pattern, const Platform& platform);

}  // namespace pipesim
