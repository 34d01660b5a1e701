#include "sim/engine/platform_check.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <xbt/parse_units.hpp>

#include "sim/engine/platform_size.hpp"
#include "sim/input_error.hpp"
#include "sim/input_file.hpp"
#include "sim/units.hpp"

namespace pipesim {
namespace {

namespace pt = boost::property_tree;

// Limits far above any real device, below what breaks SimGrid's arithmetic
// (bandwidth 1e308 aborts it); 1e30Bps, a common stand-in for "free
// transfers", stays allowed.
constexpr double kMaxBandwidth = 1e100;  // B/s
constexpr double kMaxSpeed = 1e100;      // flop/s
constexpr double kMaxLatency = 1e9;      // seconds, about 32 years

const std::set<std::string> kRoutings = {"Full", "Floyd",   "Dijkstra", "DijkstraCache",
                                         "None", "Vivaldi", "Cluster",  "Wifi"};

struct StartTag {
  std::string name;
  int line;
};

// Boost.PropertyTree keeps no line numbers: list the start tags in document
// order (the order of a pre-order walk of the tree) with their lines.
std::vector<StartTag> scan_start_tags(const std::string& text) {
  std::vector<StartTag> tags;
  int line = 1;
  size_t counted = 0;  // text[0, counted) has been counted into line
  auto line_at = [&](size_t pos) {
    for (; counted < pos; ++counted)
      if (text[counted] == '\n') ++line;
    return line;
  };
  auto skip_past = [&](size_t from, const char* end) {
    const size_t at = text.find(end, from);
    return at == std::string::npos ? text.size() : at + std::char_traits<char>::length(end);
  };
  for (size_t i = text.find('<'); i != std::string::npos && i < text.size(); i = text.find('<', i)) {
    if (text.compare(i, 4, "<!--") == 0)
      i = skip_past(i, "-->");
    else if (text.compare(i, 9, "<![CDATA[") == 0)
      i = skip_past(i, "]]>");
    else if (text.compare(i, 2, "<?") == 0)
      i = skip_past(i, "?>");
    else if (text.compare(i, 2, "<!") == 0) {  // DOCTYPE, possibly with an internal subset
      const size_t bracket = text.find('[', i), close = text.find('>', i);
      i = bracket != std::string::npos && bracket < close ? skip_past(skip_past(bracket, "]"), ">") : skip_past(i, ">");
    } else if (text.compare(i, 2, "</") == 0)
      i = skip_past(i, ">");
    else {
      size_t end = i + 1;
      while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != '>' &&
             text[end] != '/')
        ++end;
      tags.push_back({text.substr(i + 1, end - i - 1), line_at(i)});
      i = end;
    }
  }
  return tags;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  if (parts.empty()) parts.push_back(text);
  return parts;
}

// What a SimGrid unit parser objected to, without its "Parse error at :0: " prefix.
std::string parser_complaint(const std::exception& e) {
  const std::string what = e.what();
  const size_t at = what.find(":0: ");
  return at == std::string::npos ? what : what.substr(at + 4);
}

class Checker {
 public:
  Checker(const std::string& file, const std::vector<StartTag>& tags, const std::map<std::string, std::string>& config)
      : file_(file), tags_(tags) {
    const auto get = [&](const char* key) {
      const auto it = config.find(key);
      return it == config.end() ? std::string() : it->second;
    };
    constant_network_ = get("network/model") == "Constant";
    single_core_ = get("cpu/optim") == "TI";
    for (const auto& tag : tags)
      if (tag.name == "cluster" || tag.name == "cabinet" || tag.name == "peer") generated_names_ = true;
  }

  void check(const pt::ptree& root) { walk(root, Context{}); }
  bool time_varying() const { return time_varying_; }

 private:
  struct Context {
    std::string zone;
    std::string parent_kind;  // "host", "cluster", ...
    std::string parent_id;
  };

  void walk(const pt::ptree& node, const Context& context) {
    for (const auto& [name, child] : node) {
      if (name == "<xmlattr>" || name == "<xmlcomment>" || name == "<xmltext>") continue;
      int line = 0;
      if (next_tag_ < tags_.size() && tags_[next_tag_].name == name)
        line = tags_[next_tag_].line;
      else
        lines_known_ = false;  // the scan and the tree disagree: stop quoting lines
      ++next_tag_;
      element(name, child, lines_known_ ? line : 0, context);
    }
  }

  void element(const std::string& kind, const pt::ptree& node, int line, const Context& context) {
    line_ = line;
    element_ = kind;
    if (kind == "trace" || kind == "trace_connect") time_varying_ = true;
    if (const auto attributes = node.get_child_optional("<xmlattr>"))
      for (const auto& [name, value] : *attributes)
        if (name.size() > 5 && name.compare(name.size() - 5, 5, "_file") == 0) time_varying_ = true;
    Context inner = context;
    if (kind == "zone" || kind == "AS") {
      const std::string id = required(node, "id");
      element_ = "zone '" + id + "'";
      unique(zones_, id, "zone");
      const std::string routing = required(node, "routing");
      if (kRoutings.count(routing) == 0) {
        std::string list;
        for (const auto& r : kRoutings) list += (list.empty() ? "" : ", ") + r;
        fail("routing", "expected one of " + list + ", got '" + routing + "'");
      }
      inner.zone = id;
    } else if (kind == "host") {
      const std::string id = required(node, "id");
      element_ = "host '" + id + "'";
      unique(nodes_, id, "host or router");
      speeds(node, "speed");
      cores(node);
      inner.parent_kind = "host";
      inner.parent_id = id;
    } else if (kind == "router") {
      const std::string id = required(node, "id");
      element_ = "router '" + id + "'";
      unique(nodes_, id, "host or router");
    } else if (kind == "link" || kind == "backbone") {
      const std::string id = required(node, "id");
      element_ = kind + " '" + id + "'";
      no_links_under_constant();
      unique(links_, id, "link");
      if (optional(node, "sharing_policy") == "SPLITDUPLEX") {
        unique(links_, id + "_UP", "link");
        unique(links_, id + "_DOWN", "link");
      }
      for (const auto& bw : split(required(node, "bandwidth"), ',')) bandwidth("bandwidth", bw);
      latency("latency", optional(node, "latency", "0"));
    } else if (kind == "route" || kind == "zoneRoute" || kind == "ASroute") {
      route(kind, node, context.zone);
    } else if (kind == "link_ctn") {
      const std::string id = required(node, "id");
      if (!generated_names_ && links_.count(id) == 0)
        fail("id", "unknown link '" + id + "' (declare it before the route)");
    } else if (kind == "cluster" || kind == "cabinet" || kind == "peer") {
      const std::string id = required(node, "id");
      element_ = kind + " '" + id + "'";
      no_links_under_constant();
      unique(zones_, id, "zone");
      speeds(node, "speed");
      if (kind != "peer") cores(node);
      for (const char* bw : {"bw", "bb_bw", "bw_in", "bw_out", "loopback_bw", "limiter_link"})
        if (!optional(node, bw).empty()) bandwidth(bw, optional(node, bw));
      for (const char* lat : {"lat", "bb_lat", "loopback_lat"})
        if (!optional(node, lat).empty()) latency(lat, optional(node, lat));
      inner.parent_kind = kind;
      inner.parent_id = id;
    } else if (kind == "prop") {
      if (optional(node, "id") == "memory" && (context.parent_kind == "host" || context.parent_kind == "cluster"))
        memory(optional(node, "value"), context);
    }
    // Profiles once the element is named ("host 'gpu0'"), for the message.
    if (kind == "trace" && !optional(node, "file").empty()) profile("file", optional(node, "file"));
    if (const auto attributes = node.get_child_optional("<xmlattr>"))
      for (const auto& [name, value] : *attributes)
        if (name.size() > 5 && name.compare(name.size() - 5, 5, "_file") == 0) profile(name, value.data());
    walk(node, inner);
  }

  void route(const std::string& kind, const pt::ptree& node, const std::string& zone) {
    const bool between_zones = kind != "route";
    const std::string src = required(node, "src"), dst = required(node, "dst");
    element_ = (between_zones ? "zoneRoute " : "route ") + src + " -> " + dst;
    const auto& known = between_zones ? zones_ : nodes_;
    for (const char* end : {"src", "dst"}) {
      const std::string& name = *end == 's' ? src : dst;
      if (!generated_names_ && known.count(name) == 0)
        fail(end, std::string("unknown ") + (between_zones ? "zone" : "host or router") + " '" + name +
                      "' (declare it before the route)");
    }
    if (between_zones)
      for (const char* gateway : {"gw_src", "gw_dst"}) {
        const std::string name = required(node, gateway);
        if (!generated_names_ && nodes_.count(name) == 0)
          fail(gateway, "unknown host or router '" + name + "' (declare it before the route)");
      }
    if (src == dst) fail("dst", "a route from '" + src + "' to itself is not allowed");
    const std::string symmetrical = optional(node, "symmetrical", "YES");
    const bool both_ways = symmetrical != "NO" && symmetrical != "no";
    const std::string key = zone + '\n' + (between_zones ? "zone" : "node") + '\n';
    auto earlier = routes_.find(key + src + '\n' + dst);
    if (earlier == routes_.end() && both_ways) earlier = routes_.find(key + dst + '\n' + src);
    if (earlier != routes_.end())
      fail("src and dst", "duplicate of the route declared at line " + std::to_string(earlier->second) +
                              " (routes are symmetrical unless symmetrical=\"NO\")");
    routes_.emplace(key + src + '\n' + dst, line_);
    if (both_ways) routes_.emplace(key + dst + '\n' + src, line_);
  }

  // SimGrid reads a profile from the working directory or beside the
  // platform: whichever exist must pass the checks of any input (no FIFO,
  // no /dev/zero), and one must exist (a missing one aborts SimGrid).
  void profile(const std::string& attribute, const std::string& path) {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates = {path};
    if (fs::path(path).is_relative()) candidates.push_back(fs::path(file_).parent_path() / path);
    bool found = false;
    for (const fs::path& candidate : candidates) {
      std::error_code ec;
      if (fs::status(candidate, ec).type() == fs::file_type::not_found) continue;
      found = true;
      try {
        read_input_file(candidate.string(), "a profile file");
      } catch (const InputError& e) {
        fail(attribute, e.what());
      }
    }
    if (!found)
      fail(attribute, "'" + path + "': no such file (looked in the working directory and beside the platform)");
  }

  void speeds(const pt::ptree& node, const char* attribute) {
    const std::string text = required(node, attribute);
    for (const auto& speed : split(text, ',')) {  // one speed per pstate
      double value = NAN;
      std::string complaint;
      try {
        value = xbt_parse_get_speed("", 0, speed, element_);
      } catch (const std::exception& e) {
        complaint = " (" + parser_complaint(e) + ")";
      }
      if (!complaint.empty() || !std::isfinite(value) || value <= 0)
        fail(attribute, "expected a positive finite speed like '156Tf', got '" + speed + "'" + complaint);
      if (value > kMaxSpeed) fail(attribute, "expected at most 1e100f, got '" + speed + "'");
    }
  }

  void cores(const pt::ptree& node) {
    const std::string text = optional(node, "core");
    if (text.empty()) return;
    char* end = nullptr;
    errno = 0;
    const long count = std::strtol(text.c_str(), &end, 10);
    if (end != text.c_str() + text.size() || errno != 0 || count < 1 || count > INT_MAX)
      fail("core", "expected a whole number of cores from 1 to " + std::to_string(INT_MAX) + ", got '" + text + "'");
    if (count > 1 && single_core_)
      fail("core", text +
                       " cores need cpu/optim:Lazy (pipesim's default) or Full: --cfg cpu/optim:TI handles one core "
                       "per host");
  }

  void bandwidth(const std::string& attribute, const std::string& text) {
    double value = NAN;
    std::string complaint;
    try {
      value = xbt_parse_get_bandwidth("", 0, text, element_);
    } catch (const std::exception& e) {
      complaint = " (" + parser_complaint(e) + ")";
    }
    if (!complaint.empty() || !std::isfinite(value) || value <= 0)
      fail(attribute, "expected a positive finite bandwidth like '25GBps', got '" + text + "'" + complaint);
    if (value > kMaxBandwidth) fail(attribute, "expected at most 1e100Bps, got '" + text + "'");
  }

  void latency(const std::string& attribute, const std::string& text) {
    double value = NAN;
    std::string complaint;
    try {
      value = xbt_parse_get_time("", 0, text, element_);
    } catch (const std::exception& e) {
      complaint = " (" + parser_complaint(e) + ")";
    }
    if (!complaint.empty() || !std::isfinite(value) || value < 0)
      fail(attribute, "expected a finite latency >= 0 like '1us', got '" + text + "'" + complaint);
    if (value > kMaxLatency) fail(attribute, "expected at most 1e9s, got '" + text + "'");
  }

  // Same wording as the reader (sim/engine/platform_reader.cpp), with the line.
  void memory(const std::string& text, const Context& context) {
    const std::string field = context.parent_kind + " '" + context.parent_id + "' property memory";
    double bytes = 0;
    try {
      bytes = parse_bytes(text);
    } catch (const std::invalid_argument& e) {
      throw InputError(file_, where() + field, e.what());
    }
    if (!(bytes > 0) || !std::isfinite(bytes))
      throw InputError(file_, where() + field, "expected a positive size like '80GiB', got '" + text + "'");
  }

  void no_links_under_constant() const {
    if (constant_network_)
      throw InputError("--cfg", "network/model:Constant",
                       "needs a platform without links, but " + file_ + " declares " + element_ +
                           (line_ > 0 ? " at line " + std::to_string(line_) : std::string()) +
                           " (SimGrid's Constant model has no links)");
  }

  void unique(std::map<std::string, int>& seen, const std::string& id, const std::string& what) {
    const auto [it, inserted] = seen.emplace(id, line_);
    if (!inserted)
      fail("id", "a " + what + " named '" + id + "' is already declared" +
                     (it->second > 0 ? " at line " + std::to_string(it->second) : std::string()));
  }

  std::string required(const pt::ptree& node, const char* attribute) {
    const auto value = node.get_optional<std::string>(pt::ptree::path_type(std::string("<xmlattr>/") + attribute, '/'));
    if (!value) fail(attribute, "missing (required)");
    return *value;
  }

  static std::string optional(const pt::ptree& node, const char* attribute, const std::string& fallback = "") {
    return node.get<std::string>(pt::ptree::path_type(std::string("<xmlattr>/") + attribute, '/'), fallback);
  }

  std::string where() const { return line_ > 0 ? "line " + std::to_string(line_) + ": " : ""; }

  [[noreturn]] void fail(const std::string& attribute, const std::string& what) const {
    throw InputError(file_, where() + element_ + ": " + attribute, what);
  }

  const std::string& file_;
  const std::vector<StartTag>& tags_;
  size_t next_tag_ = 0;
  bool lines_known_ = true;
  int line_ = 0;
  std::string element_;  // "link 'l1'", for messages
  bool constant_network_ = false;
  bool single_core_ = false;
  bool generated_names_ = false;
  bool time_varying_ = false;  // a profile (availability_file, bandwidth_file, <trace>, ...)  // clusters name their
                               // own hosts and links: skip reference checks
  std::map<std::string, int> nodes_, zones_, links_, routes_;  // name -> line
};

}  // namespace

bool check_platform_file(const std::string& file, const std::string& text,
                         const std::map<std::string, std::string>& simgrid_config, double memory_limit) {
  PlatformSize size;
  size.xml_bytes = static_cast<double>(text.size());
  check_platform_size(file, size, memory_limit);  // the tree below takes memory too
  pt::ptree tree;
  try {
    std::istringstream xml(text);
    pt::read_xml(xml, tree);
  } catch (const pt::xml_parser_error& e) {
    // Reported here, not by SimGrid: its parser builds what it has read
    // before it finds the mistake, a huge cluster included.
    throw InputError(file, "line " + std::to_string(e.line()) + ": XML syntax error", single_line(e.message()));
  }
  size = count_platform(tree);
  size.xml_bytes = static_cast<double>(text.size());
  check_platform_size(file, size, memory_limit);
  const std::vector<StartTag> tags = scan_start_tags(text);  // the checker keeps a reference
  Checker checker(file, tags, simgrid_config);
  checker.check(tree);
  return checker.time_varying();
}

}  // namespace pipesim
