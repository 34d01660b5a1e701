// Test helpers: temporary files and small SimGrid platforms written on the fly.
#pragma once

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

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

// Seed 000's abstract platform: p devices, a dedicated split-duplex link per pair.
inline std::string complete_platform_xml(int p, const std::string& bandwidth = "1GBps",
                                         const std::string& latency = "0s", const std::string& speed = "1Tf",
                                         const std::string& memory = "1TiB") {
  std::string xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n";
  for (int i = 0; i < p; ++i)
    xml += "<host id=\"gpu" + std::to_string(i) + "\" speed=\"" + speed + "\"><prop id=\"memory\" value=\"" + memory +
           "\"/></host>\n";
  std::string routes;  // the DTD wants every link before the first route
  for (int i = 0; i < p; ++i)
    for (int j = i + 1; j < p; ++j) {
      const std::string id = "l" + std::to_string(i) + "-" + std::to_string(j);
      xml += "<link id=\"" + id + "\" bandwidth=\"" + bandwidth + "\" latency=\"" + latency +
             "\" sharing_policy=\"SPLITDUPLEX\"/>\n";
      routes += "<route src=\"gpu" + std::to_string(i) + "\" dst=\"gpu" + std::to_string(j) + "\"><link_ctn id=\"" +
                id + "\" direction=\"UP\"/></route>\n";
    }
  xml += routes;
  return xml + "</zone>\n</platform>\n";
}

inline std::string complete_platform(int p, const std::string& bandwidth = "1GBps", const std::string& latency = "0s",
                                     const std::string& speed = "1Tf", const std::string& memory = "1TiB") {
  return write_file("complete-" + std::to_string(p) + ".xml",
                    complete_platform_xml(p, bandwidth, latency, speed, memory));
}

}  // namespace pipesim::testing
