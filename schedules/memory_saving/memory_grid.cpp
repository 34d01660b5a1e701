#include "schedules/memory_saving/memory_grid.hpp"

#include <cmath>

namespace pipesim::memory_saving {

MemoryGrid make_grid(const Chain& chain, double limit, int slots) {
  MemoryGrid g;
  g.slots = slots;
  g.slot = limit / slots;
  auto units = [&](double size) {
    if (size <= 0) return 0;
    if (g.slot <= 0) return slots + 1;
    const double u = std::ceil(size / g.slot);
    return u > slots ? slots + 1 : static_cast<int>(u);
  };
  const int L = chain.length();
  g.a.assign(L + 1, 0);
  g.abar.assign(L + 1, 0);
  g.delta.assign(L + 1, 0);
  g.of.assign(L + 1, 0);
  g.ob.assign(L + 1, 0);
  for (int i = 0; i <= L; ++i) {
    g.a[i] = units(chain.a(i));
    g.delta[i] = units(chain.delta(i));
    if (i == 0) continue;
    g.abar[i] = units(chain.abar(i));
    g.of[i] = units(chain.layers[i - 1].forward_overhead);
    g.ob[i] = units(chain.layers[i - 1].backward_overhead);
  }
  return g;
}

}  // namespace pipesim::memory_saving
