// How much memory SimGrid (and pipesim's view of it) will take for a
// platform, counted from its XML before SimGrid builds anything: a
// <cluster radical="0-999999"> or a Full zone of 100,000 hosts is a few
// lines of text but tens of GiB once loaded, so it is refused with the
// figure instead of ending in std::bad_alloc or the OOM killer.
#pragma once

#include <string>

#include <boost/property_tree/ptree_fwd.hpp>

namespace pipesim {

// What SimGrid will build, counted from the XML (clusters expanded).
struct PlatformSize {
  double xml_bytes = 0;  // the text, read into a tree by the checks
  double hosts = 0;
  double links = 0;          // a SPLITDUPLEX link counts twice
  double routes = 0;         // a symmetrical route counts twice
  double route_links = 0;    // link_ctn over all routes, counted as routes are
  double table_bytes = 0;    // Full (8 bytes per pair of nodes) and Floyd (24) zones' tables
  std::string largest_zone;  // "Full zone 'z' of 4000 nodes", for the message ("" if none matters)
};

// Measured with SimGrid 3.32 (VmHWM after load and seal, then pipesim run's
// maximum resident set on the same platforms): about 1.2 KiB per host and
// 630 bytes per link in SimGrid alone, 13 KiB per host of a 3-D torus (8
// links each) in a whole run of 10,000 or 100,000 hosts; about 200 bytes per
// route of 3 to 4 links; 34 bytes per byte of XML while the checks hold its
// tree (1.0 GB for make_platform.py's 8 x 64 GPUs, 29.6 MB). Rounded up.
constexpr double kBytesPerHost = 4096;
constexpr double kBytesPerLink = 1536;
constexpr double kBytesPerRoute = 96;
constexpr double kBytesPerRouteLink = 48;
constexpr double kBytesPerXmlByte = 40;
// SimGrid's own fixed cost is in the run's estimate (sim/memory_limit.hpp).

PlatformSize count_platform(const boost::property_tree::ptree& xml);
double estimated_platform_bytes(const PlatformSize& size);

// Throws InputError "FILE: platform: this platform needs about X of memory
// to simulate (...); the limit is Y (raise it with --max-memory)" when the
// estimate exceeds LIMIT (bytes). Called on the text's size alone before
// it is parsed, then on the full count.
void check_platform_size(const std::string& file, const PlatformSize& size, double limit);

}  // namespace pipesim
