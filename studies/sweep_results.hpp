// What one run of a sweep left (DIR/runs/ID.json) and the table of them all
// (DIR/results.csv), assembled in grid order so the same runs give the same
// bytes however they were run: at once, resumed, in shards, merged.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "studies/sweep_plan.hpp"

namespace pipesim {

struct RunRecord {
  std::string id;
  std::vector<std::string> inputs;   // the run's SweepRun::values
  std::string status;                // valid, invalid, error, or "killed by signal N"
  std::string exit_code;             // empty when killed by a signal
  std::string error;                 // the run's error line, if any
  std::vector<std::string> metrics;  // one per sweep_metric_columns(), as the --json report wrote them; empty if absent
};

// The metric columns of results.csv: the report's scalars, the worst device
// (bubble, peak memory and its capacity), the pattern's periods.
const std::vector<std::string>& sweep_metric_columns();

// The record of RUN, from how its process ended (a waitpid status), its
// stderr and its --json report (empty when it wrote none). A run that
// exited 0 or 1 without a readable report is an error, never a valid or
// invalid row without metrics.
RunRecord make_record(const SweepRun& run, int wait_status, const std::string& stderr_text,
                      const std::string& report_json);

// Whether RECORD is final: false when its run was killed by a signal (most
// likely from outside: Ctrl-C, a time limit, the OOM killer), or it says
// valid or invalid without every metric column (written by an older
// pipesim): either is run again on resume.
bool record_complete(const RunRecord& record);

// runs/ID.json text, and back (nullopt when missing, unreadable or not a record).
std::string record_json(const RunRecord& record);

// The record of RUN, a valid run whose --json report would be REPORT_JSON
// with each device's static memory of CATEGORY (a part of its peak, e.g.
// "gradients") divided by DIVISOR: its peak lower by the difference, at the
// same instant, every other metric the same. A plan's ZeRO 2 twin of a ZeRO
// 1 run (docs/plan.md). nullopt where the report cannot be read.
std::optional<RunRecord> record_with_divided_part(const SweepRun& run, const std::string& report_json,
                                                  const std::string& category, double divisor);
std::optional<RunRecord> read_record(const std::string& path);

// The record of RUN in DIR, if there is one for the same inputs.
std::optional<RunRecord> find_record(const std::string& dir, const SweepRun& run);

// DIR/plan.json: the plan's columns and runs, so merge needs no spec.
std::string plan_json(const SweepPlan& plan);
SweepPlan read_plan(const std::string& dir);  // throws InputError

// results.csv: a header, then one row per record in plan order.
std::string results_csv(const SweepPlan& plan, const std::vector<RunRecord>& records);

// Writes TEXT to PATH through a temporary file and a rename: never half-written.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace pipesim
