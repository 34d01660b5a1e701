#include "reports/violations_report.hpp"

#include <cstdio>

#include "reports/json_writer.hpp"
#include "sim/units.hpp"

namespace pipesim {

void write_violations(std::ostream& out, const std::vector<Violation>& violations,
                      const std::optional<SimulatedRun>& run) {
  for (const Violation& v : violations) out << v.kind << ": " << v.message << "\n";
  if (run) {
    out << "simulated: makespan " << format_seconds(run->makespan) << "; bubbles";
    for (std::size_t i = 0; i < run->bubbles.size(); ++i) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f %%", 100 * run->bubbles[i].second);
      out << (i ? ", " : " ") << run->bubbles[i].first << " " << pct;
    }
    out << "\n";
  }
  if (violations.empty())
    out << "VALID\n";
  else
    out << "INVALID: " << violations.size() << (violations.size() == 1 ? " violation\n" : " violations\n");
}

void write_violations_json(std::ostream& out, const std::vector<Violation>& violations, const Platform& platform,
                           const std::optional<SimulatedRun>& run) {
  JsonWriter json(out, true);
  json.begin_object();
  json.field("verdict", violations.empty() ? "VALID" : "INVALID");  // the stdout verdict without its count
  json.key("violations");
  json.begin_array();
  for (const Violation& v : violations) {
    json.begin_object();
    json.field("kind", v.kind);
    json.key("device");
    if (v.device >= 0 && v.device < platform.size())
      json.value(platform.devices[v.device].name);
    else
      json.null();
    json.field("time", v.time);
    json.field("message", v.message);
    json.end_object();
  }
  json.end_array();
  if (run) {
    json.key("simulated");
    json.begin_object();
    json.field("makespan", run->makespan);
    json.key("bubbles");
    json.begin_object();
    for (const auto& [device, fraction] : run->bubbles) json.field(device, fraction);
    json.end_object();
    json.end_object();
  }
  json.end_object();
  out << "\n";
}

}  // namespace pipesim
