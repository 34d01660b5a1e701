#include "workloads/model_costs.hpp"

#include <set>
#include <vector>

#include "devices/device_spec.hpp"
#include "sim/input_error.hpp"
#include "sim/units.hpp"
#include "sim/yaml_fields.hpp"
#include "workloads/costs.hpp"

namespace pipesim {
Calibration load_calibration(const std::string& path) {
  const YamlFields reader(path);
  return reader.parse(read_yaml_file(path), [&](const YAML::Node& root) {
    if (!root.IsMap())
      reader.fail(root, "document",
                  "expected a map of op keys to durations ({block.forward: 1.2ms}), got " + YamlFields::describe(root));
    Calibration c;
    c.file = path;
    for (const auto& [key, entry] : reader.fields(root, "", nullptr)) {
      const std::string stash = ".stash_bytes";  // LAYER.stash_bytes
      if (key.size() > stash.size() && key.compare(key.size() - stash.size(), stash.size(), stash) == 0) {
        c.stash_bytes[key.substr(0, key.size() - stash.size())] = static_cast<double>(
            reader.integer(entry.value, key, "a whole number of bytes like 67208192", 0, 1000000000000000LL));
        continue;
      }
      if (key == "tokens_per_microbatch") {
        c.tokens_per_microbatch = static_cast<double>(
            reader.integer(entry.value, key, "a whole number of tokens like 2048", 1, 1000000000000LL));
        continue;
      }
      const double s = reader.quantity(entry.value, key, "a duration like '1.2ms'", parse_seconds);
      if (!(s >= 0) || s > 1e9)
        reader.fail(entry.value, key, "expected a duration from 0 to 1e9 s, got " + entry.value.Scalar());
      c.seconds[key] = s;
    }
    return c;
  });
}

namespace {

// A key the model has no op for would be silently unused (a typo): refused, naming the keys it has.
void check_calibration_keys(const Calibration& calibration, const Workload& w) {
  std::set<std::string> keys = {"optimizer.step"};
  for (const Layer& layer : w.layers)
    if (layer.ops)
      for (const OpWork* op :
           {&layer.ops->forward, &layer.ops->backward_input, &layer.ops->backward_weight, &layer.ops->recompute})
        keys.insert(op->key);
  for (const auto& [key, seconds] : calibration.seconds)
    if (!keys.count(key))
      throw InputError(
          calibration.file, key,
          "unknown op key (expected one of: " + YamlFields::join(std::vector<std::string>(keys.begin(), keys.end())) +
              ", tokens_per_microbatch, or LAYER.stash_bytes)");
}

// One truth: measured times and bytes are for the shapes they were measured at; nothing rescales them.
void check_calibration_tokens(const Calibration& calibration, const Workload& w) {
  if (calibration.tokens_per_microbatch > 0 && calibration.tokens_per_microbatch != w.model->tokens_per_microbatch)
    throw InputError(w.file, "model.calibration",
                     calibration.file + " was measured at " +
                         std::to_string(static_cast<long long>(calibration.tokens_per_microbatch)) +
                         " tokens per micro-batch, this model runs " +
                         std::to_string(static_cast<long long>(w.model->tokens_per_microbatch)) +
                         " (seq_length x microbatch_size): a calibration does not rescale");
}

}  // namespace

void apply_calibrated_stash(Workload& w) {
  if (!w.model || w.model->calibration.empty()) return;
  const Calibration calibration = load_calibration(w.model->calibration);
  if (calibration.stash_bytes.empty()) return;
  check_calibration_tokens(calibration, w);
  if (w.model->recompute != "none")
    throw InputError(w.file, "model.recompute",
                     "is " + w.model->recompute + " but " + calibration.file +
                         " gives stash_bytes, measured on a step that keeps every stash: use recompute: none");
  std::set<std::string> names;
  for (const Layer& layer : w.layers) names.insert(layer.name);
  for (const auto& [name, bytes] : calibration.stash_bytes)
    if (!names.count(name))
      throw InputError(calibration.file, name + ".stash_bytes",
                       "names no layer of the model (expected one of: " +
                           YamlFields::join(std::vector<std::string>(names.begin(), names.end())) + ")");
  for (Layer& layer : w.layers)
    if (const auto it = calibration.stash_bytes.find(layer.name); it != calibration.stash_bytes.end())
      layer.stash = it->second;
}

Workload time_model_layers(const Workload& w, const Platform& p) {
  if (!w.model) return w;
  const int ref = fastest_device(p);
  if (ref < 0 || p.devices[ref].type.empty()) return w;
  const Device& device = p.devices[ref];
  const DeviceSpec* spec = find_device_preset(device.type);
  if (!spec)
    throw InputError(
        p.file, "host '" + device.name + "' property device",
        "unknown device type '" + device.type + "' (expected one of: " + YamlFields::join(device_preset_names()) + ")");
  if (!(peak_flops(*spec, w.model->precision) > 0))
    throw InputError(w.file, "model.precision",
                     std::string("the ") + spec->name + " of host '" + device.name + "' (" + p.file + ") has no " +
                         to_string(w.model->precision) + " compute");
  Calibration calibration;
  if (!w.model->calibration.empty()) calibration = load_calibration(w.model->calibration);
  check_calibration_tokens(calibration, w);
  check_calibration_keys(calibration, w);
  Workload out = w;
  out.reference_speed = device.speed;
  const auto step = calibration.seconds.find("optimizer.step");
  if (step != calibration.seconds.end() && w.model->parameters > 0)
    out.optimizer.step_seconds_per_parameter = step->second / w.model->parameters;
  for (Layer& layer : out.layers) {
    if (!layer.ops) continue;
    // The layers of a task run as one chain: the host issues ahead of the
    // GPU, so each layer costs its device time or, where the host is the
    // slower, its in-sequence dispatch time (docs/devices.md, "Chains").
    // An op with no work takes no time unless measured (the embedding's
    // input gradient: no kernel of its own, but a traced step's host time).
    const auto time = [&](const OpWork& op) {
      return op.flops > 0 || op.bytes > 0 || calibration.seconds.count(op.key)
                 ? op_seconds(*spec, op, &calibration, HostIssue::InChain)
                 : 0.0;
    };
    const auto host = [&](const OpWork& op) {
      return op.flops > 0 || op.bytes > 0 ? host_bound_seconds(*spec, op, &calibration, HostIssue::InChain) : 0.0;
    };
    layer.host_bound = {host(layer.ops->forward), host(layer.ops->backward_input) + host(layer.ops->recompute),
                        host(layer.ops->backward_weight)};
    const double input = time(layer.ops->backward_input) + time(layer.ops->recompute);
    const double weight = time(layer.ops->backward_weight);
    layer.forward = Cost{time(layer.ops->forward), false};
    layer.backward_input = Cost{input, false};
    layer.backward_weight = Cost{weight, false};
    layer.backward = Cost{input + weight, false};
  }
  return out;
}

Workload with_timing_of(const Workload& w, const Workload& timed) {
  Workload out = w;
  out.reference_speed = timed.reference_speed;
  out.optimizer.step_seconds_per_parameter = timed.optimizer.step_seconds_per_parameter;
  for (std::size_t l = 0; l < out.layers.size() && l < timed.layers.size(); ++l) {
    Layer& layer = out.layers[l];
    const Layer& t = timed.layers[l];
    layer.host_bound = t.host_bound;
    layer.forward = t.forward;
    layer.backward_input = t.backward_input;
    layer.backward_weight = t.backward_weight;
    layer.backward = t.backward;
  }
  return out;
}

}  // namespace pipesim
