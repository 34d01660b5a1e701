#include "reports/memory_csv.hpp"

#include <string>

#include "sim/format.hpp"

namespace pipesim {
namespace {

// RFC 4180 quoting, only when the name needs it.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

void write_memory_csv(std::ostream& os, const std::vector<MemorySample>& trace, const Platform& platform) {
  std::vector<std::string> names;
  for (const Device& d : platform.devices) names.push_back(csv_field(d.name));
  os << "time,device,category,bytes\n";
  for (const MemorySample& s : trace) {
    const std::string& device =
        s.device >= 0 && s.device < platform.size() ? names[s.device] : std::to_string(s.device);
    os << fmt::number(s.time) << ',' << device << ',' << to_string(s.category) << ','
       << fmt::number(s.bytes) << '\n';
  }
}

}  // namespace pipesim
