#include "reports/memory_csv.hpp"

#include <string>

#include "reports/csv_field.hpp"
#include "sim/format.hpp"

namespace pipesim {

void write_memory_csv(std::ostream& os, const std::vector<MemorySample>& trace, const Platform& platform) {
  std::vector<std::string> names;
  for (const Device& d : platform.devices) names.push_back(csv_field(d.name));
  os << "time,device,category,bytes\n";
  for (const MemorySample& s : trace) {
    const std::string& device =
        s.device >= 0 && s.device < platform.size() ? names[s.device] : std::to_string(s.device);
    os << fmt::number(s.time) << ',' << device << ',' << to_string(s.category) << ',' << fmt::number(s.bytes) << '\n';
  }
}

}  // namespace pipesim
