#include "schedules/ilp/ilp_memory_bound.hpp"

#include <algorithm>

namespace pipesim::ilp {

double memory_period_bound(const Instance& in, double lower, double upper) {
  const int L = in.L;
  std::vector<double> held(L);  // h_l: F_l's start to B_l's start, at least
  double after = 0;
  for (int l = L - 1; l >= 0; --l) {
    held[l] = in.duration[in.op(in.forward_task(l), 0)] + after;
    after += in.duration[in.op(in.forward_task(l), 0)] + in.duration[in.op(in.backward_task(l), 0)];
  }
  // The averages at period T: layer l's stash, its micro-batches in flight,
  // and the copies of its weights (weight stashing: the current one and one
  // per micro-batch in flight).
  auto stash = [&](int l, double T) { return in.stash[l] * in.k * held[l] / T; };
  auto in_flight = [&](int l, double T) { return std::max(1.0, in.k * held[l] / T); };
  auto weight_copies = [&](double versions) {
    return in.weights == WeightPolicy::Flush ? 2.0 : in.weights == WeightPolicy::TwoBW ? 3.0 : 1 + versions;
  };
  auto fits = [&](double T) {
    if (in.fixed) {
      for (int d = 0; d < in.P; ++d) {
        double bytes = 0, weight = 0, versions = 1;
        for (int l = 0; l < L; ++l) {
          if (in.allocation[l] != d) continue;
          bytes += stash(l, T);
          weight += in.weight[l];
          versions = std::max(versions, in_flight(l, T));
        }
        if (bytes + weight * weight_copies(versions) > in.memory[d]) return false;
      }
      return true;
    }
    double total = 0;
    for (int l = 0; l < L; ++l) {
      const double alone = stash(l, T) + in.weight[l] * weight_copies(in_flight(l, T));
      if (alone > in.memory[0]) return false;
      total += alone;
    }
    return total <= in.P * in.memory[0];
  };
  if (!(upper > lower) || fits(lower) || !fits(upper)) return lower;
  for (int i = 0; i < 100 && upper - lower > 1e-12 * upper; ++i) {
    const double mid = (lower + upper) / 2;
    (fits(mid) ? upper : lower) = mid;
  }
  return lower;  // the averages do not fit below it
}

}  // namespace pipesim::ilp
