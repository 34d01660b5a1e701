#include "analysis/unfold_metrics.hpp"

#include <algorithm>

namespace pipesim {

void unfold_metrics(Metrics& m, const Folding& folding) {
  for (std::size_t d = 0; d < m.devices.size() && d < folding.device_image.size(); ++d) {
    const int image = folding.device_image[d];
    if (image == static_cast<int>(d)) continue;
    std::string name = std::move(m.devices[d].name);
    m.devices[d] = m.devices[image];
    m.devices[d].name = std::move(name);
  }
  for (std::size_t l = 0; l < m.links.size() && l < folding.link_canonical.size(); ++l) {
    const int image = folding.link_canonical[l];
    if (image == static_cast<int>(l)) continue;
    std::string name = std::move(m.links[l].name);
    m.links[l] = m.links[image];
    m.links[l].name = std::move(name);
  }
  std::vector<MemoryViolation> all;
  for (const MemoryViolation& v : m.violations)
    for (std::size_t d = 0; d < folding.device_image.size(); ++d)
      if (folding.device_image[d] == v.device) {
        all.push_back(v);
        all.back().device = static_cast<int>(d);
      }
  std::stable_sort(all.begin(), all.end(),
                   [](const MemoryViolation& a, const MemoryViolation& b) { return a.device < b.device; });
  m.violations = std::move(all);
}

}  // namespace pipesim
