// A small modelling layer for the ILP: variables with names, linear
// expressions with constants (so that a variable the instance fixes, e.g. z
// in fixed-allocation mode, is just a number), rows, and the conversions to
// COIN-OR (OsiClpSolverInterface), .lp and .mps.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

class OsiClpSolverInterface;

namespace pipesim::ilp {

enum class VarType { Continuous, Binary, Integer };

// sum of coef * x[var] + constant
struct LinExpr {
  std::vector<std::pair<int, double>> terms;
  double constant = 0;

  LinExpr() = default;
  LinExpr(double c) : constant(c) {}  // NOLINT: numbers are expressions
  static LinExpr var(int index, double coef = 1) {
    LinExpr e;
    e.terms.push_back({index, coef});
    return e;
  }
  bool is_constant() const { return terms.empty(); }
  LinExpr& operator+=(const LinExpr& o);
  LinExpr& operator-=(const LinExpr& o);
  LinExpr& operator*=(double f);
  double value(const std::vector<double>& x) const;
};
LinExpr operator+(LinExpr a, const LinExpr& b);
LinExpr operator-(LinExpr a, const LinExpr& b);
LinExpr operator*(double f, LinExpr a);
LinExpr operator*(LinExpr a, double f);
LinExpr operator-(LinExpr a);

enum class Sense { LessEqual, GreaterEqual, Equal };

struct Variable {
  std::string name;
  double lower = 0, upper = 1;
  VarType type = VarType::Continuous;
};

struct Row {
  std::string name;
  std::vector<std::pair<int, double>> terms;  // merged, no zeros
  Sense sense = Sense::LessEqual;
  double rhs = 0;
};

// Thrown while a LinearModel grows past its deadline (set_deadline): a
// large model takes minutes to build, and a time limit bounds that too.
struct BuildTimeLimit : std::runtime_error {
  BuildTimeLimit() : std::runtime_error("the time limit ended while building the model") {}
};

class LinearModel {
 public:
  // From now on, add_var and add throw BuildTimeLimit once `deadline` has
  // passed (checked every 1024 calls: reading the clock costs).
  void set_deadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }
  int add_var(std::string name, double lower, double upper, VarType type);
  // Adds lhs (sense) rhs. A constraint without variables is checked instead
  // (a violated one marks the model infeasible: see constant_violation()).
  void add(const std::string& name, const LinExpr& lhs, Sense sense, const LinExpr& rhs = LinExpr(0));
  void set_objective(const LinExpr& objective) { objective_ = objective; }

  const std::vector<Variable>& variables() const { return vars_; }
  std::vector<Variable>& variables() { return vars_; }
  const std::vector<Row>& rows() const { return rows_; }
  const LinExpr& objective() const { return objective_; }
  int find(const std::string& name) const;  // -1 when absent
  const std::string& constant_violation() const { return violation_; }
  int integer_count() const;

  // Largest violation of a row or a bound by x (0 when feasible).
  double max_violation(const std::vector<double>& x) const;

  // Rows reach the solver scaled: each row (coefficients and right side) is
  // multiplied by the power of two that brings its largest |coefficient|
  // into [1, 2). A row in bytes (memory, up to 1e9) and one in seconds
  // (times, down to 1e-5) then both have coefficients of order 1, and since
  // a power of two is exact in floating point the scaled row has exactly
  // the same solutions: variables keep their units and values, nothing is
  // mapped back. The factor of a row:
  static double row_scale(const Row& row);
  // Smallest and largest |coefficient| over all rows, as built or as scaled.
  std::pair<double, double> coefficient_range(bool scaled) const;

  std::unique_ptr<OsiClpSolverInterface> to_osi() const;
  // Writes by extension: .lp (CPLEX LP) or .mps (free MPS, extra accuracy);
  // rows scaled as for the solver (same solutions).
  // Throws std::invalid_argument for another extension or an I/O error.
  void write(const std::string& path) const;

 private:
  std::vector<Variable> vars_;
  std::vector<Row> rows_;
  LinExpr objective_;
  std::string violation_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  unsigned long calls_ = 0;
  void check_deadline();
};

}  // namespace pipesim::ilp
