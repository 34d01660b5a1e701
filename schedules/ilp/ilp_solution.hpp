// Between the ILP's values and patterns, both ways.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "patterns/pattern.hpp"
#include "schedules/ilp/ilp_formulation.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"

namespace pipesim::ilp {

// Solution -> pattern (ilp_solution.cpp). The binaries are rounded and
// give the allocation (z), each device's order (w), each link's order (~w)
// and the shift between consecutive tasks (v, v', ~v, ~v'); the offsets
// are then recomputed rather than read (solvers leave round-off of K x
// tolerance in them): the earliest schedule of that order and those
// shifts at its exact period (the maximum cycle ratio of its event graph,
// at most the solver's T), with minimal shifts. The result passes
// find_overlap and validate_pattern; memory is checked by the caller.
// Throws std::invalid_argument if the values are no valid pattern.
Pattern solution_to_pattern(const Formulation& formulation, const std::vector<double>& x, const Workload& workload,
                            const Platform& platform);

// Pattern -> values (ilp_warm_start.cpp): the variables that describe the
// pattern (copies relabelled so that F_1's copies run in order, times taken
// in each device's window starting from F_1 of copy 0), the continuous ones
// from an LP with the integers fixed. nullopt, with `why`, when the pattern
// is outside the formulation (other k, another allocation in fixed mode,
// the copies of a layer on different devices, more than P devices) or the
// model rejects it (it does not fit in memory), or the LP ran past
// `seconds` (wall clock; 0: no limit).
std::optional<std::vector<double>> pattern_values(const Formulation& formulation, const Pattern& pattern,
                                                  const Workload& workload, const Platform& platform, std::string& why,
                                                  double seconds = 0);

// The LP with every integer variable fixed at its value in x: T and the
// times minimal, each auxiliary (sigma, o, b, y, versions) at its smallest
// value. nullopt if infeasible or not solved within `seconds` (0: no limit).
std::optional<std::vector<double>> complete_continuous(const Formulation& formulation, const std::vector<double>& x,
                                                       double seconds = 0);

}  // namespace pipesim::ilp
