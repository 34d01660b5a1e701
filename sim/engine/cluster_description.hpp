// A cluster of GPU boxes in a few lines of YAML (docs/platform-format.md,
// "Cluster descriptions"): the same clusters as `make_platform.py cluster`,
// built through SimGrid's C++ interface with every route computed when it is
// asked for (cluster_zone.hpp), so 1,024 or 8,192 GPUs load in a fraction of
// a second where the XML that writes out every route takes 100 MB and more.
#pragma once

#include <string>

namespace pipesim {

// make_platform.py's presets (its docstring cites the figures): the host
// speed and memory as SimGrid text, NVLink and PCIe in GB/s per direction,
// the device type of devices/device_presets, and the model's name.
struct ClusterGpuPreset {
  const char* name;
  const char* speed;
  const char* memory;
  double nvlink_gbytes;
  double pcie_gbytes;
  const char* device_type;
  const char* model;
};
// nullptr when NAME is not one of A100, H100, H200, MI300X.
const ClusterGpuPreset* find_cluster_gpu(const std::string& name);

enum class BoxFabric { NvSwitch, NvLinkMesh, Pcie };
enum class BoxNetwork { FatTree, Rail, Ethernet };

struct ClusterDescription {
  int boxes = 1;
  int gpus = 0;  // per box
  const ClusterGpuPreset* gpu = nullptr;
  BoxFabric fabric = BoxFabric::NvSwitch;
  BoxNetwork network = BoxNetwork::FatTree;
  double nic = 12.5e9;  // bytes per second: per GPU (fat-tree, rail) or per box (ethernet)
  double oversubscription = 1;
  long long devices() const { return static_cast<long long>(boxes) * gpus; }
};

// The most GPUs a description may have (as make_platform.py's clusters).
constexpr long long kMaxClusterGpus = 1000000;

// A platform file ending in .yaml or .yml is a cluster description; any
// other is SimGrid XML.
bool is_cluster_description(const std::string& file);

// Reads TEXT (FILE's content). Throws InputError "FILE: line N: cluster.FIELD:
// WHAT" on a missing or unknown field, a value out of range, or more than
// kMaxClusterGpus GPUs. Uses SimGrid's unit parser for `nic`, as the XML's
// bandwidths: call it while an Engine exists (its log threshold set).
ClusterDescription parse_cluster_description(const std::string& file, const std::string& text);

}  // namespace pipesim
