#include "workloads/workload_yaml.hpp"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/units.hpp"
#include "sim/yaml_fields.hpp"
#include "workloads/model_section.hpp"
#include "workloads/parallel_section.hpp"

namespace pipesim {
namespace {

// After `repeat` expansion. Guards memory against typos such as repeat: 100000000.
constexpr int kMaxLayers = 1000000;

const std::vector<std::string> kTopKeys = {
    "name",  "microbatches", "microbatch_size", "iterations",    "input",     "reference_speed", "layers",
    "model", "schedule",     "placement",       "memory_saving", "optimizer", "memory",          "parallel"};
const std::vector<std::string> kOptimizerKeys = {"name",        "weight_bytes",  "gradient_bytes", "state_bytes",
                                                 "distributed", "data_parallel", "clip_grad",      "post_validation"};
const std::vector<std::string> kMemoryKeys = {"reserve"};
const std::vector<std::string> kMemorySavingKeys = {"policy", "limit", "slots"};
const std::vector<std::string> kLayerKeys = {"name",
                                             "forward",
                                             "backward",
                                             "backward_input",
                                             "backward_weight",
                                             "activation",
                                             "weights",
                                             "operator_activations",
                                             "repeat",
                                             "stash",
                                             "forward_workspace",
                                             "backward_workspace",
                                             "parameters",
                                             "times"};
const std::vector<std::string> kResourceTimeKeys = {"forward", "backward"};
const std::vector<std::string> kStageKeys = {"layers", "host"};
const std::vector<std::string> kAutoPlacementKeys = {"stages", "partition", "layers"};

const char* const kCostExpected = "a duration like '3ms' or a flop count like '2Tf'";
constexpr double kMaxLayerBytes = 9.2e18;  // just below 2^63, as the engine checks
const char* const kBytesExpected = "a byte size like '16MiB' or '1.5GB'";

// "layer 3" or "layers 3-5".
std::string layer_span(int a, int b) {
  return a == b ? "layer " + std::to_string(a) : "layers " + std::to_string(a) + "-" + std::to_string(b);
}

// Reads one workload file; the field helpers come from YamlFields.
class Loader : public YamlFields {
 public:
  explicit Loader(std::string file) : YamlFields(std::move(file)) {}

  Workload load(const YAML::Node& root) {
    if (root.IsNull())
      fail(YAML::Node(), "document", "expected a map with at least 'microbatches' and 'layers', got an empty document");
    if (!root.IsMap())
      fail(root, "document", "expected a map with at least 'microbatches' and 'layers', got " + describe(root));
    const Fields f = fields(root, "", &kTopKeys);
    const YAML::Node top;  // missing top-level fields have no useful line

    Workload w;
    w.file = file();
    w.name = std::filesystem::path(file()).stem().string();
    if (auto* e = get(f, "name")) w.name = text(e->value, "name", "a workload name");
    if (auto* e = get(f, "microbatches")) w.microbatches = integer(e->value, "microbatches", 1);
    if (auto* e = get(f, "microbatch_size")) w.microbatch_size = integer(e->value, "microbatch_size", 1);
    if (auto* e = get(f, "iterations")) w.iterations = integer(e->value, "iterations", 1);
    if (auto* e = get(f, "input"))
      w.input = layer_bytes(e->value, "input");  // the first stage's input, also a transfer
    if (auto* e = get(f, "reference_speed")) {
      w.reference_speed = quantity(e->value, "reference_speed", "a speed like '150Tf'", parse_flops);
      if (w.reference_speed <= 0)
        fail(e->value, "reference_speed", "expected a positive speed like '150Tf', got " + describe(e->value));
    }
    const auto* model = get(f, "model");
    if (model) {
      w.optimizer.name = "adam";  // a model trains with Adam unless told otherwise
      w.runtime_reserve = kModelRuntimeReserve;
    }
    if (auto* e = get(f, "optimizer")) load_optimizer(e->value, w.optimizer);  // first: it sets the weights' bytes
    const auto* parallel = get(f, "parallel");
    if (parallel) load_parallel_section(*this, parallel->value, w);  // before the model: it sets tp
    if (model) {
      if (auto* l = get(f, "layers"))
        fail(l->key, "layers", "a workload gives 'model' or 'layers', not both (the model generates the layers)");
      for (const char* key : {"microbatch_size", "input"})
        if (auto* k = get(f, key))
          fail(k->key, key, "comes from the model with 'model': set model.microbatch_size instead");
      load_model_section(*this, model->value, w);
    } else {
      load_layers(require(f, top, "", "layers", "a non-empty list of layers (or a model)"), w);
      if (w.parallel.tp > 1)
        fail(parallel->value, "parallel.tp",
             "tensor parallelism needs a 'model:' section: a hand-written layer chain does not say how its layers "
             "split");
    }
    if (auto* e = get(f, "memory")) {
      if (!e->value.IsMap()) fail(e->value, "memory", "expected a map {reserve: 1GiB}, got " + describe(e->value));
      const Fields m = fields(e->value, "memory", &kMemoryKeys);
      if (auto* r = get(m, "reserve")) w.runtime_reserve = bytes(r->value, "memory.reserve");
    }
    w.schedule = "1f1b";
    if (auto* e = get(f, "schedule")) load_schedule(e->value, w);
    // A PyTorch CSV (schedule csv) brings its own micro-batch count: 0 until read.
    if (!get(f, "microbatches")) {
      if (w.schedule != "csv") require(f, top, "", "microbatches", "an integer >= 1");
      w.microbatches = 0;
    }
    if (auto* e = get(f, "placement")) load_placement(e->value, w);
    if (auto* e = get(f, "memory_saving")) {
      if (e->value.IsSequence() && e->value.size() > 0) {
        std::size_t i = 0;
        for (auto it = e->value.begin(); it != e->value.end(); ++it, ++i)
          load_memory_saving(*it, item("memory_saving", i), w.memory_saving_stages.emplace_back());
      } else {
        load_memory_saving(e->value, "memory_saving", w.memory_saving);
      }
    }
    return w;
  }

 private:
  int integer(const YAML::Node& n, const std::string& path, int min) const {
    return static_cast<int>(YamlFields::integer(n, path, "an integer >= " + std::to_string(min), min, INT_MAX));
  }

  double bytes(const YAML::Node& n, const std::string& path) const {
    return quantity(n, path, kBytesExpected, parse_bytes);
  }

  // A layer's bytes travel as transfers (activations, gradients, weights),
  // which the engine counts in a signed 64-bit integer: bounded here, where
  // the file and the field are known.
  double layer_bytes(const YAML::Node& n, const std::string& path) const {
    const double value = bytes(n, path);
    if (value >= kMaxLayerBytes)
      fail(n, path, "expected at most 8 EiB (a transfer's byte count must fit 63 bits), got '" + n.Scalar() + "'");
    return value;
  }

  Cost cost(const YAML::Node& n, const std::string& path) const {
    ParsedCost c = quantity(n, path, kCostExpected, parse_cost);
    if (c.value > kMaxCost)
      fail(n, path,
           std::string("expected a cost of at most 1e100 s or 1e100 flops (larger ones overflow the ") +
               "simulated times), got '" + n.Scalar() + "'");
    return Cost{c.value, c.flops};
  }

  void load_layers(const YAML::Node& list, Workload& w) const {
    if (!list.IsSequence()) fail(list, "layers", "expected a list of layers, got " + describe(list));
    if (list.size() == 0) fail(list, "layers", "expected at least one layer, got an empty list");
    std::size_t i = 0;
    for (auto it = list.begin(); it != list.end(); ++it, ++i) {
      const YAML::Node n = *it;
      const std::string path = item("layers", i);
      if (!n.IsMap()) fail(n, path, "expected a layer map with forward, backward and activation, got " + describe(n));
      const Fields f = fields(n, path, &kLayerKeys);
      Layer layer;
      layer.forward = cost(require(f, n, path, "forward", kCostExpected), sub(path, "forward"));
      layer.backward = cost(require(f, n, path, "backward", kCostExpected), sub(path, "backward"));
      layer.activation = layer_bytes(require(f, n, path, "activation", kBytesExpected), sub(path, "activation"));
      if (auto* e = get(f, "weights")) layer.weights = layer_bytes(e->value, sub(path, "weights"));
      if (auto* e = get(f, "operator_activations"))
        layer.operator_activations = layer_bytes(e->value, sub(path, "operator_activations"));
      if (auto* e = get(f, "stash")) layer.stash = layer_bytes(e->value, sub(path, "stash"));
      if (auto* e = get(f, "forward_workspace"))
        layer.forward_workspace = layer_bytes(e->value, sub(path, "forward_workspace"));
      if (auto* e = get(f, "backward_workspace"))
        layer.backward_workspace = layer_bytes(e->value, sub(path, "backward_workspace"));
      if (auto* e = get(f, "parameters"))
        layer.parameters = quantity(e->value, sub(path, "parameters"), "a parameter count like '1.5e9'", parse_flops);
      load_split(f, n, path, layer);
      if (auto* e = get(f, "times")) load_resource_times(e->value, sub(path, "times"), layer);
      if (!w.layers.empty() && !same_types(w.layers[0], layer))
        fail(n, sub(path, "times"),
             "expected times for the resource types of layers[0] (" + types_of(w.layers[0]) + "), got " +
                 types_of(layer) + " (every layer or none has a time table)");
      std::string name;
      if (auto* e = get(f, "name")) name = text(e->value, sub(path, "name"), "a layer name");
      int repeat = 1;
      if (auto* e = get(f, "repeat")) {
        repeat = integer(e->value, sub(path, "repeat"), 1);
        if (repeat > kMaxLayers - static_cast<int>(w.layers.size()))
          fail(e->value, sub(path, "repeat"),
               "expected at most " + std::to_string(kMaxLayers) + " layers in total, got repeat " +
                   std::to_string(repeat));
      }
      for (int r = 0; r < repeat; ++r) {
        // Unnamed layers are numbered by their position in the expanded chain.
        if (name.empty())
          layer.name = "layer" + std::to_string(w.layers.size());
        else
          layer.name = repeat > 1 ? name + "_" + std::to_string(r) : name;
        w.layers.push_back(layer);
      }
    }
  }

  void load_optimizer(const YAML::Node& n, Optimizer& o) const {
    if (n.IsScalar()) {
      o.name = lower(text(n, "optimizer", "none, adam or a map {name: adam, ...}"));
    } else {
      if (!n.IsMap()) fail(n, "optimizer", "expected none, adam or a map {name: adam, ...}, got " + describe(n));
      const Fields f = fields(n, "optimizer", &kOptimizerKeys);
      if (auto* e = get(f, "name")) o.name = lower(text(e->value, "optimizer.name", "none, adam or adamw"));
      for (auto [key, field] :
           {std::pair{"weight_bytes", &o.weight_bytes}, std::pair{"gradient_bytes", &o.gradient_bytes},
            std::pair{"state_bytes", &o.state_bytes}})
        if (auto* e = get(f, key)) {
          *field = bytes(e->value, sub("optimizer", key));
          if (*field > 64)
            fail(e->value, sub("optimizer", key), "expected at most 64 bytes per parameter, got " + describe(e->value));
        }
      if (auto* e = get(f, "distributed")) o.distributed = boolean(e->value, "optimizer.distributed");
      if (auto* e = get(f, "data_parallel")) o.data_parallel = integer(e->value, "optimizer.data_parallel", 1);
      if (auto* e = get(f, "clip_grad")) o.clip_grad = boolean(e->value, "optimizer.clip_grad");
      if (auto* e = get(f, "post_validation")) o.post_validation = boolean(e->value, "optimizer.post_validation");
    }
    if (o.name == "adamw") o.name = "adam";
    if (o.name != "none" && o.name != "adam")
      fail(n, n.IsMap() ? "optimizer.name" : "optimizer", "expected none, adam or adamw, got '" + o.name + "'");
  }

  // Seed 004's time table row: {cpu: {forward: 40ms, backward: 90ms}, ...};
  // a pass left out is one the resource cannot run.
  void load_resource_times(const YAML::Node& n, const std::string& path, Layer& layer) const {
    const char* expected = "a map of resource types to {forward: 40ms, backward: 90ms}";
    if (!n.IsMap() || n.size() == 0) fail(n, path, std::string("expected ") + expected + ", got " + describe(n));
    for (const auto& [type, entry] : fields(n, path, nullptr)) {
      const std::string at = sub(path, type);
      if (!entry.value.IsMap())
        fail(entry.value, at, "expected {forward: 40ms, backward: 90ms}, got " + describe(entry.value));
      const Fields t = fields(entry.value, at, &kResourceTimeKeys);
      ResourceTimes& times = layer.resource_times[type];
      times.forward = times.backward = std::numeric_limits<double>::infinity();
      if (t.empty()) fail(entry.value, at, "expected forward, backward or both (a pass left out cannot run there)");
      for (auto [key, field] : {std::pair{"forward", &times.forward}, std::pair{"backward", &times.backward}})
        if (auto* e = get(t, key)) {
          const Cost c = cost(e->value, sub(at, key));
          if (c.flops || !(c.value > 0))
            fail(e->value, sub(at, key), "expected a duration > 0 like '40ms', got '" + e->value.Scalar() + "'");
          *field = c.value;
        }
    }
  }

  static bool same_types(const Layer& a, const Layer& b) {
    return std::equal(a.resource_times.begin(), a.resource_times.end(), b.resource_times.begin(),
                      b.resource_times.end(), [](const auto& x, const auto& y) { return x.first == y.first; });
  }

  static std::string types_of(const Layer& layer) {
    std::vector<std::string> types;
    for (const auto& [type, _] : layer.resource_times) types.push_back(type);
    return types.empty() ? "none" : join(types);
  }

  // backward_input and backward_weight: both or neither.
  void load_split(const Fields& f, const YAML::Node& n, const std::string& path, Layer& layer) const {
    const auto* in = get(f, "backward_input");
    const auto* wt = get(f, "backward_weight");
    if (!in && !wt) return;
    if (!in || !wt) {
      const std::string missing = in ? "backward_weight" : "backward_input";
      fail(n, sub(path, missing),
           "expected " + std::string(kCostExpected) + " beside " + (in ? "backward_input" : "backward_weight") +
               " (give both halves of the split backward or neither)");
    }
    layer.split_given = true;
    layer.backward_input = cost(in->value, sub(path, "backward_input"));
    layer.backward_weight = cost(wt->value, sub(path, "backward_weight"));
  }

  void load_schedule(const YAML::Node& n, Workload& w) const {
    if (n.IsMap()) {
      const Fields f = fields(n, "schedule", nullptr);  // any key: generator parameters
      w.schedule = lower(
          text(require(f, n, "schedule", "name", "a schedule name"), "schedule.name", "a schedule name like '1f1b'"));
      for (const auto& [key, e] : f)
        if (key != "name") w.schedule_params[key] = scalar(e.value, sub("schedule", key), "a single value");
    } else {
      w.schedule = lower(text(n, "schedule", "a schedule name like '1f1b' or a map {name: 1f1b, ...}"));
    }
  }

  void load_memory_saving(const YAML::Node& n, const std::string& path, MemorySaving& m) const {
    if (!n.IsMap())
      fail(n, path,
           "expected a map {policy: remat, limit: auto}" +
               std::string(path == "memory_saving" ? " or a list of them, one per stage" : "") + ", got " +
               describe(n));
    const Fields f = fields(n, path, &kMemorySavingKeys);
    const char* policies = "none, remat, offload or both";
    const YAML::Node& p = require(f, n, path, "policy", policies);
    m.policy = lower(text(p, sub(path, "policy"), policies));
    if (m.policy != "none" && m.policy != "remat" && m.policy != "offload" && m.policy != "both")
      fail(p, sub(path, "policy"), std::string("expected ") + policies + ", got '" + p.Scalar() + "'");
    if (auto* e = get(f, "limit")) {
      const std::string word = e->value.IsScalar() ? lower(e->value.Scalar()) : "";
      m.fit = word == "fit";
      if (word != "auto" && word != "fit") {
        m.limit = quantity(e->value, sub(path, "limit"), "'auto', 'fit' or a byte size like '2GiB'", parse_bytes);
        if (!(m.limit > 0))
          fail(e->value, sub(path, "limit"),
               "expected 'auto', 'fit' or a positive byte size like '2GiB', got " + describe(e->value));
      }
    }
    if (auto* e = get(f, "slots")) m.slots = integer(e->value, sub(path, "slots"), 1);
  }

  void load_placement(const YAML::Node& n, Workload& w) const {
    const char* expected =
        "'auto', {stages: N, partition: even|balanced}, {layers: [N, ...]} or a list of {layers: 'a-b', host: NAME}";
    Placement& p = w.placement;
    const int count = static_cast<int>(w.layers.size());
    if (n.IsScalar()) {
      if (lower(n.Scalar()) != "auto")
        fail(n, "placement", std::string("expected ") + expected + ", got " + describe(n));
    } else if (n.IsMap()) {
      const Fields f = fields(n, "placement", &kAutoPlacementKeys);
      if (f.empty()) fail(n, "placement", "expected 'stages', 'partition' or 'layers' (or placement: auto)");
      if (auto* e = get(f, "stages")) {
        p.stages = integer(e->value, "placement.stages", 1);
        if (p.stages > count)
          fail(e->value, "placement.stages",
               "expected at most one stage per layer (" + std::to_string(count) + " layers), got " +
                   std::to_string(p.stages));
      }
      if (auto* e = get(f, "partition")) {
        const char* rules = "auto, even or balanced";
        const std::string rule = lower(text(e->value, "placement.partition", rules));
        if (rule == "even")
          p.partition = PartitionRule::Even;
        else if (rule == "balanced")
          p.partition = PartitionRule::Balanced;
        else if (rule != "auto")
          fail(e->value, "placement.partition", std::string("expected ") + rules + ", got '" + rule + "'");
      }
      if (auto* e = get(f, "layers")) load_layer_counts(e->value, f, p, count);
    } else if (n.IsSequence() && n.size() > 0) {
      p.automatic = false;
      int next = 0;  // first layer not yet assigned
      std::size_t i = 0;
      YAML::Node last_layers;
      std::string last_text;
      for (auto it = n.begin(); it != n.end(); ++it, ++i) {
        const YAML::Node stage = *it;
        const std::string path = item("placement", i);
        if (!stage.IsMap()) fail(stage, path, "expected a map {layers: 'a-b', host: NAME}, got " + describe(stage));
        const Fields f = fields(stage, path, &kStageKeys);
        const YAML::Node& ln = require(f, stage, path, "layers", "a layer range like '0-11'");
        const std::string lpath = sub(path, "layers");
        const auto [a, b] = range(ln, lpath, count);
        const std::string got = "got '" + ln.Scalar() + "'";
        const std::string after = i == 0 ? "" : ", right after " + item("placement", i - 1);
        if (a < next)
          fail(ln, lpath,
               "expected a range starting at layer " + std::to_string(next) + after + ", " + got +
                   ", which overlaps it");
        if (a > next)
          fail(ln, lpath,
               "expected a range starting at layer " + std::to_string(next) + after + ", " + got + ", which leaves " +
                   layer_span(next, a - 1) + " unassigned");
        next = b + 1;
        p.stage_layers.emplace_back(a, b);
        p.stage_hosts.push_back(text(require(f, stage, path, "host", "a host name"), sub(path, "host"), "a host name"));
        last_layers = ln;
        last_text = ln.Scalar();
      }
      if (next != count)
        fail(last_layers, item("placement", i - 1) + ".layers",
             "expected the last range to end at layer " + std::to_string(count - 1) + " (the chain has " +
                 std::to_string(count) + " layers), got '" + last_text + "', which leaves " +
                 layer_span(next, count - 1) + " unassigned");
    } else {
      fail(n, "placement",
           std::string("expected ") + expected + ", got " + describe(n) + (n.IsSequence() ? " (empty list)" : ""));
    }
  }

  // placement.layers: how many layers each stage runs, in stage order (an
  // uneven split, as Megatron-LM's first and last pipeline stage counts).
  void load_layer_counts(const YAML::Node& n, const Fields& f, Placement& p, int count) const {
    const char* expected = "a list of layer counts per stage like [3, 8, 8, 5]";
    if (!n.IsSequence() || n.size() == 0)
      fail(n, "placement.layers", std::string("expected ") + expected + ", got " + describe(n));
    if (auto* e = get(f, "partition"))
      fail(e->value, "placement.partition", "give either partition or layers (the layers per stage), not both");
    long long sum = 0;
    for (std::size_t i = 0; i < n.size(); ++i) {
      p.layer_counts.push_back(integer(n[i], item("placement.layers", i), 1));
      sum += p.layer_counts.back();
    }
    const int stages = static_cast<int>(p.layer_counts.size());
    if (p.stages > 0 && p.stages != stages)
      fail(n, "placement.layers",
           "lists " + std::to_string(stages) + " stages, but placement.stages is " + std::to_string(p.stages));
    if (sum != count)
      fail(n, "placement.layers",
           "the counts add up to " + std::to_string(sum) + " layers, but the chain has " + std::to_string(count));
    p.stages = stages;
  }

  // "5" or "0-11": an inclusive 0-based range of existing layers.
  std::pair<int, int> range(const YAML::Node& n, const std::string& path, int count) const {
    const std::string expected = "a layer index like '5' or an inclusive range like '0-11'";
    const std::string s = scalar(n, path, expected);
    auto trim = [](std::string t) {
      t.erase(0, t.find_first_not_of(' '));
      t.erase(t.find_last_not_of(' ') + 1);
      return t;
    };
    const auto dash = s.find('-');
    long long a = 0, b = 0;
    bool ok = parse_integer(trim(s.substr(0, dash)), a);
    b = a;
    if (dash != std::string::npos) ok = ok && parse_integer(trim(s.substr(dash + 1)), b);
    if (!ok) fail(n, path, "expected " + expected + ", got '" + s + "'");
    if (a > b) fail(n, path, "expected a range 'a-b' with a <= b, got '" + s + "'");
    if (b >= count)
      fail(n, path,
           "expected layers within 0-" + std::to_string(count - 1) + " (the chain has " + std::to_string(count) +
               " layers), got '" + s + "'");
    return {static_cast<int>(a), static_cast<int>(b)};
  }
};

// A copy of N built node by node, so that it has no line: an override's
// value is not in the file, and "line 1" of its text would mislead.
YAML::Node unmarked(const YAML::Node& n) {
  if (n.IsScalar()) return YAML::Node(n.Scalar());
  YAML::Node copy(n.IsSequence() ? YAML::NodeType::Sequence : n.IsMap() ? YAML::NodeType::Map : YAML::NodeType::Null);
  if (n.IsSequence())
    for (const YAML::Node& item : n) copy.push_back(unmarked(item));
  if (n.IsMap())
    for (const auto& item : n) copy[item.first.Scalar()] = unmarked(item.second);
  return copy;
}

// Sets (or removes) O.key in ROOT, a map, creating the maps on the way.
void apply_override(const YamlFields& fields, YAML::Node& root, const WorkloadOverride& o) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dot = o.key.find('.', start);
    parts.push_back(o.key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  YAML::Node map = root;
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string& part = parts[i];
    path = YamlFields::sub(path, part);
    YAML::Node next = map[part];
    if (!next.IsDefined() || next.IsNull()) {
      map.remove(part);
      map[part] = YAML::Node(YAML::NodeType::Map);
    } else if (next.IsScalar() && path == "schedule") {  // schedule: NAME -> {name: NAME, ...}
      YAML::Node named(YAML::NodeType::Map);
      named["name"] = next.Scalar();
      map[part] = named;
    } else if (next.IsScalar() && path == "placement" && YamlFields::lower(next.Scalar()) == "auto") {
      map[part] = YAML::Node(YAML::NodeType::Map);
    } else if (!next.IsMap()) {
      fields.fail(YAML::Node(), path,
                  "cannot set '" + o.key + "': expected a map here, got " + YamlFields::describe(next));
    }
    YAML::Node child = map[part];
    map.reset(child);
  }
  // Removed first, so the new node has no line of the file (its line would mislead).
  map.remove(parts.back());
  if (o.value.empty()) return;
  // A value in YAML's flow form sets a list or a map: memory_saving=[{policy: remat}, {policy: none}].
  if (o.value.front() == '[' || o.value.front() == '{') {
    try {
      map[parts.back()] = unmarked(YAML::Load(o.value));
    } catch (const YAML::Exception& e) {
      fields.fail(YAML::Node(), o.key, "cannot read '" + o.value + "' as a YAML list or map: " + e.msg);
    }
    return;
  }
  map[parts.back()] = o.value;
}

}  // namespace

Workload load_workload(const std::string& path) { return load_workload(path, {}); }

WorkloadOverride parse_workload_override(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) throw std::invalid_argument("expected KEY=VALUE, got '" + text + "'");
  WorkloadOverride o{text.substr(0, eq), text.substr(eq + 1)};
  const std::string dotted = "." + o.key + ".";
  if (o.key.empty() || dotted.find("..") != std::string::npos)
    throw std::invalid_argument("expected KEY=VALUE with KEY like 'microbatches' or 'schedule.k', got '" + text + "'");
  return o;
}

namespace {

// The overrides applied to ROOT (changed in place), then the workload read.
Workload load_with_overrides(Loader& loader, YAML::Node root, const std::vector<WorkloadOverride>& overrides) {
  if (root.IsMap())
    for (const WorkloadOverride& o : overrides) apply_override(loader, root, o);
  return loader.load(root);
}

}  // namespace

Workload load_workload(const std::string& path, const std::vector<WorkloadOverride>& overrides) {
  const std::string content = read_yaml_file(path);
  Loader loader(path);
  return loader.parse(content,
                      [&](const YAML::Node& parsed) { return load_with_overrides(loader, parsed, overrides); });
}

WorkloadLoader workload_loader(const std::string& path) {
  const auto parsed = std::make_shared<const YAML::Node>(
      Loader(path).parse(read_yaml_file(path), [](const YAML::Node& root) { return YAML::Clone(root); }));
  return [path, parsed](const std::vector<WorkloadOverride>& overrides) {
    Loader loader(path);  // a fresh reader, and a copy of the document to override, each time
    return loader.read_parsed(YAML::Clone(*parsed),
                              [&](const YAML::Node& root) { return load_with_overrides(loader, root, overrides); });
  };
}

std::string workload_yaml_with_overrides(const std::string& path, const std::vector<WorkloadOverride>& overrides,
                                         const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string content = read_yaml_file(path);
  Loader loader(path);
  std::string out;
  loader.parse(content, [&](const YAML::Node& parsed) {
    YAML::Node root = YAML::Clone(parsed);
    if (root.IsMap())
      for (const WorkloadOverride& o : overrides) apply_override(loader, root, o);
    for (const auto& [section, key] : {std::pair{"model", "config"}, {"model", "calibration"}, {"schedule", "file"}}) {
      YAML::Node holder = root[section];
      if (!holder.IsMap() || !holder[key].IsScalar()) continue;
      const fs::path given(holder[key].Scalar());
      if (given.is_absolute()) continue;
      const fs::path file = fs::absolute(fs::path(path).parent_path() / given);
      holder[key] = fs::relative(file, fs::absolute(dir)).string();
    }
    YAML::Emitter emitter;
    emitter << root;
    out = std::string(emitter.c_str()) + "\n";
    return Workload{};
  });
  return out;
}

}  // namespace pipesim
