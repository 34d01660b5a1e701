#include "workloads/pipedream_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <queue>
#include <set>
#include <sstream>

#include "sim/input_error.hpp"
#include "sim/input_file.hpp"

namespace pipesim {
namespace {

const char* const kNodeForm =
    "expected 'ID -- DESCRIPTION -- forward_compute_time=MS, backward_compute_time=MS, "
    "activation_size=BYTES, parameter_size=BYTES' (an edge line starts with a tab: '\\tID -- ID')";

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t at; (at = s.find(sep, from)) != std::string::npos; from = at + sep.size())
    parts.push_back(s.substr(from, at - from));
  parts.push_back(s.substr(from));
  return parts;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool has_space(const std::string& s) { return s.find_first_of(" \t") != std::string::npos; }

// A plain decimal number (sign, digits, point, exponent): no nan, inf, hex.
bool parse_number(const std::string& s, double& out) {
  if (s.empty() || s.find_first_not_of("0123456789.eE+-") != std::string::npos) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out);
}

class LineParser {
 public:
  LineParser(const std::string& file, int line) : file_(file), line_(line) {}
  // FIELD: what the line holds ("node", "edge node1 -- node2") or the node's key.
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(file_, "line " + std::to_string(line_) + ": " + field, what);
  }

  // "key=VALUE" with the expected key; VALUE a number >= 0, or for lists "[a; b]" (summed).
  double field(const std::string& text, const std::string& key, bool list_allowed) const {
    const auto eq = text.find('=');
    if (eq == std::string::npos || trim(text.substr(0, eq)) != key)
      fail(key, "expected '" + key + "=...', got '" + text + "'");
    std::string value = trim(text.substr(eq + 1));
    std::vector<std::string> items{value};
    if (list_allowed && value.size() >= 2 && value.front() == '[' && value.back() == ']')
      items = split(value.substr(1, value.size() - 2), ";");
    double sum = 0;
    for (const std::string& item : items) {
      double x = 0;
      if (!parse_number(trim(item), x)) fail(key, "expected a number, got '" + value + "'");
      if (x < 0) fail(key, "must be >= 0, got '" + value + "'");
      sum += x;
    }
    return sum;
  }

  ProfileNode node(const std::string& text) const {
    const std::vector<std::string> tokens = split(text, " -- ");
    if (tokens.size() < 3 || tokens.size() > 4) fail("node", kNodeForm);
    ProfileNode n;
    n.id = trim(tokens[0]);
    n.desc = trim(tokens[1]);
    n.line = line_;
    if (n.id.empty() || has_space(n.id)) fail("node", "bad id '" + tokens[0] + "': " + kNodeForm);
    const std::vector<std::string> f = split(tokens[2], ", ");
    if (f.size() != 4) fail("node '" + n.id + "'", kNodeForm);
    n.forward_ms = field(f[0], "forward_compute_time", false);
    n.backward_ms = field(f[1], "backward_compute_time", false);
    n.activation = field(f[2], "activation_size", true);
    n.parameters = field(f[3], "parameter_size", false);
    if (tokens.size() == 4 && trim(tokens[3]).find('=') == std::string::npos)  // stage_id=, vlayer_id=: ignored
      fail("node '" + n.id + "'", "expected 'KEY=VALUE' after the sizes, got '" + tokens[3] + "'");
    return n;
  }

 private:
  const std::string& file_;
  int line_;
};

// Kahn's order; ties by the number in "node<N>", then file order.
std::vector<int> topological_order(const ProfileGraph& g, const std::vector<bool>& skip,
                                   std::vector<std::vector<int>>& successors) {
  const int n = static_cast<int>(g.nodes.size());
  successors.assign(n, {});
  std::vector<int> waiting(n, 0);
  for (const auto& [u, v] : g.edges)
    if (!skip[u] && !skip[v]) successors[u].push_back(v), ++waiting[v];
  auto key = [&](int i) {
    const std::string& id = g.nodes[i].id;
    long long number = -1;
    if (id.size() > 4 && id.compare(0, 4, "node") == 0 && id.find_first_not_of("0123456789", 4) == std::string::npos &&
        id.size() < 16)
      number = std::stoll(id.substr(4));
    return std::make_pair(number < 0 ? (1LL << 62) : number, i);
  };
  std::priority_queue<std::pair<long long, int>, std::vector<std::pair<long long, int>>, std::greater<>> ready;
  for (int i = 0; i < n; ++i)
    if (!skip[i] && waiting[i] == 0) ready.push(key(i));
  std::vector<int> order;
  while (!ready.empty()) {
    const int u = ready.top().second;
    ready.pop();
    order.push_back(u);
    for (int v : successors[u])
      if (--waiting[v] == 0) ready.push(key(v));
  }
  return order;
}

std::string number(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", x);
  return buf;
}

std::string op_kind(const std::string& desc) { return desc.substr(0, desc.find('(')); }

std::string yaml_name(const std::string& s) {
  if (!s.empty() &&
      s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == std::string::npos)
    return s;
  std::string quoted = "\"";
  for (char c : s) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

ProfileGraph parse_pipedream_graph(const std::string& text, const std::string& file) {
  ProfileGraph g;
  g.file = file;
  std::map<std::string, int> index;
  struct RawEdge {
    std::string from, to;
    int line;
  };
  std::vector<RawEdge> raw;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const LineParser p(file, number);
    if (line[0] == '\t' || line[0] == ' ') {  // edge
      const std::vector<std::string> t = split(trim(line), " -- ");
      if (t.size() != 2 || t[0].empty() || t[1].empty() || has_space(t[0]) || has_space(t[1]))
        p.fail("edge", "expected 'ID -- ID', got '" + trim(line) + "'");
      raw.push_back({t[0], t[1], number});
      continue;
    }
    ProfileNode n = p.node(line);
    const auto [it, fresh] = index.emplace(n.id, static_cast<int>(g.nodes.size()));
    if (!fresh)
      p.fail("node '" + n.id + "'", "duplicate (first on line " + std::to_string(g.nodes[it->second].line) + ")");
    g.nodes.push_back(std::move(n));
  }
  if (g.nodes.empty()) throw InputError(file, "nodes", "none: not a PipeDream graph.txt profile");

  std::set<std::pair<int, int>> seen;
  std::vector<int> edge_line;
  for (const RawEdge& e : raw) {
    const LineParser p(file, e.line);
    int ends[2];
    for (int k = 0; k < 2; ++k) {
      const std::string& id = k == 0 ? e.from : e.to;
      const auto it = index.find(id);
      if (it == index.end()) p.fail("edge " + e.from + " -- " + e.to, "unknown node '" + id + "'");
      ends[k] = it->second;
    }
    if (ends[0] == ends[1]) p.fail("edge " + e.from + " -- " + e.to, "from a node to itself");
    if (!seen.insert({ends[0], ends[1]}).second) p.fail("edge " + e.from + " -- " + e.to, "duplicate");
    g.edges.push_back({ends[0], ends[1]});
    edge_line.push_back(e.line);
  }

  std::vector<std::vector<int>> successors;
  const std::vector<int> order = topological_order(g, std::vector<bool>(g.nodes.size(), false), successors);
  if (order.size() < g.nodes.size()) {  // the first edge between unordered nodes is on a cycle or after one
    std::vector<bool> ordered(g.nodes.size(), false);
    for (int u : order) ordered[u] = true;
    for (std::size_t i = 0; i < g.edges.size(); ++i)
      if (!ordered[g.edges[i].first] && !ordered[g.edges[i].second])
        throw InputError(file,
                         "line " + std::to_string(edge_line[i]) + ": edge " + g.nodes[g.edges[i].first].id + " -- " +
                             g.nodes[g.edges[i].second].id,
                         "on a cycle or after one (the graph must have none)");
  }
  return g;
}

ProfileGraph read_pipedream_graph(const std::string& path) {
  return parse_pipedream_graph(read_input_file(path, "a graph.txt file"), path);
}

std::vector<std::vector<int>> linearize_profile(const ProfileGraph& g, const std::vector<bool>& skip_in) {
  const std::vector<bool> skip = skip_in.empty() ? std::vector<bool>(g.nodes.size(), false) : skip_in;
  std::vector<std::vector<int>> successors;
  const std::vector<int> order = topological_order(g, skip, successors);
  std::vector<int> pos(g.nodes.size(), -1);
  for (std::size_t k = 0; k < order.size(); ++k) pos[order[k]] = static_cast<int>(k);

  std::vector<std::vector<int>> groups;
  std::vector<int> current;
  int reach_before = -1;  // furthest position reached by an edge from the closed groups
  int reach_current = -1;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int u = order[k];
    current.push_back(u);
    for (int v : successors[u]) reach_current = std::max(reach_current, pos[v]);
    if (reach_before <= static_cast<int>(k)) {  // every edge from before ends here: cut
      groups.push_back(std::move(current));
      current.clear();
      reach_before = std::max(reach_before, reach_current);
    }
  }
  if (!current.empty()) groups.push_back(std::move(current));  // not reached: the last node always cuts
  return groups;
}

ImportedProfile import_pipedream(const std::string& graph_txt, const ImportOptions& options) {
  ImportedProfile r;
  r.graph = read_pipedream_graph(graph_txt);
  const ProfileGraph& g = r.graph;
  const int n = static_cast<int>(g.nodes.size());
  std::vector<int> in_degree(n, 0), out_degree(n, 0);
  for (const auto& [u, v] : g.edges) ++out_degree[u], ++in_degree[v];

  Workload& w = r.workload;
  w.file = graph_txt;
  // As PipeDream's optimizer: Input sources carry no cost (their time is
  // data loading); unused __getitem__ sinks go.
  std::vector<bool> skip(n, false);
  for (int i = 0; i < n; ++i) {
    const std::string& desc = g.nodes[i].desc;
    if (in_degree[i] == 0 && desc.rfind("Input", 0) == 0) {
      skip[i] = true;
      ++r.inputs_removed;
      w.input += g.nodes[i].activation;
    } else if (out_degree[i] == 0 && desc.rfind("__getitem__", 0) == 0) {
      skip[i] = true;
      ++r.sinks_removed;
    }
  }
  if (std::find(skip.begin(), skip.end(), false) == skip.end())
    throw InputError(graph_txt, "nodes", "no operations besides inputs");

  r.groups = linearize_profile(g, skip);
  std::vector<int> group_of(n, -1);
  for (std::size_t l = 0; l < r.groups.size(); ++l)
    for (int u : r.groups[l]) group_of[u] = static_cast<int>(l);
  std::vector<bool> sends(n, false), has_successor(n, false);
  for (const auto& [u, v] : g.edges)
    if (!skip[u] && !skip[v]) {
      has_successor[u] = true;
      if (group_of[v] != group_of[u]) sends[u] = true;  // always into the next group
    }

  const int L = static_cast<int>(r.groups.size());
  for (int l = 0; l < L; ++l) {
    const std::vector<int>& grp = r.groups[l];
    Layer layer;
    layer.name = grp.size() == 1 ? g.nodes[grp[0]].id : g.nodes[grp.front()].id + "-" + g.nodes[grp.back()].id;
    double fwd = 0, bwd = 0, operators = 0;
    for (int u : grp) {
      const ProfileNode& node = g.nodes[u];
      fwd += node.forward_ms, bwd += node.backward_ms;
      layer.weights += node.parameters;
      operators += node.activation;
      if (l + 1 < L ? sends[u] : !has_successor[u]) layer.activation += node.activation;
    }
    layer.operator_activations = operators;
    layer.forward = {fwd / 1000, false};
    layer.backward = {bwd / 1000, false};
    w.layers.push_back(std::move(layer));
  }

  if (!options.name.empty()) {
    w.name = options.name;
  } else {
    const std::filesystem::path p(graph_txt);
    w.name = p.filename() == "graph.txt" && p.has_parent_path() && !p.parent_path().filename().empty()
                 ? p.parent_path().filename().string()
                 : p.stem().string();
  }
  w.microbatches = options.microbatches;
  w.microbatch_size = options.microbatch_size;
  w.schedule = "1f1b";
  return r;
}

std::string imported_workload_yaml(const ImportedProfile& r) {
  const Workload& w = r.workload;
  std::ostringstream out;
  std::size_t operators = 0;
  for (const auto& grp : r.groups) operators += grp.size();
  out << "# Imported by pipesim import from the PipeDream profile " << w.file << " (docs/import.md).\n"
      << "# " << operators << " operators in " << w.layers.size() << " layers (seed 000 section 7 linearization); "
      << r.inputs_removed << " Input node(s) -> input, " << r.sinks_removed << " unused __getitem__ sink(s) dropped.\n"
      << "# Times: the profile's milliseconds per profiled minibatch, on the reference device\n"
      << "# (reference_speed unset: the platform's fastest device). Sizes in bytes.\n"
      << "name: " << yaml_name(w.name) << "\n"
      << "microbatches: " << w.microbatches << "\n"
      << "microbatch_size: " << w.microbatch_size << "\n"
      << "input: " << number(w.input) << "\n"
      << "layers:\n";
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    const Layer& layer = w.layers[l];
    out << "  - {name: " << yaml_name(layer.name) << ", forward: " << number(layer.forward.value * 1000)
        << "ms, backward: " << number(layer.backward.value * 1000) << "ms, activation: " << number(layer.activation)
        << ", weights: " << number(layer.weights);
    if (layer.operator_activations) out << ", operator_activations: " << number(*layer.operator_activations);
    out << "}  #";
    for (std::size_t i = 0; i < r.groups[l].size(); ++i)
      out << (i ? ", " : " ") << op_kind(r.graph.nodes[r.groups[l][i]].desc);
    out << "\n";
  }
  return out.str();
}

}  // namespace pipesim
