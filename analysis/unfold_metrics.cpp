#include "analysis/unfold_metrics.hpp"

#include <algorithm>

namespace pipesim {

namespace {

// Each item whose image is another takes that one's figures, keeping its name.
template <class Item>
void copy_images(std::vector<Item>& items, const std::vector<int>& image) {
  for (std::size_t i = 0; i < items.size() && i < image.size(); ++i) {
    if (image[i] == static_cast<int>(i)) continue;
    std::string name = std::move(items[i].name);
    items[i] = items[image[i]];
    items[i].name = std::move(name);
  }
}

}  // namespace

void unfold_metrics(Metrics& m, const Folding& folding) {
  copy_images(m.devices, folding.device_image);
  copy_images(m.links, folding.link_canonical);
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
