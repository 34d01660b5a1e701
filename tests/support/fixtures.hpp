// Test helpers: temporary files and the SimGrid platforms that tests share, written on the fly.
#pragma once

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace pipesim::testing {

// The message of the E that f() throws, or "no error".
template <typename E, typename F>
std::string error_message(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "no error";
}

// A fresh file path under the system temp directory, unique per process.
inline std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("pipesim-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

inline std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

// --- Platforms --------------------------------------------------------------
// One zone of SimGrid's platform format 4.1, built element by element. Elements
// are written in the order the DTD wants: hosts, routers, links, then routes.
struct Prop {
  std::string id, value;
};

struct LinkUse {
  std::string id;
  std::string direction;  // "UP" or "DOWN" for a SPLITDUPLEX link, "" otherwise
};

class PlatformXml {
 public:
  explicit PlatformXml(std::string routing = "Full", std::string zone = "z")
      : routing_(std::move(routing)), zone_(std::move(zone)) {}

  // ATTRIBUTES: more attributes of the host element, written as given (e.g. `availability_file="f"`).
  PlatformXml& host(const std::string& id, const std::string& speed, const std::vector<Prop>& props = {},
                    const std::string& attributes = "") {
    hosts_ += "<host id=\"" + id + "\" speed=\"" + speed + "\"" + (attributes.empty() ? "" : " " + attributes) + ">";
    for (const Prop& p : props) hosts_ += "<prop id=\"" + p.id + "\" value=\"" + p.value + "\"/>";
    hosts_ += "</host>\n";
    return *this;
  }
  PlatformXml& router(const std::string& id) {
    routers_ += "<router id=\"" + id + "\"/>\n";
    return *this;
  }
  // SHARING: SimGrid's sharing_policy; "" leaves it out (SHARED, SimGrid's default).
  PlatformXml& link(const std::string& id, const std::string& bandwidth, const std::string& latency,
                    const std::string& sharing = "") {
    links_ += "<link id=\"" + id + "\" bandwidth=\"" + bandwidth + "\" latency=\"" + latency + "\"" +
              (sharing.empty() ? "" : " sharing_policy=\"" + sharing + "\"") + "/>\n";
    return *this;
  }
  // Symmetrical: SimGrid derives the way back, each link of a SPLITDUPLEX pair in the other direction.
  PlatformXml& route(const std::string& src, const std::string& dst, const std::vector<LinkUse>& links,
                     bool symmetrical = true) {
    routes_ += "<route src=\"" + src + "\" dst=\"" + dst + "\"" + (symmetrical ? "" : " symmetrical=\"NO\"") + ">";
    for (const LinkUse& l : links)
      routes_ +=
          "<link_ctn id=\"" + l.id + "\"" + (l.direction.empty() ? "" : " direction=\"" + l.direction + "\"") + "/>";
    routes_ += "</route>\n";
    return *this;
  }

  std::string xml() const {
    return "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
           "<platform version=\"4.1\">\n<zone id=\"" +
           zone_ + "\" routing=\"" + routing_ + "\">\n" + hosts_ + routers_ + links_ + routes_ +
           "</zone>\n</platform>\n";
  }
  // Written to a temporary file; returns its path.
  std::string write(const std::string& name) const { return write_file(name, xml()); }

 private:
  std::string routing_, zone_, hosts_, routers_, links_, routes_;
};

// A device's properties: its memory ("" for none: not a device) and any others after it.
inline std::vector<Prop> device_props(const std::string& memory, const std::vector<Prop>& more = {}) {
  std::vector<Prop> props;
  if (!memory.empty()) props.push_back({"memory", memory});
  props.insert(props.end(), more.begin(), more.end());
  return props;
}

// Seed 000's abstract platform: p devices gpu0..gpu{p-1}, a dedicated split-duplex
// link "l{i}-{j}" per pair. MISSING_ROUTE ("gpu0>gpu2") leaves that pair unconnected.
inline PlatformXml complete_platform_builder(int p, const std::string& bandwidth = "1GBps",
                                             const std::string& latency = "0s", const std::string& speed = "1Tf",
                                             const std::string& memory = "1TiB", const std::vector<Prop>& props = {},
                                             const std::string& missing_route = "") {
  PlatformXml x;
  for (int i = 0; i < p; ++i) x.host("gpu" + std::to_string(i), speed, device_props(memory, props));
  for (int i = 0; i < p; ++i)
    for (int j = i + 1; j < p; ++j) {
      const std::string id = "l" + std::to_string(i) + "-" + std::to_string(j);
      x.link(id, bandwidth, latency, "SPLITDUPLEX");
      const std::string src = "gpu" + std::to_string(i), dst = "gpu" + std::to_string(j);
      if (src + ">" + dst != missing_route) x.route(src, dst, {{id, "UP"}});
    }
  return x;
}

inline std::string complete_platform_xml(int p, const std::string& bandwidth = "1GBps",
                                         const std::string& latency = "0s", const std::string& speed = "1Tf",
                                         const std::string& memory = "1TiB", const std::vector<Prop>& props = {}) {
  return complete_platform_builder(p, bandwidth, latency, speed, memory, props).xml();
}

inline std::string complete_platform(int p, const std::string& bandwidth = "1GBps", const std::string& latency = "0s",
                                     const std::string& speed = "1Tf", const std::string& memory = "1TiB") {
  return write_file("complete-" + std::to_string(p) + ".xml",
                    complete_platform_xml(p, bandwidth, latency, speed, memory));
}

// N devices PREFIX0.. with no link at all (a device alone, or devices that never talk);
// ATTRIBUTES go on every host element.
inline std::string hosts_platform_xml(int n, const std::string& prefix = "gpu", const std::string& speed = "1Tf",
                                      const std::string& memory = "1TiB", const std::string& attributes = "") {
  PlatformXml x;
  for (int i = 0; i < n; ++i) x.host(prefix + std::to_string(i), speed, device_props(memory), attributes);
  return x.xml();
}

// p devices gpu0.. around a router ROUTER, each on its own link "gpu{i}-link"
// (SPLITDUPLEX ones used UP towards the router); Floyd routing finds the paths.
inline std::string switch_star_platform_xml(int p, const std::string& sharing, const std::string& bandwidth = "1GBps",
                                            const std::string& latency = "0s", const std::string& router = "switch") {
  PlatformXml x("Floyd");
  for (int i = 0; i < p; ++i) x.host("gpu" + std::to_string(i), "1Tf", device_props("1TiB"));
  x.router(router);
  const std::string direction = sharing == "SPLITDUPLEX" ? "UP" : "";
  for (int i = 0; i < p; ++i) {
    const std::string id = "gpu" + std::to_string(i) + "-link";
    x.link(id, bandwidth, latency, sharing).route("gpu" + std::to_string(i), router, {{id, direction}});
  }
  return x.xml();
}

// p devices gpu0.. each with a link "l{i}" of its own and no router: the route
// between two devices crosses both their links, in a Full zone.
inline std::string host_links_platform_xml(int p, const std::string& sharing, const std::string& bandwidth = "1GBps",
                                           const std::string& latency = "0s") {
  PlatformXml x;
  for (int i = 0; i < p; ++i) x.host("gpu" + std::to_string(i), "1Tf", device_props("1TiB"));
  for (int i = 0; i < p; ++i) x.link("l" + std::to_string(i), bandwidth, latency, sharing);
  for (int i = 0; i < p; ++i)
    for (int j = i + 1; j < p; ++j)
      x.route("gpu" + std::to_string(i), "gpu" + std::to_string(j),
              {{"l" + std::to_string(i), ""}, {"l" + std::to_string(j), ""}});
  return x.xml();
}

}  // namespace pipesim::testing
