#include "schedules/ilp/ilp_instance.hpp"

#include "schedules/ilp/ilp_memory_bound.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

#include "patterns/link_resources.hpp"
#include "schedules/periodic/pattern_generators.hpp"
#include "schedules/stages/stage_plan.hpp"

namespace pipesim::ilp {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("ilp: " + what); }

// Free mode: the smallest, over allocations of the layers onto P devices, of
// the busiest device's work (k copies): a lower bound on T. Branch and bound,
// biggest layers first; 0 if it takes more than `budget` nodes.
double allocation_load_bound(std::vector<double> work, int P, long budget) {
  std::sort(work.rbegin(), work.rend());
  std::vector<double> load;
  double best = 0;
  for (double x : work) best += x;  // one device
  long nodes = 0;
  bool complete = true;
  std::function<void(std::size_t, double)> place = [&](std::size_t i, double busiest) {
    if (busiest >= best) return;
    if (++nodes > budget) {
      complete = false;
      return;
    }
    if (i == work.size()) {
      best = busiest;
      return;
    }
    for (std::size_t d = 0; d < load.size() && complete; ++d) {
      load[d] += work[i];
      place(i + 1, std::max(busiest, load[d]));
      load[d] -= work[i];
    }
    if (static_cast<int>(load.size()) < P && complete) {
      load.push_back(work[i]);
      place(i + 1, std::max(busiest, work[i]));
      load.pop_back();
    }
  };
  place(0, 0);
  return complete ? best : 0;
}

}  // namespace

bool Instance::cross(int e) const {
  if (e < 1 || e >= tasks() || e == L) return false;
  return !fixed || device(e) != device(e + 1);
}

Instance::LinkClass Instance::link_class(int s1, int t1, int s2, int t2) {
  const bool S = s1 == s2, D = t1 == t2, X = s1 == t2, Y = t1 == s2;
  if (S && D) return SameRoute;
  if (X && Y) return Reverse;
  if (S) return SameSource;
  if (D) return SameTarget;
  if (Y) return TargetIsSource;
  if (X) return SourceIsTarget;
  return Disjoint;
}

bool Instance::share_link(int e1, int e2, const std::vector<int>& d) const {
  if (fixed) {
    for (int r : edge_links[e1])
      if (std::find(edge_links[e2].begin(), edge_links[e2].end(), r) != edge_links[e2].end()) return true;
    return false;
  }
  return conflicts[link_class(d[layer(e1)], d[layer(e1 + 1)], d[layer(e2)], d[layer(e2 + 1)])];
}

std::string Instance::name(int o) const {
  const int j = task(o);
  std::string s = (forward(j) ? "F" : "B") + std::to_string(layer(j) + 1);
  return k > 1 ? s + "c" + std::to_string(copy(o)) : s;
}

Instance make_instance(const Workload& w, const Platform& platform, const IlpOptions& options, double upper) {
  Instance in;
  in.L = static_cast<int>(w.layers.size());
  in.k = options.copies;
  in.P = platform.size();
  in.weights = options.weights;
  in.links = options.links;
  if (in.L < 1) fail("the workload has no layers");
  if (in.k < 1) fail("copies must be at least 1");
  if (in.P < 1) fail("the platform has no devices");
  for (const Device& d : platform.devices)
    if (!(d.speed > 0)) fail("device " + d.name + " has no speed");
  if (options.allocation) {
    in.fixed = true;
    in.allocation = *options.allocation;
    if (static_cast<int>(in.allocation.size()) != in.L)
      fail("the allocation has " + std::to_string(in.allocation.size()) + " devices for " + std::to_string(in.L) +
           " layers");
    for (int d : in.allocation)
      if (d < 0 || d >= in.P) fail("the allocation names device " + std::to_string(d) + ", outside the platform");
  }
  const double ref = reference_speed(w, platform);
  double slowest = platform.devices[0].speed;
  for (const Device& d : platform.devices) slowest = std::min(slowest, d.speed);

  in.out.assign(in.tasks() + 1, 0);
  for (int j = 1; j <= in.tasks(); ++j) {
    const int l = in.layer(j);
    in.out[j] = in.forward(j) ? w.layers[l].activation : (l == 0 ? w.input : w.layers[l - 1].activation);
  }
  for (int l = 0; l < in.L; ++l) {
    in.stash.push_back(l == 0 ? w.input : w.layers[l - 1].activation);
    in.weight.push_back(w.layers[l].weights);
  }
  in.duration.resize(in.ops());
  for (int o = 0; o < in.ops(); ++o) {
    const int j = in.task(o);
    const Layer& layer = w.layers[in.layer(j)];
    const double flops = cost_flops(in.forward(j) ? layer.forward : layer.backward, ref);
    in.duration[o] = flops / (in.fixed ? platform.devices[in.device(j)].speed : slowest);
  }
  // Transfer times: fixed mode between the edge's devices; free mode the
  // slowest pair (the paper's uniform a/beta on a uniform network).
  in.transfer.assign(in.tasks(), 0);
  for (int e = 1; e < in.tasks(); ++e) {
    if (!in.cross(e) || !(in.out[e] > 0)) continue;
    auto time = [&](int from, int to) {
      const Path& path = platform.path(from, to);
      if (!path.exists || !(path.bandwidth > 0))
        fail("no route with bandwidth from " + platform.devices[from].name + " to " + platform.devices[to].name +
             (in.fixed ? "" : " (free-allocation mode needs every pair of devices connected)"));
      return platform.transfer_time(from, to, in.out[e]);
    };
    if (in.fixed) {
      in.transfer[e] = time(in.device(e), in.device(e + 1));
    } else {
      for (int p = 0; p < in.P; ++p)
        for (int q = 0; q < in.P; ++q)
          if (p != q) in.transfer[e] = std::max(in.transfer[e], time(p, q));
    }
  }
  LinkResources links(platform, in.links);
  if (in.fixed) {
    in.edge_links.assign(in.tasks(), {});
    for (int e = 1; e < in.tasks(); ++e)
      if (in.cross(e) && in.out[e] > 0) in.edge_links[e] = links.route(in.device(e), in.device(e + 1));
  } else {
    // Every relation of two transfers' devices, over every choice of devices.
    const int P = in.P;
    for (int s1 = 0; s1 < P; ++s1)
      for (int t1 = 0; t1 < P; ++t1)
        for (int s2 = 0; s2 < P && s1 != t1; ++s2)
          for (int t2 = 0; t2 < P; ++t2) {
            if (s2 == t2) continue;
            bool& c = in.conflicts[Instance::link_class(s1, t1, s2, t2)];
            if (!c && links.share(s1, t1, s2, t2)) c = true;
          }
  }
  // Memory 0 (unknown) is no limit, as in validate_pattern.
  const double unlimited = std::numeric_limits<double>::infinity();
  if (in.fixed) {
    for (const Device& d : platform.devices) in.memory.push_back(d.memory > 0 ? d.memory : unlimited);
  } else {
    double smallest = unlimited;
    for (const Device& d : platform.devices) smallest = std::min(smallest, d.memory > 0 ? d.memory : unlimited);
    in.memory.push_back(smallest);
  }

  // Period bounds: any valid pattern can be retimed to its exact period, at
  // most the sum of all durations (a cycle visits every node at most once).
  double serial = 0, dmax = 0;
  for (double d : in.duration) serial += d, dmax = std::max(dmax, d);
  for (int e = 1; e < in.tasks(); ++e) serial += in.k * in.transfer[e], dmax = std::max(dmax, in.transfer[e]);
  in.T_upper = upper > 0 ? std::min(upper, serial) : serial;
  if (in.fixed) {
    in.T_lower = pattern_period_bound(in.allocation, w, platform, in.k, in.links);
  } else {
    double total = 0, biggest = 0;
    std::vector<double> work;
    for (int l = 0; l < in.L; ++l) {
      const double both = in.duration[in.op(in.forward_task(l), 0)] + in.duration[in.op(in.backward_task(l), 0)];
      total += in.k * both;
      biggest = std::max(biggest, in.k * both);
      work.push_back(in.k * both);
    }
    in.T_lower = std::max({total / in.P, biggest, allocation_load_bound(work, in.P, 200000)});
  }
  in.T_lower = memory_period_bound(in, std::min(in.T_lower, in.T_upper), in.T_upper);
  in.K = in.T_upper + 2 * dmax + 1e-6 * in.T_upper + 1e-12;
  return in;
}

}  // namespace pipesim::ilp
