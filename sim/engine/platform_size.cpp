#include "sim/engine/platform_size.hpp"

#include <cstdlib>
#include <sstream>
#include <vector>

#include <boost/property_tree/ptree.hpp>

#include "sim/input_error.hpp"
#include "sim/units.hpp"

namespace pipesim {
namespace {

namespace pt = boost::property_tree;

std::string attribute(const pt::ptree& node, const char* name) {
  return node.get<std::string>(pt::ptree::path_type(std::string("<xmlattr>/") + name, '/'), "");
}

// The numbers of a list like "0-99,200-299,5" or "2,1;2,1;2,1;2", in order;
// a part that is not a number ends the list (SimGrid reports it).
std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  const char* p = text.c_str();
  while (*p) {
    char* end = nullptr;
    const double value = std::strtod(p, &end);
    if (end == p) break;
    out.push_back(value);
    p = end;
    while (*p == ',' || *p == ';' || *p == '-' || *p == ' ') ++p;
  }
  return out;
}

// Hosts named by a cluster's radical: "0-99,200" is 101.
double radical_count(const std::string& radical) {
  double count = 0;
  std::istringstream parts(radical);
  for (std::string part; std::getline(parts, part, ',');) {
    const std::vector<double> ends = numbers(part);
    if (ends.size() == 1) count += 1;
    if (ends.size() >= 2 && ends[1] >= ends[0]) count += ends[1] - ends[0] + 1;
  }
  return count;
}

// Links a <cluster> builds besides one private link per host (SimGrid 3.32's
// ClusterZone, TorusZone, FatTreeZone, DragonflyZone), counted generously.
double topology_links(const std::string& topology, const std::vector<double>& p, double hosts) {
  if (topology == "TORUS") return 2 * static_cast<double>(p.size()) * hosts;  // one link per dimension, both ways
  if (topology == "FAT_TREE" && !p.empty()) {
    // "levels;down...;up...;parallel...": the links above level l are its nodes x up x parallel.
    const std::size_t levels = static_cast<std::size_t>(p[0]);
    if (levels < 1 || p.size() < 1 + 3 * levels) return 0;
    double links = 0, nodes = hosts;
    for (std::size_t l = 0; l < levels; ++l) {
      const double down = p[1 + l], up = p[1 + levels + l], parallel = p[1 + 2 * levels + l];
      links += 2 * nodes * up * parallel;
      nodes = down > 0 ? nodes / down * up : 0;
    }
    return links;
  }
  if (topology == "DRAGONFLY" && p.size() >= 7) {
    // "groups,links;chassis,links;routers,links;nodes": every router's links to the others of its
    // chassis, its group's chassis and the groups, each bundle as wide as stated, both ways.
    const double groups = p[0], chassis = p[2], routers = p[4];
    const double per_router = routers * p[5] + chassis * p[3] + groups * p[1];
    return 2 * groups * chassis * routers * per_router;
  }
  return 0;
}

class Counter {
 public:
  PlatformSize size;

  void walk(const pt::ptree& node) {
    for (const auto& [name, child] : node) {
      if (name == "<xmlattr>" || name == "<xmlcomment>" || name == "<xmltext>") continue;
      element(name, child);
      walk(child);
    }
  }

 private:
  void element(const std::string& kind, const pt::ptree& node) {
    const bool both_ways = attribute(node, "symmetrical") != "NO" && attribute(node, "symmetrical") != "no";
    if (kind == "host")
      size.hosts += 1;
    else if (kind == "link")
      size.links += attribute(node, "sharing_policy") == "SPLITDUPLEX" ? 2 : 1;
    else if (kind == "backbone")
      size.links += 1;
    else if (kind == "peer")
      size.hosts += 1, size.links += 2;
    else if (kind == "route" || kind == "zoneRoute" || kind == "ASroute") {
      double hops = 0;
      for (const auto& [name, _] : node) hops += name == "link_ctn";
      size.routes += both_ways ? 2 : 1;
      size.route_links += (both_ways ? 2 : 1) * hops;
    } else if (kind == "cluster" || kind == "cabinet")
      cluster(node);
    else if (kind == "zone" || kind == "AS")
      zone(node);
  }

  void cluster(const pt::ptree& node) {
    const double hosts = radical_count(attribute(node, "radical"));
    size.hosts += hosts;
    // A loopback and a limiter per host, a backbone; then either a topology's links or a private
    // link per host (two if SPLITDUPLEX, the default).
    const double topology =
        topology_links(attribute(node, "topology"), numbers(attribute(node, "topo_parameters")), hosts);
    size.links += 2 * hosts + 1 + (topology > 0 ? topology : 2 * hosts);
  }

  void zone(const pt::ptree& node) {
    const std::string routing = attribute(node, "routing");
    const double per_pair = routing == "Full" ? 8 : routing == "Floyd" ? 24 : 0;
    if (per_pair == 0) return;
    double nodes = 0;  // the zone's own netpoints: its hosts, routers and child zones
    for (const auto& [name, _] : node)
      nodes += name == "host" || name == "router" || name == "zone" || name == "AS" || name == "cluster" ||
               name == "cabinet" || name == "peer";
    const double bytes = per_pair * nodes * nodes;
    if (bytes > largest_table_) {
      largest_table_ = bytes;
      std::ostringstream text;
      text << routing << " zone '" << attribute(node, "id") << "' of " << nodes << " nodes";
      size.largest_zone = text.str();
    }
    size.table_bytes += bytes;
  }

  double largest_table_ = 0;
};

std::string count_text(double n) {
  std::ostringstream text;
  text.precision(n < 1e15 ? 15 : 3);
  text << n;
  return text.str();
}

}  // namespace

PlatformSize count_platform(const pt::ptree& xml) {
  Counter counter;
  counter.walk(xml);
  return counter.size;
}

double estimated_platform_bytes(const PlatformSize& size) {
  return kBytesPerXmlByte * size.xml_bytes + kBytesPerHost * size.hosts + kBytesPerLink * size.links +
         kBytesPerRoute * size.routes + kBytesPerRouteLink * size.route_links + size.table_bytes;
}

void check_platform_size(const std::string& file, const PlatformSize& size, double limit) {
  const double need = estimated_platform_bytes(size);
  if (need <= limit) return;
  // What the figure comes from (the XML's tree: before it is parsed, or for text of many small elements).
  std::vector<std::string> parts;
  if (kBytesPerXmlByte * size.xml_bytes > 0.1 * need) parts.push_back(format_bytes(size.xml_bytes) + " of XML");
  if (size.hosts > 0) parts.push_back(count_text(size.hosts) + " hosts");
  if (size.links > 0) parts.push_back(count_text(size.links) + " links");
  if (size.routes > 0) parts.push_back(count_text(size.routes) + " routes");
  if (size.table_bytes > 0.1 * need) parts.push_back("the routing table of the " + size.largest_zone);
  std::string what;
  for (const std::string& part : parts) what += (what.empty() ? "" : ", ") + part;
  throw InputError(file, "platform",
                   "this platform needs about " + format_bytes(need) + " of memory to simulate (" + what +
                       "); the limit is " + format_bytes(limit) + " (raise it with --max-memory)");
}

}  // namespace pipesim
