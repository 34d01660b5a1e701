// Optimal periodic patterns by integer linear programming: seed 000 §6
// (variables T, z, f, tau, ~tau, w, ~w, ~z, v, v', ~v, ~v', sigma, o, b;
// constraints (1)-(36)), extended to k copies per period (kFkB) and to a
// given allocation, solved with COIN-OR CBC. Every answer is turned into a
// Pattern (schedules/pattern.hpp) whose exact period and analytic memory
// (analysis/pattern_analysis.hpp) are checked before it is returned.
// docs/ilp.md describes the formulation, its deviations from the paper and
// how to solve a written model with another solver.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "patterns/allocation.hpp"
#include "patterns/pattern.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim {

struct IlpOptions {
  double time_limit = 300;  // seconds for CBC; <= 0: build (and write) the model, do not solve
  int threads = 2;
  int copies = 1;                        // k (kFkB): k copies of every task per period
  std::optional<Allocation> allocation;  // fixed-allocation mode: device of every layer
  WeightPolicy weights = WeightPolicy::TwoBW;
  LinkModel links = LinkModel::Platform;  // which transfers exclude each other; Pair: seed 000 eq. 9
  std::string write_model;                // path ending .lp or .mps: written before solving
  std::optional<Pattern> warm_start;      // else the best heuristic (kfkb_pattern over allocations)
  // More candidates beside the heuristic's (a study's best baseline run):
  // those that are valid and fit compete with its patterns, by their copies.
  std::vector<Pattern> candidates;
  bool heuristic = true;  // false: no heuristic warm start (CBC starts from nothing)
  // The heuristic's patterns with other copies than `copies` (PipeDream's
  // eager steady states that repeat every k' micro-batches) may be the
  // answer when faster per micro-batch (IlpResult::pattern); false: only
  // patterns of `copies` copies, the model's own question.
  bool other_copies = true;
  // Free mode: the share of time_limit given first to the fixed-allocation
  // improvement loop (search_allocations: the best heuristic allocation and
  // its boundary neighbours, each solved by its own small model); the free
  // model gets the rest, started from the loop's best. 0: no loop.
  double allocation_search = 0;
  std::function<void(const std::string&)> log;  // progress lines: time, incumbent, bound, gap
  // While the heuristic searches (minutes on long chains): a line at most
  // every 5 s, "heuristic: N candidates tried, best so far X per micro-batch".
  std::function<void(const std::string&)> progress;
};

struct IlpResult {
  enum class Status { Optimal, Feasible, Infeasible, Unknown } status = Status::Unknown;
  // Valid (validate_pattern finds nothing). Its copies are options.copies,
  // except when the heuristic found a pattern with other copies (PipeDream's
  // eager steady state repeating every k' micro-batches) that is faster per
  // micro-batch than every k-copy pattern found, or fits where none does:
  // then that one (PipeDream's shifts), status Feasible, bound the load bound, and `message` says so.
  std::optional<Pattern> pattern;
  double period = 0;   // the pattern's exact period (pattern->copies micro-batches); the solver's T up to round-off
  double bound = 0;    // CBC's lower bound on T
  double gap = 0;      // (period - bound) / period
  double seconds = 0;  // wall time of the whole call
  double first_solution_seconds = -1;   // wall time until the first feasible pattern (warm start included)
  double heuristic_memory_needed = 0;   // on Infeasible/Unknown without a pattern: smallest per-device
                                        // memory with which a heuristic pattern fits (see docs/ilp.md)
  double heuristic_period = 0;          // the warm start's exact period, 0 if none
  double model_period = 0;              // the best pattern with options.copies copies (warm start or the
                                        // solver's), 0 if none: `period` unless a heuristic pattern with
                                        // other copies beat it (see IlpResult::pattern)
  int allocation_solves = 0;            // fixed-allocation models solved by the improvement loop
  double allocation_search_period = 0;  // the loop's best per micro-batch, 0 if it did not run
  int variables = 0, integers = 0, constraints = 0;
  double build_seconds = 0;  // building the model (without the heuristic)
  std::string message;       // one line: why infeasible/unknown, or how the pattern was obtained
};
std::string_view to_string(IlpResult::Status status);

// Throws std::invalid_argument for bad options (copies < 1, an allocation of
// the wrong size or with unknown devices, a model path without .lp/.mps).
// An instance without any pattern within the memory limits is Infeasible
// (CBC proved it) or Unknown (time limit), never an exception.
IlpResult solve_optimal_pattern(const Workload& workload, const Platform& platform, const IlpOptions& options);

// Reads a solution of the model that solve_optimal_pattern wrote (same
// workload, platform and options: the model is rebuilt to map names) in
// CBC's (`solu`), Gurobi's (.sol), CPLEX's (XML .sol) or HiGHS's format,
// and turns it into a valid pattern as solve_optimal_pattern does.
// nullopt when the file reports no feasible solution; throws
// std::invalid_argument when it cannot be read, names unknown variables,
// or its values are no valid pattern.
std::optional<Pattern> read_ilp_solution(const std::string& solution_file, const Workload& workload,
                                         const Platform& platform, const IlpOptions& options);

// The model alone, as solve_optimal_pattern builds it but without a warm
// start's bound on T: for solving it elsewhere (docs/ilp.md).
void write_ilp_model(const std::string& path, const Workload& workload, const Platform& platform,
                     const IlpOptions& options);

}  // namespace pipesim
