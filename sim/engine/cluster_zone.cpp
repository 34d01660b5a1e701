#include "sim/engine/cluster_zone.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace pipesim {
namespace {

using simgrid::kernel::resource::StandardLinkImpl;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::Route;

// A link crossed one way: UP from the first node of its XML route to the second.
struct Hop {
  int link = 0;
  bool up = true;
};

// make_platform.py's numbers as SimGrid text, so that both parse to the same doubles.
std::string gbytes(double gigabytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%gGBps", gigabytes);
  return text;
}

class BoxClusterZone : public simgrid::kernel::routing::NetZoneImpl {
 public:
  explicit BoxClusterZone(const ClusterDescription& d) : NetZoneImpl("cluster"), d_(d) {}

  void build() {
    simgrid::s4u::NetZone* zone = get_iface();
    const ClusterGpuPreset& gpu = *d_.gpu;
    for (int b = 0; b < d_.boxes; ++b)
      for (int i = 0; i < d_.gpus; ++i) {
        simgrid::s4u::Host* host = zone->create_host(name(b, i), gpu.speed);
        host->set_property("memory", gpu.memory);
        host->set_property("device", gpu.device_type);
        host->set_property("node", "box" + std::to_string(b));
      }
    if (d_.fabric == BoxFabric::NvLinkMesh) {
      const std::string per_pair = gbytes(gpu.nvlink_gbytes / std::max(1, d_.gpus - 1));
      for (int b = 0; b < d_.boxes; ++b)
        for (int i = 0; i < d_.gpus; ++i)
          for (int j = i + 1; j < d_.gpus; ++j)
            add_link(name(b, i) + "-" + std::to_string(j) + "-nvlink", per_pair, "1us");
    } else {
      const bool nvswitch = d_.fabric == BoxFabric::NvSwitch;
      const std::string bandwidth = gbytes(nvswitch ? gpu.nvlink_gbytes : gpu.pcie_gbytes);
      for (int b = 0; b < d_.boxes; ++b)
        for (int i = 0; i < d_.gpus; ++i) add_link(name(b, i) + (nvswitch ? "-nvlink" : "-pcie"), bandwidth, "1us");
    }
    if (d_.boxes > 1) {
      const double nic = d_.nic / 1e9;
      nic_ = static_cast<int>(links_.size());
      if (d_.network == BoxNetwork::Ethernet) {
        for (int b = 0; b < d_.boxes; ++b) add_link("box" + std::to_string(b) + "-nic", gbytes(nic), "10us");
        add_link("core", gbytes(d_.boxes * nic / d_.oversubscription), "0us");
      } else {
        for (int b = 0; b < d_.boxes; ++b)
          for (int i = 0; i < d_.gpus; ++i) add_link(name(b, i) + "-nic", gbytes(nic), "2us");
        uplink_ = static_cast<int>(links_.size());
        if (d_.network == BoxNetwork::FatTree)
          for (int b = 0; b < d_.boxes; ++b)
            add_link("box" + std::to_string(b) + "-uplink", gbytes(d_.gpus * nic / d_.oversubscription), "0us");
      }
    }
    zone->seal();
  }

  // The XML's route for the lower-numbered host to the higher; the other way
  // its reverse, each link crossed the other way (a symmetrical <route>),
  // but between two rails of two boxes: PXN moves the data to the
  // destination's rail inside the source box whichever way it goes (the
  // XML's two symmetrical="NO" routes).
  void get_local_route(const NetPoint* src, const NetPoint* dst, Route* into, double* latency) override {
    const long from = static_cast<long>(src->id()), to = static_cast<long>(dst->id());
    if (from == to) return;
    const int g = d_.gpus;
    const bool one_way = d_.network == BoxNetwork::Rail && from / g != to / g && from % g != to % g;
    std::vector<Hop> hops = one_way ? route(from, to) : route(std::min(from, to), std::max(from, to));
    if (!one_way && from > to) {
      std::reverse(hops.begin(), hops.end());
      for (Hop& h : hops) h.up = !h.up;
    }
    for (const Hop& h : hops) {
      const DuplexLink& link = links_[h.link];
      into->link_list_.push_back(h.up ? link.up : link.down);
      if (latency) *latency += link.latency;
    }
  }

 private:
  std::string name(int b, int i) const {
    return d_.boxes > 1 ? "box" + std::to_string(b) + "-gpu" + std::to_string(i) : "gpu" + std::to_string(i);
  }

  void add_link(const std::string& name, const std::string& bandwidth, const std::string& latency) {
    simgrid::s4u::SplitDuplexLink* link = get_iface()->create_split_duplex_link(name, bandwidth);
    link->set_latency(latency);
    links_.push_back({link->get_link_up()->get_impl(), link->get_link_down()->get_impl(), link->get_latency()});
  }

  // make_platform.py's inside(): from GPU i to GPU j of box b.
  void inside(int b, int i, int j, std::vector<Hop>& hops) const {
    const int g = d_.gpus;
    if (d_.fabric == BoxFabric::NvLinkMesh) {
      const int lo = std::min(i, j), hi = std::max(i, j);
      // Box b's pairs (lo, hi), lo < hi, in the order build() created them.
      const int index = b * (g * (g - 1) / 2) + lo * g - lo * (lo + 1) / 2 + (hi - lo - 1);
      hops.push_back({index, i < j});
      return;
    }
    hops.push_back({b * g + i, true});
    hops.push_back({b * g + j, false});
  }

  // make_platform.py's between(): from GPU i of box a to GPU j of box b.
  std::vector<Hop> route(long from, long to) const {
    const int g = d_.gpus;
    const int a = static_cast<int>(from / g), i = static_cast<int>(from % g);
    const int b = static_cast<int>(to / g), j = static_cast<int>(to % g);
    std::vector<Hop> hops;
    if (a == b) {
      inside(a, i, j, hops);
      return hops;
    }
    switch (d_.network) {
      case BoxNetwork::Ethernet:
        hops = {{nic_ + a, true}, {nic_ + d_.boxes, true}, {nic_ + b, false}};
        break;
      case BoxNetwork::FatTree:
        hops = {{nic_ + a * g + i, true}, {uplink_ + a, true}, {uplink_ + b, false}, {nic_ + b * g + j, false}};
        break;
      case BoxNetwork::Rail:  // first to the GPU on rail j inside box a (PXN)
        if (i != j) inside(a, i, j, hops);
        hops.push_back({nic_ + a * g + j, true});
        hops.push_back({nic_ + b * g + j, false});
        break;
    }
    return hops;
  }

  ClusterDescription d_;
  struct DuplexLink {
    StandardLinkImpl* up;
    StandardLinkImpl* down;
    double latency;  // seconds, each way
  };
  std::vector<DuplexLink> links_;  // in creation order
  int nic_ = 0;                    // first NIC link
  int uplink_ = 0;                 // first box uplink (fat-tree)
};

}  // namespace

void build_cluster_platform(const ClusterDescription& description) {
  auto* zone = new BoxClusterZone(description);  // owned by SimGrid's engine, as the zones it creates
  zone->build();
}

ClusterCounts count_cluster(const ClusterDescription& d) {
  const double gpus = static_cast<double>(d.devices());
  double links = d.fabric == BoxFabric::NvLinkMesh ? d.boxes * (d.gpus * (d.gpus - 1.0) / 2) : gpus;
  if (d.boxes > 1)
    links += d.network == BoxNetwork::Ethernet  ? d.boxes + 1.0
             : d.network == BoxNetwork::FatTree ? gpus + d.boxes
                                                : gpus;
  return {gpus, 2 * links};
}

}  // namespace pipesim
