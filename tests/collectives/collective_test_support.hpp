// Platforms for the collective tests: boxes (host property node) whose GPUs
// have a dedicated split-duplex link per pair, one speed inside a box and
// another between boxes, so no two steps of a collective share a link; and
// the same as a hand-filled Platform (no engine) for choose_algorithm.
#pragma once

#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "tests/support/fixtures.hpp"

namespace pipesim::testing {

inline std::string box_gpu(int box, int gpu) { return "box" + std::to_string(box) + "-gpu" + std::to_string(gpu); }

inline std::string boxes_platform_xml(int boxes, int per_box, const std::string& intra_bandwidth,
                                      const std::string& intra_latency, const std::string& inter_bandwidth,
                                      const std::string& inter_latency) {
  std::string xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n";
  std::vector<std::string> hosts;
  std::vector<int> box_of;
  for (int b = 0; b < boxes; ++b)
    for (int g = 0; g < per_box; ++g) {
      hosts.push_back(box_gpu(b, g));
      box_of.push_back(b);
      xml += "<host id=\"" + hosts.back() +
             "\" speed=\"1Tf\"><prop id=\"memory\" value=\"1TiB\"/>"
             "<prop id=\"node\" value=\"box" +
             std::to_string(b) + "\"/></host>\n";
    }
  std::string routes;
  for (std::size_t i = 0; i < hosts.size(); ++i)
    for (std::size_t j = i + 1; j < hosts.size(); ++j) {
      const bool inside = box_of[i] == box_of[j];
      const std::string id = "l-" + hosts[i] + "-" + hosts[j];
      xml += "<link id=\"" + id + "\" bandwidth=\"" + (inside ? intra_bandwidth : inter_bandwidth) + "\" latency=\"" +
             (inside ? intra_latency : inter_latency) + "\" sharing_policy=\"SPLITDUPLEX\"/>\n";
      routes += "<route src=\"" + hosts[i] + "\" dst=\"" + hosts[j] + "\"><link_ctn id=\"" + id +
                "\" direction=\"UP\"/></route>\n";
    }
  return xml + routes + "</zone>\n</platform>\n";
}

// n devices, every path `latency` and `bandwidth`; node[i] when given.
inline Platform uniform_platform(int n, double latency, double bandwidth, const std::vector<std::string>& node = {}) {
  Platform p;
  p.devices.resize(n);
  p.paths.resize(static_cast<std::size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    p.devices[i].name = "gpu" + std::to_string(i);
    if (!node.empty()) p.devices[i].node = node[i];
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) p.paths[i * n + j] = Path{true, latency, bandwidth, 1};
  return p;
}

}  // namespace pipesim::testing
