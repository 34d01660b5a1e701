#include "reports/violations_report.hpp"

#include "reports/json_writer.hpp"

namespace pipesim {

void write_violations(std::ostream& out, const std::vector<Violation>& violations) {
  for (const Violation& v : violations) out << v.kind << ": " << v.message << "\n";
  if (violations.empty())
    out << "VALID\n";
  else
    out << "INVALID: " << violations.size() << (violations.size() == 1 ? " violation\n" : " violations\n");
}

void write_violations_json(std::ostream& out, const std::vector<Violation>& violations, const Platform& platform) {
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
  json.end_object();
  out << "\n";
}

}  // namespace pipesim
