// Reading a solver's solution file for a model pipesim wrote: CBC
// (`solu file`: "Optimal - objective value 8" then "index name value
// [reduced cost]" lines, zeros left out), Gurobi (.sol: "# Objective value
// = 8" then "name value"), CPLEX (XML: <variable name=".." value=".."/>),
// HiGHS ("# Primal solution values" ... "name value").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedules/ilp/linear_model.hpp"

namespace pipesim::ilp {

// Values of all the model's variables (absent ones are 0); nullopt when the
// file says there is no feasible solution. Throws std::invalid_argument
// (file:line: what) when it cannot be opened, names a variable the model
// lacks, or holds no value at all.
std::optional<std::vector<double>> read_solution_values(const std::string& path, const LinearModel& model);

}  // namespace pipesim::ilp
