// The inputs of the whole-command comparison (pipesim against SimGrid
// alone), written for both
// `pipesim run` and the bare SimGrid reference (bench/bare/bare_pipeline.cpp):
// P uniform stages (F = 1 s, B = 2 s on 1 Tf GPUs), 1 GB of activations
// between neighbours, each GPU on its own 25 GB/s, 1 us split-duplex link to
// one switch. Memory is 64 TiB so that GPipe at M = 10^4 (10 TB of stashed
// activations on stage 0) stays a valid run.
#pragma once

#include <string>

namespace pipesim::bench {

inline constexpr double kForwardFlops = 1e12, kBackwardFlops = 2e12, kActivationBytes = 1e9;

inline std::string star_platform_xml(int P) {
  std::string xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n  <zone id=\"box\" routing=\"Floyd\">\n";
  for (int i = 0; i < P; ++i)
    xml += "    <host id=\"gpu" + std::to_string(i) + "\" speed=\"1Tf\"><prop id=\"memory\" value=\"64TiB\"/></host>\n";
  xml += "    <router id=\"switch\"/>\n";
  for (int i = 0; i < P; ++i)
    xml += "    <link id=\"l" + std::to_string(i) +
           "\" bandwidth=\"25GBps\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n";
  for (int i = 0; i < P; ++i)
    xml += "    <route src=\"gpu" + std::to_string(i) + "\" dst=\"switch\"><link_ctn id=\"l" + std::to_string(i) +
           "\" direction=\"UP\"/></route>\n";
  return xml + "  </zone>\n</platform>\n";
}

// SCHEDULE: 1f1b or gpipe, one iteration with flush.
inline std::string uniform_workload_yaml(const std::string& schedule, int P, int M) {
  return "name: bench\nmicrobatches: " + std::to_string(M) +
         "\nlayers:\n  - name: l\n    forward: 1s\n    backward: 2s\n    activation: 1GB\n    repeat: " +
         std::to_string(P) + "\nschedule: " + schedule + "\nplacement: auto\n";
}

}  // namespace pipesim::bench
