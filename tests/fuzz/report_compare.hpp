// Two --json reports of one run by the two engines: equal but for the
// "engine" field and numbers within 1e-9 relative (docs/outputs.md#the-engine).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

namespace pipesim::testing {

// The report without its "engine" field; fields stay in the order written. Text that is
// not JSON reads as a discarded value, which same_report refuses.
inline nlohmann::ordered_json without_engine(const std::string& json) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(json, nullptr, false);
  if (j.is_object()) j.erase("engine");
  return j;
}

// Equal values, fields in the same order, except numbers that differ by at most
// 1e-9 relative; WHERE receives the JSON pointer of the first difference.
inline bool same_report(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b, std::string& where,
                        const std::string& at = "") {
  auto differ = [&](const std::string& what) {
    where = (at.empty() ? "/" : at) + ": " + what;
    return false;
  };
  if (a.is_discarded() || b.is_discarded()) return differ("not JSON");
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    if (std::fabs(x - y) > 1e-9 * std::max(std::fabs(x), std::fabs(y))) return differ(a.dump() + " vs " + b.dump());
    return true;
  }
  if (a.type() != b.type()) return differ(a.dump() + " vs " + b.dump());
  if (a.is_object()) {
    if (a.size() != b.size()) return differ(std::to_string(a.size()) + " fields vs " + std::to_string(b.size()));
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
      if (i.key() != j.key()) return differ("field " + i.key() + " vs " + j.key());
      if (!same_report(i.value(), j.value(), where, at + "/" + i.key())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return differ(std::to_string(a.size()) + " items vs " + std::to_string(b.size()));
    for (std::size_t k = 0; k < a.size(); ++k)
      if (!same_report(a[k], b[k], where, at + "/" + std::to_string(k))) return false;
    return true;
  }
  return a == b ? true : differ(a.dump() + " vs " + b.dump());
}

}  // namespace pipesim::testing
