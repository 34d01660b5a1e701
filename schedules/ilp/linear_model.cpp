#include "schedules/ilp/linear_model.hpp"

#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace pipesim::ilp {

LinExpr& LinExpr::operator+=(const LinExpr& o) {
  terms.insert(terms.end(), o.terms.begin(), o.terms.end());
  constant += o.constant;
  return *this;
}
LinExpr& LinExpr::operator-=(const LinExpr& o) {
  for (const auto& [v, c] : o.terms) terms.push_back({v, -c});
  constant -= o.constant;
  return *this;
}
LinExpr& LinExpr::operator*=(double f) {
  for (auto& t : terms) t.second *= f;
  constant *= f;
  return *this;
}
double LinExpr::value(const std::vector<double>& x) const {
  double s = constant;
  for (const auto& [v, c] : terms) s += c * x.at(v);
  return s;
}
LinExpr operator+(LinExpr a, const LinExpr& b) { return a += b; }
LinExpr operator-(LinExpr a, const LinExpr& b) { return a -= b; }
LinExpr operator*(double f, LinExpr a) { return a *= f; }
LinExpr operator*(LinExpr a, double f) { return a *= f; }
LinExpr operator-(LinExpr a) { return a *= -1; }

void LinearModel::check_deadline() {
  if (deadline_ && ++calls_ % 1024 == 0 && std::chrono::steady_clock::now() > *deadline_) throw BuildTimeLimit();
}

int LinearModel::add_var(std::string name, double lower, double upper, VarType type) {
  check_deadline();
  if (type == VarType::Binary) lower = std::max(lower, 0.0), upper = std::min(upper, 1.0);
  vars_.push_back({std::move(name), lower, upper, type});
  return static_cast<int>(vars_.size()) - 1;
}

void LinearModel::add(const std::string& name, const LinExpr& lhs, Sense sense, const LinExpr& rhs) {
  check_deadline();
  LinExpr e = lhs - rhs;
  std::sort(e.terms.begin(), e.terms.end());
  Row row{name, {}, sense, -e.constant};
  for (const auto& [v, c] : e.terms) {
    if (!row.terms.empty() && row.terms.back().first == v)
      row.terms.back().second += c;
    else
      row.terms.push_back({v, c});
  }
  row.terms.erase(
      std::remove_if(row.terms.begin(), row.terms.end(), [](const auto& t) { return std::abs(t.second) < 1e-13; }),
      row.terms.end());
  if (row.terms.empty()) {  // 0 (sense) rhs
    const double tol = 1e-9 * std::max(1.0, std::abs(row.rhs));
    const bool ok = sense == Sense::LessEqual      ? 0 <= row.rhs + tol
                    : sense == Sense::GreaterEqual ? 0 >= row.rhs - tol
                                                   : std::abs(row.rhs) <= tol;
    if (!ok && violation_.empty()) violation_ = name;
    return;
  }
  rows_.push_back(std::move(row));
}

int LinearModel::find(const std::string& name) const {
  for (std::size_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].name == name) return static_cast<int>(i);
  return -1;
}

int LinearModel::integer_count() const {
  return static_cast<int>(
      std::count_if(vars_.begin(), vars_.end(), [](const Variable& v) { return v.type != VarType::Continuous; }));
}

double LinearModel::max_violation(const std::vector<double>& x) const {
  double worst = 0;
  for (std::size_t i = 0; i < vars_.size(); ++i)
    worst = std::max({worst, vars_[i].lower - x[i], x[i] - vars_[i].upper});
  for (const Row& r : rows_) {
    double s = 0;
    for (const auto& [v, c] : r.terms) s += c * x[v];
    const double d = s - r.rhs;
    worst = std::max(worst, r.sense == Sense::LessEqual ? d : r.sense == Sense::GreaterEqual ? -d : std::abs(d));
  }
  return worst;
}

double LinearModel::row_scale(const Row& row) {
  double largest = 0;
  for (const auto& t : row.terms) largest = std::max(largest, std::abs(t.second));
  if (!(largest > 0) || !std::isfinite(largest)) return 1;
  int exponent = 0;
  std::frexp(largest, &exponent);  // largest = f 2^exponent, f in [0.5, 1)
  return std::ldexp(1.0, 1 - exponent);
}

std::pair<double, double> LinearModel::coefficient_range(bool scaled) const {
  double low = std::numeric_limits<double>::infinity(), high = 0;
  for (const Row& r : rows_) {
    const double f = scaled ? row_scale(r) : 1;
    for (const auto& t : r.terms)
      low = std::min(low, std::abs(t.second) * f), high = std::max(high, std::abs(t.second) * f);
  }
  return {high > 0 ? low : 0, high};
}

std::unique_ptr<OsiClpSolverInterface> LinearModel::to_osi() const {
  const int n = static_cast<int>(vars_.size());
  // Row-ordered, built in one go (appendRow row by row is quadratic).
  std::vector<double> elements, row_lower, row_upper;
  std::vector<int> indices;
  std::vector<CoinBigIndex> starts;
  std::vector<int> lengths;
  const double inf = COIN_DBL_MAX;
  for (const Row& r : rows_) {
    const double f = row_scale(r);  // a power of two: exact
    starts.push_back(static_cast<CoinBigIndex>(elements.size()));
    lengths.push_back(static_cast<int>(r.terms.size()));
    for (const auto& [v, c] : r.terms) indices.push_back(v), elements.push_back(c * f);
    row_lower.push_back(r.sense == Sense::LessEqual ? -inf : r.rhs * f);
    row_upper.push_back(r.sense == Sense::GreaterEqual ? inf : r.rhs * f);
  }
  starts.push_back(static_cast<CoinBigIndex>(elements.size()));
  const CoinPackedMatrix matrix(false, n, static_cast<int>(rows_.size()), static_cast<CoinBigIndex>(elements.size()),
                                elements.data(), indices.data(), starts.data(), lengths.data());
  std::vector<double> lower(n), upper(n), cost(n, 0);
  for (int i = 0; i < n; ++i) {
    lower[i] = std::isfinite(vars_[i].lower) ? vars_[i].lower : -inf;
    upper[i] = std::isfinite(vars_[i].upper) ? vars_[i].upper : inf;
  }
  for (const auto& [v, c] : objective_.terms) cost[v] += c;
  auto solver = std::make_unique<OsiClpSolverInterface>();
  solver->loadProblem(matrix, lower.data(), upper.data(), cost.data(), row_lower.data(), row_upper.data());
  solver->setObjSense(1.0);
  for (int i = 0; i < n; ++i)
    if (vars_[i].type != VarType::Continuous) solver->setInteger(i);
  // Names in one go (Osi's setRowName per row is quadratic: 11 s for 40k rows).
  std::vector<std::string> row_names, col_names;
  for (const Row& r : rows_) row_names.push_back(r.name);
  for (const Variable& v : vars_) col_names.push_back(v.name);
  solver->getModelPtr()->copyNames(row_names, col_names);
  solver->setObjName("period");
  return solver;
}

void LinearModel::write(const std::string& path) const {
  auto ends_with = [&](const std::string& s) {
    return path.size() > s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  const bool lp = ends_with(".lp"), mps = ends_with(".mps");
  if (!lp && !mps) throw std::invalid_argument("ILP model file " + path + ": the name must end with .lp or .mps");
  const auto solver = to_osi();
  std::vector<const char*> rows, cols;
  for (const Row& r : rows_) rows.push_back(r.name.c_str());
  rows.push_back("period");  // the objective's name (LP only reads it)
  for (const Variable& v : vars_) cols.push_back(v.name.c_str());
  int status = 0;
  if (lp)
    status = solver->writeLpNative(path.c_str(), rows.data(), cols.data(), 1e-12, 8, 15, 1.0, true);
  else
    status = solver->writeMpsNative(path.c_str(), rows.data(), cols.data(), 1, 2, 1.0);
  if (status != 0) throw std::invalid_argument("ILP model file " + path + ": cannot write it");
}

}  // namespace pipesim::ilp
