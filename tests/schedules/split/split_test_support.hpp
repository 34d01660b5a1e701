// Platforms and chains for the `split` schedule's tests: homogeneous
// workers with a CPU (the device host) and a GPU (a resource host), joined
// by one star of links; random chains from test_split_random.hpp.
#pragma once

#include <string>
#include <vector>

#include "tests/support/fixtures.hpp"
#include "tests/schedules/split/test_split_random.hpp"
#include "workloads/workload.hpp"

namespace pipesim::testing {

struct SplitResourceSpeeds {
  double cpu_forward, cpu_backward, gpu_forward, gpu_backward;  // flop/s
};

// `devices` workers "w0".."w{n-1}", each with a link of `bandwidth` to one router.
inline std::string split_platform_xml(int devices, const SplitResourceSpeeds& s, const std::string& bandwidth = "1TBps",
                                      const std::string& latency = "0s") {
  auto f = [](double v) { return std::to_string(v) + "f"; };
  std::string hosts, links, routes;
  for (int i = 0; i < devices; ++i) {
    const std::string w = "w" + std::to_string(i);
    hosts += "<host id=\"" + w + "\" speed=\"" + f(s.cpu_forward) + "\"><prop id=\"memory\" value=\"1TiB\"/>" +
             "<prop id=\"resource\" value=\"cpu\"/><prop id=\"backward_speed\" value=\"" + f(s.cpu_backward) +
             "\"/></host>\n";
    hosts += "<host id=\"" + w + "-gpu\" speed=\"" + f(s.gpu_forward) + "\"><prop id=\"resource_of\" value=\"" + w +
             "\"/><prop id=\"resource\" value=\"gpu\"/><prop id=\"backward_speed\" value=\"" + f(s.gpu_backward) +
             "\"/></host>\n";
    links += "<link id=\"" + w + "-net\" bandwidth=\"" + bandwidth + "\" latency=\"" + latency +
             "\" sharing_policy=\"SPLITDUPLEX\"/>\n";
    links += "<link id=\"" + w + "-local\" bandwidth=\"1TBps\" latency=\"0s\"/>\n";
    routes += "<route src=\"" + w + "\" dst=\"hub\"><link_ctn id=\"" + w + "-net\" direction=\"UP\"/></route>\n";
    routes += "<route src=\"" + w + "\" dst=\"" + w + "-gpu\"><link_ctn id=\"" + w + "-local\"/></route>\n";
  }
  return "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\"><zone id=\"z\" routing=\"Floyd\">\n" +
         hosts + "<router id=\"hub\"/>\n" + links + routes + "</zone></platform>\n";
}

// Heterogeneous devices "d0".."d{n-1}" on a star of `bandwidth` links: device
// i has a CPU (its host) and, if speeds[i].gpu_forward > 0, a GPU.
inline std::string split_mixed_platform_xml(const std::vector<SplitResourceSpeeds>& speeds,
                                            const std::string& bandwidth = "1TBps") {
  auto f = [](double v) { return std::to_string(v) + "f"; };
  std::string hosts, links, routes;
  for (std::size_t i = 0; i < speeds.size(); ++i) {
    const SplitResourceSpeeds& s = speeds[i];
    const std::string d = "d" + std::to_string(i);
    hosts += "<host id=\"" + d + "\" speed=\"" + f(s.cpu_forward) + "\"><prop id=\"memory\" value=\"1TiB\"/>" +
             "<prop id=\"resource\" value=\"cpu\"/><prop id=\"backward_speed\" value=\"" + f(s.cpu_backward) +
             "\"/></host>\n";
    links +=
        "<link id=\"" + d + "-net\" bandwidth=\"" + bandwidth + "\" latency=\"0s\" sharing_policy=\"SPLITDUPLEX\"/>\n";
    routes += "<route src=\"" + d + "\" dst=\"hub\"><link_ctn id=\"" + d + "-net\" direction=\"UP\"/></route>\n";
    if (s.gpu_forward > 0) {
      hosts += "<host id=\"" + d + "-gpu\" speed=\"" + f(s.gpu_forward) + "\"><prop id=\"resource_of\" value=\"" + d +
               "\"/><prop id=\"resource\" value=\"gpu\"/><prop id=\"backward_speed\" value=\"" + f(s.gpu_backward) +
               "\"/></host>\n";
      links += "<link id=\"" + d + "-local\" bandwidth=\"1TBps\" latency=\"0s\"/>\n";
      routes += "<route src=\"" + d + "\" dst=\"" + d + "-gpu\"><link_ctn id=\"" + d + "-local\"/></route>\n";
    }
  }
  return "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\"><zone id=\"z\" routing=\"Floyd\">\n" +
         hosts + "<router id=\"hub\"/>\n" + links + routes + "</zone></platform>\n";
}

// A random chain of 4-16 layers: forward 1-10 Gflop, backward 1-3 times it,
// activations up to 1 MB, weights up to 10 MB.
inline Workload random_split_chain(std::uint64_t seed, int microbatches) {
  split::testing::SplitRng rng(seed);
  Workload w;
  w.file = "random.yaml";
  w.name = "random";
  w.microbatches = microbatches;
  w.schedule = "split";
  const int L = rng.integer(4, 16);
  for (int l = 0; l < L; ++l) {
    Layer layer;
    layer.name = "l" + std::to_string(l);
    layer.forward = {rng.uniform(1e9, 1e10), true};
    layer.backward = {layer.forward.value * rng.uniform(1, 3), true};
    layer.activation = rng.uniform(0, 1e6);
    layer.weights = rng.uniform(0, 1e7);
    w.layers.push_back(layer);
  }
  w.input = 1e5;
  return w;
}

}  // namespace pipesim::testing
