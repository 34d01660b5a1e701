#include "schedules/ilp/ilp_solution_file.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace pipesim::ilp {
namespace {

bool number(const std::string& s, double& v) {
  if (s.empty()) return false;
  std::istringstream in(s);
  in >> v;
  return in && in.peek() == std::char_traits<char>::eof();
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::optional<std::vector<double>> read_solution_values(const std::string& path, const LinearModel& model) {
  std::ifstream file(path);
  if (!file) throw std::invalid_argument(path + ": cannot open the solution file");
  std::unordered_map<std::string, int> index;
  for (std::size_t i = 0; i < model.variables().size(); ++i) index[model.variables()[i].name] = static_cast<int>(i);
  std::vector<double> x(model.variables().size(), 0);
  int values = 0;
  bool says_infeasible = false;
  auto fail = [&](int line, const std::string& what) {
    throw std::invalid_argument(path + ":" + std::to_string(line) + ": " + what);
  };
  auto set = [&](int line, const std::string& name, double value) {
    const auto it = index.find(name);
    if (it == index.end()) fail(line, "variable '" + name + "' is not in the model (another workload or options?)");
    x[it->second] = value;
    ++values;
  };
  const std::regex xml_variable(R"re(<variable\b[^>]*\bname="([^"]*)"[^>]*\bvalue="([^"]*)")re");
  int line_number = 0;
  for (std::string line; std::getline(file, line);) {
    ++line_number;
    const std::string l = lower(line);
    if (l.find("dual solution") != std::string::npos) break;  // HiGHS: duals follow, under the same names
    if (values == 0 && (l.find("infeasible") != std::string::npos || l.find("no solution") != std::string::npos))
      says_infeasible = true;                            // in the header: the status line
    if (line.find("<variable ") != std::string::npos) {  // CPLEX XML (not <variables>)
      std::smatch m;
      double v = 0;
      if (!std::regex_search(line, m, xml_variable) || !number(m[2], v)) fail(line_number, "unreadable <variable>");
      set(line_number, m[1], v);
      continue;
    }
    std::istringstream in(line);
    std::vector<std::string> tok;
    for (std::string s; in >> s;) tok.push_back(s);
    if (!tok.empty() && tok[0] == "**") tok.erase(tok.begin());  // CBC marks values it doubts
    if (tok.size() < 2 || tok[0][0] == '#') continue;
    double a = 0, b = 0;
    if (tok.size() >= 3 && number(tok[0], a) && index.count(tok[1]) && number(tok[2], b)) {  // CBC
      set(line_number, tok[1], b);
    } else if (index.count(tok[0]) && number(tok[1], b)) {  // Gurobi, HiGHS, generic
      set(line_number, tok[0], b);
    } else if (tok.size() == 2 && number(tok[1], b) && !number(tok[0], a) && values > 0 &&
               std::isalpha(static_cast<unsigned char>(tok[0][0]))) {
      set(line_number, tok[0], b);  // a name the model lacks, among values: an error
    }
  }
  if (says_infeasible) return std::nullopt;
  if (values == 0) {
    throw std::invalid_argument(path + ": no variable values found (not a solution file of this model?)");
  }
  return x;
}

}  // namespace pipesim::ilp
