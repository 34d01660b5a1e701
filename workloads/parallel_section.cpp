#include "workloads/parallel_section.hpp"

#include <algorithm>
#include <climits>
#include <set>

#include "sim/units.hpp"

namespace pipesim {
namespace {

const std::vector<std::string> kKeys = {"tp",
                                        "pp",
                                        "dp",
                                        "order",
                                        "devices",
                                        "gpus",
                                        "zero",
                                        "bucket",
                                        "overlap_gradient_reduce",
                                        "overlap_param_gather",
                                        "overlap_tp",
                                        "overlap_p2p",
                                        "scatter_gather",
                                        "tp_algorithm",
                                        "dp_algorithm"};
const std::vector<std::string> kAlgorithms = {"auto", "ring", "tree", "hierarchical"};

std::string algorithm(const YamlFields& r, const YAML::Node& n, const std::string& path) {
  const std::string given = YamlFields::lower(r.text(n, path, YamlFields::join(kAlgorithms)));
  if (std::find(kAlgorithms.begin(), kAlgorithms.end(), given) == kAlgorithms.end())
    r.fail(n, path, "expected one of " + YamlFields::join(kAlgorithms) + ", got '" + n.Scalar() + "'");
  return given;
}

// "tp-dp-pp" or any order of the three, innermost first.
std::string order(const YamlFields& r, const YAML::Node& n) {
  const std::string given = YamlFields::lower(r.text(n, "parallel.order", "an order like tp-dp-pp"));
  std::string rest = given;
  std::multiset<std::string> parts;
  for (std::size_t at = 0; at <= rest.size();) {
    const std::size_t dash = std::min(rest.find('-', at), rest.size());
    parts.insert(rest.substr(at, dash - at));
    at = dash + 1;
  }
  if (parts != std::multiset<std::string>{"dp", "pp", "tp"})
    r.fail(n, "parallel.order",
           "expected tp, dp and pp each once, innermost first, like tp-dp-pp (Megatron's default), got '" + n.Scalar() +
               "'");
  return given;
}

}  // namespace

void load_parallel_section(const YamlFields& r, const YAML::Node& n, Workload& w) {
  if (!n.IsMap()) r.fail(n, "parallel", "expected a map like {tp: 8, pp: 4, dp: 2}, got " + YamlFields::describe(n));
  const YamlFields::Fields f = r.fields(n, "parallel", &kKeys);
  Parallel& p = w.parallel;
  p.given = true;
  auto size = [&](const char* key, int& field, int min) {
    if (auto* e = YamlFields::get(f, key))
      field = static_cast<int>(
          r.integer(e->value, YamlFields::sub("parallel", key), "an integer >= " + std::to_string(min), min, 1000000));
  };
  size("tp", p.tp, 1);
  size("pp", p.pp, 1);
  size("dp", p.dp, 1);
  if (auto* e = YamlFields::get(f, "order")) p.order = order(r, e->value);
  if (auto* e = YamlFields::get(f, "devices")) {
    if (!e->value.IsSequence() || e->value.size() == 0)
      r.fail(e->value, "parallel.devices",
             "expected a list of host names, one per rank, got " + YamlFields::describe(e->value));
    std::set<std::string> seen;
    std::size_t i = 0;
    for (auto it = e->value.begin(); it != e->value.end(); ++it, ++i) {
      const std::string path = YamlFields::item("parallel.devices", i);
      const std::string name = r.text(*it, path, "a host name");
      if (!seen.insert(name).second)
        r.fail(*it, path, "host '" + name + "' is given twice: two ranks would share one device");
      p.devices.push_back(name);
    }
  }
  if (auto* e = YamlFields::get(f, "gpus")) {
    if (!p.devices.empty())
      r.fail(e->value, "parallel.gpus", "give gpus (the platform's first N compute devices) or devices, not both");
    p.gpus = static_cast<int>(r.integer(e->value, "parallel.gpus", "an integer >= 1", 1, 1000000));
  }
  if (auto* e = YamlFields::get(f, "zero"))
    p.zero = static_cast<int>(r.integer(e->value, "parallel.zero", "a ZeRO stage 0, 1, 2 or 3", 0, 3));
  if (auto* e = YamlFields::get(f, "bucket")) {
    p.bucket_bytes = r.quantity(e->value, "parallel.bucket", "a byte size like '80MiB'", parse_bytes);
    if (p.bucket_bytes <= 0) r.fail(e->value, "parallel.bucket", "expected a positive byte size like '80MiB'");
  }
  if (auto* e = YamlFields::get(f, "overlap_gradient_reduce"))
    p.overlap_gradient_reduce = r.boolean(e->value, "parallel.overlap_gradient_reduce");
  if (auto* e = YamlFields::get(f, "overlap_param_gather"))
    p.overlap_param_gather = r.boolean(e->value, "parallel.overlap_param_gather");
  if (auto* e = YamlFields::get(f, "overlap_tp")) p.overlap_tp = r.boolean(e->value, "parallel.overlap_tp");
  if (auto* e = YamlFields::get(f, "overlap_p2p")) p.overlap_p2p = r.boolean(e->value, "parallel.overlap_p2p");
  if (auto* e = YamlFields::get(f, "scatter_gather")) p.scatter_gather = r.boolean(e->value, "parallel.scatter_gather");
  if (auto* e = YamlFields::get(f, "tp_algorithm")) p.tp_algorithm = algorithm(r, e->value, "parallel.tp_algorithm");
  if (auto* e = YamlFields::get(f, "dp_algorithm")) p.dp_algorithm = algorithm(r, e->value, "parallel.dp_algorithm");
  if (p.zero >= 1) {  // the distributed optimizer: state and step sharded over the dp ranks
    w.optimizer.distributed = true;
    w.optimizer.data_parallel = p.dp;
  }
}

}  // namespace pipesim
