#include "sim/platform.hpp"

namespace pipesim {

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

}  // namespace pipesim
