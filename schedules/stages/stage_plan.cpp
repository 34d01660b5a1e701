#include "schedules/stages/stage_plan.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "schedules/stages/stage_split.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

std::string device_names(const Platform& platform) {
  std::string names;
  for (const Device& d : platform.devices) names += (names.empty() ? "" : ", ") + d.name;
  return names;
}

// Why a placement that shares a device is refused: the schedule's name.
std::string one_per_device(const Workload& w) {
  const std::string name = w.schedule.empty() ? "this schedule" : "schedule '" + w.schedule + "'";
  return "; " + name + " runs one stage per device (gpipe and 1f1b run several)";
}

// Consecutive stages exchange activations one way and gradients the other.
void check_route(const Workload& w, const Platform& p, int from, int to, const std::string& where) {
  if (from == to) return;
  const std::string pair = p.devices[from].name + " and " + p.devices[to].name;
  for (const Path* path : {&p.path(from, to), &p.path(to, from)}) {
    if (!path->exists) throw InputError(w.file, where, "no route between " + pair);
    if (!(path->bandwidth > 0)) throw InputError(w.file, where, "zero bandwidth between " + pair);
  }
}

Stage make_stage(const Workload& w, const Platform& p, double ref, int first, int last, int device) {
  const double speed = p.devices[device].speed;
  if (!(speed > 0)) throw InputError(p.file, "host " + p.devices[device].name, "speed must be positive");
  Stage st;
  st.first_layer = first;
  st.last_layer = last;
  st.device = device;
  for (int l = first; l <= last; ++l) {
    const Layer& layer = w.layers[l];
    st.forward_flops += cost_flops(layer.forward, ref);
    st.backward_flops += cost_flops(layer.backward, ref);
    st.stash_bytes += l == 0 ? w.input : w.layers[l - 1].activation;
    st.weight_bytes += layer.weights;
  }
  st.forward_seconds = st.forward_flops / speed;
  st.backward_seconds = st.backward_flops / speed;
  st.output_bytes = w.layers[last].activation;
  st.input_bytes = first == 0 ? w.input : w.layers[first - 1].activation;
  return st;
}

StagePlan explicit_plan(const Workload& w, const Platform& p, double ref, StagesPerDevice per_device) {
  const Placement& pl = w.placement;
  const int S = static_cast<int>(pl.stage_layers.size());
  const int L = static_cast<int>(w.layers.size());
  if (S == 0) throw InputError(w.file, "placement", "no stages");
  if (pl.stage_hosts.size() != pl.stage_layers.size())
    throw InputError(w.file, "placement",
                     std::to_string(S) + " layer ranges but " + std::to_string(pl.stage_hosts.size()) + " hosts");
  if (per_device == StagesPerDevice::One && S > p.size())
    throw InputError(
        w.file, "placement",
        std::to_string(S) + " stages but only " + std::to_string(p.size()) + " devices" + one_per_device(w));
  StagePlan plan;
  std::set<int> used;
  for (int i = 0; i < S; ++i) {
    const std::string at = "placement[" + std::to_string(i) + "]";
    const auto [first, last] = pl.stage_layers[i];
    const int expected = i == 0 ? 0 : pl.stage_layers[i - 1].second + 1;
    if (first != expected || last < first || last >= L || (i == S - 1 && last != L - 1))
      throw InputError(w.file, at + ".layers",
                       "stages must cover layers 0.." + std::to_string(L - 1) +
                           " contiguously, in order (this one should start at " + std::to_string(expected) + ")");
    const std::string& host = pl.stage_hosts[i];
    const int device = p.find(host);
    if (device < 0)
      throw InputError(w.file, at + ".host", "unknown host '" + host + "' (devices: " + device_names(p) + ")");
    if (is_host_memory(p.devices[device]))
      throw InputError(w.file, at + ".host",
                       "host '" + host + "' is host memory (kind host): it stores offloaded bytes and runs no stage");
    if (!used.insert(device).second && per_device == StagesPerDevice::One)
      throw InputError(w.file, at + ".host", "host '" + host + "' already runs another stage" + one_per_device(w));
    if (i > 0) check_route(w, p, plan.stages.back().device, device, at + ".host");
    plan.stages.push_back(make_stage(w, p, ref, first, last, device));
  }
  return plan;
}

StagePlan automatic_plan(const Workload& w, const Platform& p, double ref, StagesPerDevice per_device) {
  const int L = static_cast<int>(w.layers.size());
  std::vector<int> devices = compute_devices(p);  // stage s on devices[s]: never host memory
  const int D = static_cast<int>(devices.size());
  if (D == 0) throw InputError(p.file, "host properties", "no compute device: every device is host memory (kind host)");
  const int requested = w.placement.stages;
  if (requested < 0) throw InputError(w.file, "placement.stages", "must be positive");
  // 0 = one stage per device, but never more stages than layers.
  const int S = requested > 0 ? requested : std::min(D, L);
  if (S > D && per_device == StagesPerDevice::One)
    throw InputError(w.file, "placement.stages",
                     std::to_string(S) + " stages but only " + std::to_string(D) + " devices" + one_per_device(w));
  if (S > L)
    throw InputError(w.file, "placement.stages",
                     std::to_string(S) + " stages but only " + std::to_string(L) + " layers");
  if (S > D) {  // contiguous blocks: stage s on device floor(s*D/S), each device ceil or floor of S/D stages
    std::vector<int> blocks(S);
    for (int s = 0; s < S; ++s) blocks[s] = devices[static_cast<long long>(s) * D / S];
    devices = std::move(blocks);
  }
  devices.resize(S);
  for (int s = 1; s < S; ++s) check_route(w, p, devices[s - 1], devices[s], "placement");

  for (int s = 0; s < S; ++s)
    if (!(p.devices[devices[s]].speed > 0))
      throw InputError(p.file, "host " + p.devices[devices[s]].name, "speed must be positive");
  const StageLayers layers = automatic_stage_layers(w, p, devices, PartitionRule::Balanced);
  StagePlan plan;
  for (int s = 0; s < S; ++s)
    plan.stages.push_back(make_stage(w, p, ref, layers[s].first, layers[s].second, devices[s]));
  return plan;
}

}  // namespace

StagePlan make_stage_plan(const Workload& workload, const Platform& platform, StagesPerDevice per_device) {
  if (workload.layers.empty()) throw InputError(workload.file, "layers", "no layers");
  if (platform.size() == 0) throw InputError(platform.file, "hosts", "no devices");
  const double ref = reference_speed(workload, platform);
  return workload.placement.automatic ? automatic_plan(workload, platform, ref, per_device)
                                      : explicit_plan(workload, platform, ref, per_device);
}

bool shares_devices(const StagePlan& plan) {
  std::set<int> devices;
  for (const Stage& st : plan.stages)
    if (!devices.insert(st.device).second) return true;
  return false;
}

int planned_stage_count(const Workload& w, const Platform& p) {
  const int L = static_cast<int>(w.layers.size());
  if (!w.placement.automatic) return static_cast<int>(w.placement.stage_layers.size());
  return w.placement.stages > 0 ? w.placement.stages : std::min(static_cast<int>(compute_devices(p).size()), L);
}

}  // namespace pipesim
