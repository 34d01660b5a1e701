#include "tests/schedules/memory_saving/idle_time.hpp"

#include <algorithm>
#include <limits>

namespace pipesim::memory_saving {

namespace {

// Walks the operations in the order in which d_o grows.
template <class It>
double idle(It first, It last, double m_min, double beta) {
  double distance = 0, worst = 0;  // worst: max_o (M_o - β d_o) - m_min, floored at 0
  bool over = false;
  for (It o = first; o != last; ++o) {
    over = over || o->memory > m_min;
    worst = std::max(worst, o->memory - beta * distance - m_min);
    distance += o->duration;
  }
  if (beta <= 0) return over ? std::numeric_limits<double>::infinity() : 0.0;
  return worst / beta;
}

}  // namespace

double offload_idle_time(const std::vector<TimedNeed>& ops, double m_min, double beta) {
  return idle(ops.begin(), ops.end(), m_min, beta);
}

double prefetch_idle_time(const std::vector<TimedNeed>& ops, double m_min, double beta) {
  return idle(ops.rbegin(), ops.rend(), m_min, beta);
}

}  // namespace pipesim::memory_saving
