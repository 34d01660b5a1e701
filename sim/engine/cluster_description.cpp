#include "sim/engine/cluster_description.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <xbt/parse_units.hpp>

#include "sim/yaml_fields.hpp"

namespace pipesim {
namespace {

// make_platform.py's GPUS and DEVICE_TYPES (tests/sim/engine/test_cluster_platform.cpp
// holds the two equal: every preset's cluster, XML against description).
constexpr ClusterGpuPreset kPresets[] = {
    {"A100", "156Tf", "80GiB", 300, 25, "a100-80gb", "A100-SXM4-80GB"},
    {"H100", "495Tf", "80GiB", 450, 50, "h100-sxm", "H100-SXM5-80GB"},
    {"H200", "495Tf", "141GB", 450, 50, "h200", "H200-SXM-141GB"},
    {"MI300X", "654Tf", "192GB", 448, 50, "mi300x", "MI300X"},
};

const std::vector<std::string> kRootKeys = {"cluster"};
const std::vector<std::string> kClusterKeys = {"boxes", "gpus", "gpu", "fabric", "network", "nic", "oversubscription"};
constexpr double kMaxBandwidth = 1e100;  // B/s, as for the XML's links (platform_check.cpp)

class DescriptionReader : public YamlFields {
 public:
  using YamlFields::YamlFields;

  ClusterDescription read(const YAML::Node& root) const {
    if (!root.IsMap())
      fail(root, "document", "expected a map with one key 'cluster' (a cluster description), got " + describe(root));
    const Fields top = fields(root, "", &kRootKeys);
    const YAML::Node& node = require(top, root, "", "cluster", "the cluster's boxes, GPUs and networks");
    if (!node.IsMap())
      fail(node, "cluster", "expected a map like {boxes: 128, gpus: 8, network: rail}, got " + describe(node));
    const Fields f = fields(node, "cluster", &kClusterKeys);
    ClusterDescription d;
    d.gpus = static_cast<int>(integer(require(f, node, "cluster", "gpus", "GPUs per box"), "cluster.gpus",
                                      "a whole number of GPUs per box", 1, kMaxClusterGpus));
    if (const Entry* e = get(f, "boxes"))
      d.boxes = static_cast<int>(integer(e->value, "cluster.boxes", "a whole number of boxes", 1, kMaxClusterGpus));
    if (d.devices() > kMaxClusterGpus)
      fail(node, "cluster",
           "expected at most " + std::to_string(kMaxClusterGpus) + " GPUs, got " + std::to_string(d.boxes) +
               " boxes of " + std::to_string(d.gpus));
    d.gpu = find_cluster_gpu("A100");
    if (const Entry* e = get(f, "gpu")) {
      const std::string name = scalar(e->value, "cluster.gpu", "a GPU preset");
      d.gpu = find_cluster_gpu(name);
      if (!d.gpu) fail(e->value, "cluster.gpu", "expected one of A100, H100, H200, MI300X, got '" + name + "'");
    }
    if (const Entry* e = get(f, "fabric"))
      d.fabric = choice<BoxFabric>(
          e->value, "cluster.fabric",
          {{"nvswitch", BoxFabric::NvSwitch}, {"nvlink-mesh", BoxFabric::NvLinkMesh}, {"pcie", BoxFabric::Pcie}});
    if (const Entry* e = get(f, "network"))
      d.network = choice<BoxNetwork>(
          e->value, "cluster.network",
          {{"fat-tree", BoxNetwork::FatTree}, {"rail", BoxNetwork::Rail}, {"ethernet", BoxNetwork::Ethernet}});
    if (const Entry* e = get(f, "nic")) d.nic = bandwidth(e->value, "cluster.nic");
    if (const Entry* e = get(f, "oversubscription")) {
      if (d.network == BoxNetwork::Rail)
        fail(e->value, "cluster.oversubscription",
             "a rail network is non-blocking; only fat-tree and ethernet take it");
      d.oversubscription = number(e->value, "cluster.oversubscription", "a downlink/uplink ratio of at least 1");
      if (!(d.oversubscription >= 1) || !std::isfinite(d.oversubscription))
        fail(e->value, "cluster.oversubscription",
             "expected a downlink/uplink ratio of at least 1, got '" + e->value.Scalar() + "'");
    }
    return d;
  }

 private:
  template <class T>
  T choice(const YAML::Node& n, const std::string& path, const std::vector<std::pair<std::string, T>>& options) const {
    const std::string s = scalar(n, path, "a name");
    std::vector<std::string> names;
    for (const auto& [name, value] : options) {
      if (name == s) return value;
      names.push_back(name);
    }
    fail(n, path, "expected one of " + join(names) + ", got '" + s + "'");
  }

  double number(const YAML::Node& n, const std::string& path, const std::string& expected) const {
    const std::string s = scalar(n, path, expected);
    char* end = nullptr;
    const double value = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size()) fail(n, path, "expected " + expected + ", got '" + s + "'");
    return value;
  }

  // SimGrid's parser, as for the XML's bandwidths: 100Gbps is bits, 12.5GBps bytes.
  double bandwidth(const YAML::Node& n, const std::string& path) const {
    const std::string s = scalar(n, path, "a NIC rate like 200Gbps or 25GBps");
    double value = NAN;
    try {
      value = xbt_parse_get_bandwidth("", 0, s, "");
    } catch (const std::exception&) {
      value = NAN;
    }
    if (!std::isfinite(value) || value <= 0 || value > kMaxBandwidth)
      fail(n, path, "expected a positive finite NIC rate like 200Gbps or 25GBps (at most 1e100Bps), got '" + s + "'");
    return value;
  }
};

}  // namespace

const ClusterGpuPreset* find_cluster_gpu(const std::string& name) {
  for (const ClusterGpuPreset& p : kPresets)
    if (name == p.name) return &p;
  return nullptr;
}

bool is_cluster_description(const std::string& file) {
  auto ends_with = [&](const std::string& suffix) {
    return file.size() >= suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".yaml") || ends_with(".yml");
}

ClusterDescription parse_cluster_description(const std::string& file, const std::string& text) {
  const DescriptionReader reader(file);
  return reader.parse(text, [&](const YAML::Node& root) { return reader.read(root); });
}

}  // namespace pipesim
