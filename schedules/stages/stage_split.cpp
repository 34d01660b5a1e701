#include "schedules/stages/stage_split.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "schedules/stages/partition.hpp"
#include "sim/input_error.hpp"
#include "workloads/costs.hpp"

namespace pipesim {
namespace {

bool model_layer(const Layer& layer, const std::string& kind) {
  return layer.ops && layer.ops->forward.key.rfind(kind + ".", 0) == 0;
}

// The busiest device's load, then the sum of squared loads: what the
// balanced rule lowers, one move at a time.
struct Spread {
  double max = 0, squares = 0;
  explicit Spread(const std::vector<double>& loads) {
    for (const double x : loads) max = std::max(max, x), squares += x * x;
  }
  // Lower by more than round-off, so that the moves end.
  bool below(const Spread& o) const {
    constexpr double eps = 1e-9;
    if (max < o.max * (1 - eps)) return true;
    return max <= o.max * (1 + eps) && squares < o.squares * (1 - eps);
  }
};

// Moves one layer at a time across a stage boundary while that lowers the
// Spread of the devices' LOAD (updated with LAST).
template <class Seconds>
void descend(std::vector<int>& last, std::vector<double>& load, const std::vector<int>& slot, const Seconds& seconds) {
  const int S = static_cast<int>(last.size()), L = last.back() + 1;
  // One layer across boundary b (after stage b): to stage b+1 (toward = 1) or back to stage b.
  const auto move = [&](int b, int toward, double sign) {
    const int l = toward ? last[b] : last[b] + 1;
    load[slot[b]] += sign * (toward ? -1 : 1) * seconds(b, l, l);
    load[slot[b + 1]] += sign * (toward ? 1 : -1) * seconds(b + 1, l, l);
  };
  for (int step = 0; step < S * L; ++step) {
    Spread best(load);
    int best_b = -1, best_toward = 0;
    for (int b = 0; b + 1 < S; ++b) {
      const int first = b == 0 ? 0 : last[b - 1] + 1;
      for (const int toward : {1, 0}) {
        if (toward ? last[b] <= first : last[b] + 1 >= last[b + 1]) continue;  // a stage keeps a layer
        move(b, toward, 1);
        if (const Spread now(load); now.below(best)) best = now, best_b = b, best_toward = toward;
        move(b, toward, -1);
      }
    }
    if (best_b < 0) return;
    move(best_b, best_toward, 1);
    last[best_b] += best_toward ? -1 : 1;
  }
}

// Whether every layer but the first and the last costs the same FLOPS (a
// model's blocks between its embedding and its head).
bool identical_interior(const std::vector<double>& flops) {
  const int L = static_cast<int>(flops.size());
  if (L < 3) return false;
  for (int l = 2; l + 1 < L; ++l)
    if (std::abs(flops[l] - flops[1]) > 1e-12 * std::abs(flops[1])) return false;
  return true;
}

// The first layer stays on stage 0 and the last on stage S-1, so a chain of
// identical blocks between them is split by block counts alone: each stage
// gets the blocks it must have (one, but none beside an end), then each
// other block goes to the device whose load grows least with it, which
// minimises the busiest device's load (each block adds the same to a given
// device: the greedy exchange argument). A device's blocks go to its stages
// the same way. Returns each stage's last layer.
std::vector<int> fill_blocks(const std::vector<double>& flops, const std::vector<double>& speed,
                             const std::vector<int>& slot, int slots) {
  const int S = static_cast<int>(slot.size()), L = static_cast<int>(flops.size());
  const double block = flops[1];
  std::vector<int> blocks(S);
  std::vector<double> stage_load(S, 0), load(slots, 0);
  int left = L - 2;
  for (int s = 0; s < S; ++s) {
    blocks[s] = s == 0 || s + 1 == S ? 0 : 1;
    left -= blocks[s];
    stage_load[s] = (blocks[s] * block + (s == 0 ? flops[0] : 0) + (s + 1 == S ? flops[L - 1] : 0)) / speed[s];
    load[slot[s]] += stage_load[s];
  }
  std::vector<int> stage_of_slot(slots, -1);  // a stage of the device, for its block's seconds
  for (int s = 0; s < S; ++s)
    if (stage_of_slot[slot[s]] < 0) stage_of_slot[slot[s]] = s;
  std::vector<int> device_blocks(slots, 0);
  for (; left > 0; --left) {
    int best = 0;
    for (int d = 1; d < slots; ++d)
      if (load[d] + block / speed[stage_of_slot[d]] < load[best] + block / speed[stage_of_slot[best]]) best = d;
    load[best] += block / speed[stage_of_slot[best]];
    ++device_blocks[best];
  }
  for (int d = 0; d < slots; ++d)
    for (; device_blocks[d] > 0; --device_blocks[d]) {
      int best = -1;
      for (int s = 0; s < S; ++s)
        if (slot[s] == d && (best < 0 || stage_load[s] < stage_load[best])) best = s;
      ++blocks[best];
      stage_load[best] += block / speed[best];
    }
  std::vector<int> last(S);
  for (int s = 0, end = 0; s < S; ++s) {
    end += blocks[s] + (s == 0 ? 1 : 0) + (s + 1 == S ? 1 : 0);
    last[s] = end - 1;
  }
  return last;
}

}  // namespace

StageLayers even_stage_layers(const Workload& w, int S) {
  const int L = static_cast<int>(w.layers.size());
  StageLayers layers;
  const bool ends = L > 2 && model_layer(w.layers.front(), "embedding") && model_layer(w.layers.back(), "head");
  if (ends && (L - 2) % S == 0) {
    const int per = (L - 2) / S;
    for (int s = 0; s < S; ++s) layers.push_back({s == 0 ? 0 : 1 + s * per, s + 1 == S ? L - 1 : s * per + per});
    return layers;
  }
  for (int s = 0; s < S; ++s)
    layers.push_back({static_cast<int>(1LL * s * L / S), static_cast<int>(1LL * (s + 1) * L / S) - 1});
  return layers;
}

StageLayers counted_stage_layers(const Workload& w, int S) {
  const std::vector<int>& counts = w.placement.layer_counts;
  if (static_cast<int>(counts.size()) != S)
    throw InputError(w.file, "placement.layers",
                     "lists " + std::to_string(counts.size()) + " stages, but the pipeline has " + std::to_string(S));
  StageLayers layers;
  for (int s = 0, first = 0; s < S; first += counts[s], ++s) layers.push_back({first, first + counts[s] - 1});
  return layers;
}

StageLayers balanced_stage_layers(const Workload& w, const Platform& p, const std::vector<int>& device) {
  const int S = static_cast<int>(device.size()), L = static_cast<int>(w.layers.size());
  const double ref = reference_speed(w, p);
  std::vector<double> flops(L);  // forward + backward
  for (int l = 0; l < L; ++l) flops[l] = cost_flops(w.layers[l].forward, ref) + cost_flops(w.layers[l].backward, ref);
  std::vector<double> speed(S);
  for (int s = 0; s < S; ++s) {
    speed[s] = device[s] >= 0 ? p.devices[device[s]].speed : ref;
    if (!(speed[s] > 0))
      throw InputError(p.file, device[s] >= 0 ? "host " + p.devices[device[s]].name : "reference_speed",
                       "speed must be positive");
  }
  const auto seconds = [&](int s, int first, int last) {
    double sum = 0;
    for (int l = first; l <= last; ++l) sum += flops[l];
    return sum / speed[s];
  };

  PartitionProblem pb;
  pb.layer_seconds.assign(S, std::vector<double>(L));
  pb.boundary_seconds.assign(S - 1, std::vector<double>(L, 0));
  for (int s = 0; s < S; ++s)
    for (int l = 0; l < L; ++l) {
      pb.layer_seconds[s][l] = seconds(s, l, l);
      // Activation forward and its gradient backward, as PipeDream counts it;
      // stages on one device exchange nothing.
      if (s + 1 < S && device[s] >= 0 && device[s + 1] >= 0 && device[s] != device[s + 1])
        pb.boundary_seconds[s][l] = 2 * p.transfer_time(device[s], device[s + 1], w.layers[l].activation);
    }
  std::vector<int> last = partition_chain(pb).last_layer;

  // Each device's load; a stage no rank runs is a device of its own.
  std::map<int, int> slot_of_device;
  std::vector<int> slot(S);
  for (int s = 0; s < S; ++s)
    slot[s] =
        device[s] >= 0 ? slot_of_device.emplace(device[s], static_cast<int>(slot_of_device.size())).first->second : -1;
  int slots = static_cast<int>(slot_of_device.size());
  for (int s = 0; s < S; ++s)
    if (slot[s] < 0) slot[s] = slots++;
  const auto loads_of = [&](const std::vector<int>& ends) {
    std::vector<double> load(slots, 0);
    for (int s = 0, first = 0; s < S; first = ends[s] + 1, ++s) load[slot[s]] += seconds(s, first, ends[s]);
    return load;
  };
  if (slots < S && identical_interior(flops)) {  // a device runs several stages
    last = fill_blocks(flops, speed, slot, slots);
  } else if (slots < S) {
    std::vector<double> load = loads_of(last);
    descend(last, load, slot, seconds);
    // The even split, moved the same way, where it ends lower.
    std::vector<int> even_last;
    for (const auto& [first, end] : even_stage_layers(w, S)) even_last.push_back(end);
    std::vector<double> even_load = loads_of(even_last);
    descend(even_last, even_load, slot, seconds);
    if (Spread(even_load).below(Spread(load))) last = even_last;
  }
  StageLayers layers;
  for (int s = 0, first = 0; s < S; first = last[s] + 1, ++s) layers.push_back({first, last[s]});
  return layers;
}

StageLayers automatic_stage_layers(const Workload& w, const Platform& p, const std::vector<int>& device,
                                   PartitionRule auto_rule) {
  const int S = static_cast<int>(device.size());
  if (!w.placement.layer_counts.empty()) return counted_stage_layers(w, S);
  const PartitionRule rule = w.placement.partition == PartitionRule::Auto ? auto_rule : w.placement.partition;
  return rule == PartitionRule::Balanced ? balanced_stage_layers(w, p, device) : even_stage_layers(w, S);
}

}  // namespace pipesim
