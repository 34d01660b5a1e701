#include "traces/execution_trace.hpp"

#include <algorithm>
#include <cmath>

#include "sim/input_error.hpp"
#include "sim/input_file.hpp"
#include "sim/json_input.hpp"
#include "traces/kineto_trace.hpp"

namespace pipesim {
namespace {

using nlohmann::json;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

struct NodeReader {
  const json& node;
  std::string where;  // "nodes[N]"
  const std::string& path;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(path, where + (field.empty() ? "" : "." + field), single_line(what));
  }
  long long integer(const json& v, const std::string& field) const {
    if (!v.is_number_integer()) fail(field, "expected an integer, got " + v.dump());
    return v.get<long long>();
  }
  // [tensor_id, storage_id, offset, numel, itemsize, device], as schema 1.1 writes a tensor.
  void add_tensor(const json& v, const std::string& field, std::vector<EtTensor>& into) const {
    if (!v.is_array() || v.size() != 6) return;  // an undefined optional tensor
    for (std::size_t i = 0; i < 5; ++i)
      if (!v[i].is_number_integer() || v[i].get<long long>() < 0)
        fail(field, "expected [tensor id, storage id, offset, numel, itemsize, device], got " + v.dump());
    if (!v[5].is_string()) fail(field, "expected the device as a string, got " + v[5].dump());
    if (!starts_with(v[5].get<std::string>(), "cuda")) return;
    const double extent = (static_cast<double>(v[2].get<long long>()) + static_cast<double>(v[3].get<long long>())) *
                          static_cast<double>(v[4].get<long long>());
    if (!(extent <= 1e15)) fail(field, "a tensor of more than 1e15 bytes: " + v.dump());
    into.push_back({v[1].get<long long>(), extent});
  }
  // "inputs" or "outputs": {"values": [...], "types": [...]}, a type per value.
  std::vector<EtTensor> tensors(const char* side) const {
    std::vector<EtTensor> out;
    if (!node.contains(side) || !node.at(side).is_object()) fail(side, "expected {values, types}");
    const json& s = node.at(side);
    if (!s.contains("values") || !s.contains("types") || !s.at("values").is_array() || !s.at("types").is_array())
      fail(side, "expected lists 'values' and 'types'");
    const json &values = s.at("values"), &types = s.at("types");
    if (values.size() != types.size()) fail(side, "'values' and 'types' differ in length");
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!types[i].is_string()) fail(std::string(side) + ".types", "expected strings, got " + types[i].dump());
      const std::string type = types[i].get<std::string>();
      const std::string field = std::string(side) + ".values[" + std::to_string(i) + "]";
      if (starts_with(type, "Tensor"))
        add_tensor(values[i], field, out);
      else if (starts_with(type, "GenericList[Tensor") && values[i].is_array())
        for (const json& t : values[i]) add_tensor(t, field, out);
    }
    return out;
  }
};

EtNode read_node(const json& n, std::size_t index, const std::string& path) {
  const NodeReader r{n, "nodes[" + std::to_string(index) + "]", path};
  if (!n.is_object()) r.fail("", "expected a node object, got " + std::string(n.type_name()));
  EtNode node;
  for (const char* key : {"id", "ctrl_deps"})
    if (!n.contains(key)) r.fail(key, "missing");
  node.id = r.integer(n.at("id"), "id");
  node.parent = r.integer(n.at("ctrl_deps"), "ctrl_deps");
  if (!n.contains("name") || !n.at("name").is_string()) r.fail("name", "expected the op's name");
  node.name = n.at("name").get<std::string>();
  if (!n.contains("attrs") || !n.at("attrs").is_array()) r.fail("attrs", "expected a list of {name, type, value}");
  bool rf_seen = false;
  for (const json& a : n.at("attrs")) {
    if (!a.is_object() || !a.contains("name") || !a.contains("value") || !a.at("name").is_string())
      r.fail("attrs", "expected {name, type, value}, got " + a.dump());
    const std::string key = a.at("name").get<std::string>();
    if (key == "rf_id") node.rf_id = r.integer(a.at("value"), "attrs.rf_id"), rf_seen = true;
    if (key == "seq_id") node.seq_id = r.integer(a.at("value"), "attrs.seq_id");
  }
  if (!rf_seen) r.fail("attrs", "no rf_id: not an execution trace of schema 1.1 (attributes listed in attrs)");
  node.inputs = r.tensors("inputs");
  node.outputs = r.tensors("outputs");
  return node;
}

}  // namespace

ExecutionTrace parse_execution_trace(const std::string& text, const std::string& path) {
  ExecutionTrace trace;
  trace.file = path;
  // Streamed, as the Kineto trace: each node is read as it closes and dropped.
  bool nodes_seen = false;
  const json root = stream_json_list(
      text, path, "nodes", {"nodes", "a node"},
      [&](const json& node, std::size_t index) { trace.nodes.push_back(read_node(node, index, path)); }, &nodes_seen);
  if (!root.is_object())
    throw InputError(path, "document",
                     "expected a JSON object (a PyTorch execution trace), got " + std::string(root.type_name()));
  if (!nodes_seen)
    throw InputError(path, "nodes", "missing: not a PyTorch execution trace (torch.profiler.ExecutionTraceObserver)");
  std::stable_sort(trace.nodes.begin(), trace.nodes.end(),
                   [](const EtNode& a, const EtNode& b) { return a.rf_id < b.rf_id; });
  return trace;
}

ExecutionTrace read_execution_trace(const std::string& path) {
  return parse_execution_trace(read_input_file(path, "a PyTorch execution trace (JSON)", kMaxTraceBytes), path);
}

}  // namespace pipesim
