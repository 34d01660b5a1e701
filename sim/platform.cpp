#include "sim/platform.hpp"

#include <stdexcept>

namespace pipesim {

const Path& Platform::path(int from, int to) const {
  static const Path kSameDevice{true, 0, 0, 0};
  if (!paths.empty()) return paths[from * devices.size() + to];
  if (from == to) return kSameDevice;
  if (!path_source) throw std::logic_error("Platform::path: the platform has neither a path table nor a source");
  return path_source->path(from, to);
}

double Platform::transfer_time(int from, int to, double bytes) const {
  if (from == to || bytes <= 0) return 0;
  const Path& p = path(from, to);
  return p.latency + bytes / p.bandwidth;
}

int Platform::find(const std::string& name) const {
  for (int i = 0; i < size(); ++i)
    if (devices[i].name == name) return i;
  return -1;
}

bool is_host_memory(const Device& device) { return device.kind == kHostMemoryKind; }

std::vector<int> host_memory_devices(const Platform& platform) {
  std::vector<int> found;
  for (int i = 0; i < platform.size(); ++i)
    if (is_host_memory(platform.devices[i])) found.push_back(i);
  return found;
}

int host_memory_of(const Platform& platform, int device) {
  int best = -1;
  for (int d = 0; d < platform.size(); ++d) {
    if (!is_host_memory(platform.devices[d])) continue;
    const Path& to = platform.path(device, d);
    const Path& back = platform.path(d, device);
    if (!to.exists || !back.exists || !(to.bandwidth > 0)) continue;
    if (best < 0 || std::min(to.bandwidth, back.bandwidth) >
                        std::min(platform.path(device, best).bandwidth, platform.path(best, device).bandwidth))
      best = d;
  }
  return best;
}

std::vector<int> compute_devices(const Platform& platform) {
  std::vector<int> found;
  for (int i = 0; i < platform.size(); ++i)
    if (!is_host_memory(platform.devices[i])) found.push_back(i);
  return found;
}

}  // namespace pipesim
