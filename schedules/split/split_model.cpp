#include "schedules/split/split_model.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "sim/format.hpp"

namespace pipesim::split {
namespace {

std::string where(const Device& d, const std::string& type) {
  return "device '" + d.name + "': resource '" + type + "'";
}

void check_number(double v, const std::string& what) {
  if (!(v >= 0) || std::isinf(v)) throw std::invalid_argument(what + " must be finite and >= 0, got " + fmt::number(v));
}

void check_bandwidth(double b) {
  if (!(b > 0)) throw std::invalid_argument("bandwidth must be > 0 (infinity: free), got " + fmt::number(b));
}

void check_worker(const Device& d) {
  if (d.resources.empty()) throw std::invalid_argument("device '" + d.name + "': no resource");
  std::set<std::string> seen;
  for (const Resource& r : d.resources)
    if (!seen.insert(r.type).second) throw std::invalid_argument(where(d, r.type) + ": listed twice");
}

// Every pass must have a resource with a finite time on every layer; `why`
// says where an infinite time came from.
void check_profile(const Device& d, const WorkerProfile& p, const std::string& why) {
  const double inf = std::numeric_limits<double>::infinity();
  bool forward = false, backward = false;
  for (const LayerTimes& t : p.times) {
    bool f = true, b = true;
    for (int l = 0; l < p.layers(); ++l) f = f && t.forward[l] < inf, b = b && t.backward[l] < inf;
    forward = forward || f;
    backward = backward || b;
  }
  if (!forward)
    throw std::invalid_argument("device '" + d.name + "': no resource can run the forward pass (" + why + ")");
  if (!backward)
    throw std::invalid_argument("device '" + d.name + "': no resource can run the backward pass (" + why + ")");
}

}  // namespace

WorkerProfile profile_from_speeds(const Device& worker, const std::vector<Layer>& chain, double bandwidth) {
  check_worker(worker);
  if (chain.empty()) throw std::invalid_argument("chain: no layer");
  check_bandwidth(bandwidth);
  WorkerProfile p;
  p.bandwidth = bandwidth;
  for (std::size_t l = 0; l < chain.size(); ++l) {
    const std::string at = "layer " + std::to_string(l) + ": ";
    check_number(chain[l].forward_flops, at + "forward_flops");
    check_number(chain[l].backward_flops, at + "backward_flops");
    check_number(chain[l].output_bytes, at + "output_bytes");
    if (chain[l].forward_flops == 0 || chain[l].backward_flops == 0)
      throw std::invalid_argument(at + "forward_flops and backward_flops must be > 0");
    p.output_bytes.push_back(chain[l].output_bytes);
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (const Resource& r : worker.resources) {
    check_number(r.forward_speed, where(worker, r.type) + ": forward_speed");
    check_number(r.backward_speed, where(worker, r.type) + ": backward_speed");
    LayerTimes t;
    for (const Layer& layer : chain) {
      t.forward.push_back(r.forward_speed > 0 ? layer.forward_flops / r.forward_speed : inf);
      t.backward.push_back(r.backward_speed > 0 ? layer.backward_flops / r.backward_speed : inf);
    }
    p.resources.push_back(r.type);
    p.times.push_back(std::move(t));
  }
  check_profile(worker, p, "zero speed");
  return p;
}

WorkerProfile profile_from_table(const Device& worker, const TimeTable& table, const std::vector<double>& output_bytes,
                                 double bandwidth) {
  check_worker(worker);
  if (output_bytes.empty()) throw std::invalid_argument("chain: no layer");
  check_bandwidth(bandwidth);
  WorkerProfile p;
  p.bandwidth = bandwidth;
  p.output_bytes = output_bytes;
  for (std::size_t l = 0; l < output_bytes.size(); ++l)
    check_number(output_bytes[l], "layer " + std::to_string(l) + ": output_bytes");
  for (const Resource& r : worker.resources) {
    const auto row = table.find(r.type);
    if (row == table.end()) {
      std::string known;
      for (const auto& [type, _] : table) known += (known.empty() ? "" : ", ") + type;
      throw std::invalid_argument(where(worker, r.type) + ": unknown resource type (the time table has: " + known +
                                  ")");
    }
    const LayerTimes& t = row->second;
    if (t.forward.size() != output_bytes.size() || t.backward.size() != output_bytes.size())
      throw std::invalid_argument("time table '" + r.type + "': " + std::to_string(t.forward.size()) + " forward and " +
                                  std::to_string(t.backward.size()) + " backward times for " +
                                  std::to_string(output_bytes.size()) + " layers");
    for (std::size_t l = 0; l < output_bytes.size(); ++l) {
      const std::string at = "time table '" + r.type + "': layer " + std::to_string(l) + ": ";
      // Infinite: the resource cannot run that pass.
      if (!(t.forward[l] > 0) || !(t.backward[l] > 0))
        throw std::invalid_argument(at + "forward and backward times must be > 0");
    }
    p.resources.push_back(r.type);
    p.times.push_back(t);
  }
  check_profile(worker, p, "no type of it has that pass in the table");
  return p;
}

}  // namespace pipesim::split
