#include "studies/sweep_plan.hpp"

#include <climits>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>

#include "schedules/registry.hpp"
#include "sim/input_error.hpp"
#include "sim/yaml_fields.hpp"

namespace pipesim {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kSpecKeys = {"name", "platform", "workload", "generator", "set", "grid", "zip"};
constexpr std::size_t kMaxRuns = 1000000;

// One swept dimension: its columns (one, or several zipped) and its points.
struct Dimension {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> points;  // points[i][k]: value of keys[k]
};

// A path as written in the spec, taken relative to the spec's folder.
std::string resolve(const fs::path& folder, const std::string& path) {
  return fs::path(path).is_absolute() ? path : (folder / path).lexically_normal().string();
}

// The spec's grid, from which each run is made when asked for.
struct Grid {
  std::string platform, workload;       // of every run, unless swept
  std::vector<WorkloadOverride> fixed;  // the spec's `set`
  std::vector<Dimension> dims;
  std::vector<std::string> columns;  // platform, workload, then the swept keys
  std::size_t total = 1, width = 4;
  fs::path folder;  // the spec's: relative paths are taken from it

  SweepRun run(std::size_t index) const {
    SweepRun run;
    run.id = std::to_string(index);
    run.id.insert(0, width - run.id.size(), '0');
    run.platform = platform, run.workload = workload;
    run.overrides = fixed;
    std::vector<std::pair<std::string, std::string>> chosen;
    std::size_t rest = index;
    std::vector<std::size_t> at(dims.size());
    for (std::size_t d = dims.size(); d-- > 0;) at[d] = rest % dims[d].points.size(), rest /= dims[d].points.size();
    for (std::size_t d = 0; d < dims.size(); ++d)
      for (std::size_t k = 0; k < dims[d].keys.size(); ++k)
        chosen.emplace_back(dims[d].keys[k], dims[d].points[at[d]][k]);
    for (const auto& [key, value] : chosen) {
      if (key == "platform")
        run.platform = value;
      else if (key == "workload")
        run.workload = value;
      else
        run.overrides.push_back({key, value});
    }
    for (const std::string& c : columns) {
      if (c == "platform")
        run.values.push_back(run.platform);
      else if (c == "workload")
        run.values.push_back(run.workload);
      else
        for (const auto& [key, value] : chosen)
          if (key == c) run.values.push_back(value);
    }
    if (run.platform.rfind("cluster ", 0) == 0)
      run.cluster = run.platform.substr(8);
    else
      run.platform = resolve(folder, run.platform);
    run.workload = resolve(folder, run.workload);
    return run;
  }
};

class SpecReader : public YamlFields {
 public:
  explicit SpecReader(std::string file) : YamlFields(std::move(file)) {}

  // The plan without its runs' function and inputs (load_sweep_plan adds them), and its grid.
  SweepPlan read(const YAML::Node& root, Grid& grid) {
    if (!root.IsMap()) fail(root, "document", "expected a sweep spec map with 'grid' or 'zip', got " + describe(root));
    const Fields f = fields(root, "", &kSpecKeys);
    SweepPlan plan;
    plan.name = fs::path(file()).stem().string();
    if (auto* e = get(f, "name")) plan.name = text(e->value, "name", "a sweep name");
    if (auto* e = get(f, "platform")) grid.platform = text(e->value, "platform", "a platform file");
    if (auto* e = get(f, "workload")) grid.workload = text(e->value, "workload", "a workload file");
    if (auto* e = get(f, "generator")) plan.generator = text(e->value, "generator", "the path of make_platform.py");
    if (auto* e = get(f, "set")) {
      if (!e->value.IsMap())
        fail(e->value, "set", "expected a map of overrides like {microbatches: 8}, got " + describe(e->value));
      for (const auto& [key, entry] : fields(e->value, "set", nullptr)) {
        check_override_key(entry.key, "set", key);
        grid.fixed.push_back({key, scalar(entry.value, sub("set", key), "a single value")});
      }
    }
    std::vector<Dimension>& dims = grid.dims;
    if (auto* e = get(f, "grid")) read_grid(e->value, dims);
    if (auto* e = get(f, "zip")) read_zip(e->value, dims);
    if (dims.empty()) fail(YAML::Node(), "grid", "expected at least one swept list in 'grid' or 'zip', got none");
    for (const Dimension& d : dims)
      for (const std::string& k : d.keys) {
        for (const std::string& c : plan.columns)
          if (c == k) fail(YAML::Node(), k, "swept twice (in 'grid' and 'zip', or in two zip groups)");
        plan.columns.push_back(k);
      }
    bool swept_platform = false, swept_workload = false;
    for (const std::string& c : plan.columns) swept_platform |= c == "platform", swept_workload |= c == "workload";
    if (grid.platform.empty() && !swept_platform)
      fail(YAML::Node(), "platform", "expected a platform file, in 'platform' or swept in 'grid'");
    if (grid.workload.empty() && !swept_workload)
      fail(YAML::Node(), "workload", "expected a workload file, in 'workload' or swept in 'grid'");
    // platform and workload come first, as in `pipesim run PLATFORM WORKLOAD`.
    std::vector<std::string> columns = {"platform", "workload"};
    for (const std::string& c : plan.columns)
      if (c != "platform" && c != "workload") columns.push_back(c);

    for (const Dimension& d : dims) {
      if (grid.total > kMaxRuns / d.points.size())
        fail(YAML::Node(), "grid", "expected at most " + std::to_string(kMaxRuns) + " runs, got more");
      grid.total *= d.points.size();
    }
    grid.width = std::max<std::size_t>(4, std::to_string(grid.total - 1).size());
    grid.columns = plan.columns = columns;
    plan.size = grid.total;
    return plan;
  }

 private:
  void check_override_key(const YAML::Node& at, const std::string& where, const std::string& key) const {
    try {
      parse_workload_override(key + "=x");
    } catch (const std::invalid_argument&) {
      fail(at, sub(where, key), "expected an override key like 'microbatches' or 'schedule.k'");
    }
  }

  std::vector<std::string> values(const YAML::Node& list, const std::string& path) const {
    if (!list.IsSequence()) fail(list, path, "expected a list of values, got " + describe(list));
    if (list.size() == 0) fail(list, path, "expected at least one value, got an empty list");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < list.size(); ++i)
      out.push_back(scalar(list[i], item(path, i), "a single value ('' removes the key)"));
    return out;
  }

  void read_grid(const YAML::Node& grid, std::vector<Dimension>& dims) const {
    if (!grid.IsMap()) fail(grid, "grid", "expected a map of lists like {microbatches: [4, 8]}, got " + describe(grid));
    for (auto it = grid.begin(); it != grid.end(); ++it) {  // file order: the first key varies slowest
      const std::string key = scalar(it->first, "grid", "a key name");
      check_override_key(it->first, "grid", key);
      Dimension d{{key}, {}};
      for (const std::string& v : values(it->second, sub("grid", key))) d.points.push_back({v});
      for (const Dimension& seen : dims)
        if (seen.keys[0] == key) fail(it->first, sub("grid", key), "duplicate key '" + key + "'");
      dims.push_back(std::move(d));
    }
  }

  void read_zip(const YAML::Node& zip, std::vector<Dimension>& dims) const {
    if (!zip.IsSequence() || zip.size() == 0)
      fail(zip, "zip", "expected a list of maps of equal-length lists, got " + describe(zip));
    for (std::size_t g = 0; g < zip.size(); ++g) {
      const std::string path = item("zip", g);
      const YAML::Node group = zip[g];
      if (!group.IsMap() || group.size() == 0)
        fail(group, path,
             "expected a map of equal-length lists like {schedule: [gpipe, 1f1b], microbatches: [4, 8]}, got " +
                 describe(group));
      Dimension d;
      for (auto it = group.begin(); it != group.end(); ++it) {
        const std::string key = scalar(it->first, path, "a key name");
        check_override_key(it->first, path, key);
        const std::vector<std::string> list = values(it->second, sub(path, key));
        if (d.points.empty()) d.points.resize(list.size());
        if (list.size() != d.points.size())
          fail(it->second, sub(path, key),
               "expected " + std::to_string(d.points.size()) + " values like the first list, got " +
                   std::to_string(list.size()));
        d.keys.push_back(key);
        for (std::size_t i = 0; i < list.size(); ++i) d.points[i].push_back(list[i]);
      }
      dims.push_back(std::move(d));
    }
  }
};

}  // namespace

SweepPlan load_sweep_plan(const std::string& spec, const SweepChecking& checking) {
  SpecReader reader(spec);
  auto grid = std::make_shared<Grid>();
  SweepPlan plan = reader.parse(read_yaml_file(spec), [&](const YAML::Node& root) { return reader.read(root, *grid); });
  grid->folder = fs::path(spec).parent_path();
  plan.run = [grid](std::size_t index) { return grid->run(index); };
  if (!plan.generator.empty()) plan.generator = resolve(grid->folder, plan.generator);
  // Everything a run reads is checked before any runs: a bad input is one error, not a column of failures.
  std::set<std::string> seen;
  auto input = [&](const std::string& what, const std::string& path) {
    const bool first = !path.empty() && seen.insert(path).second;
    if (first) plan.inputs.emplace_back(what, path);
    return first;
  };
  input("the sweep spec", spec);
  input("the platform generator", plan.generator);
  for (std::size_t index = 0; index < plan.size; ++index) {
    if (checking && index % 1000 == 0) checking(index, plan.size);
    const SweepRun run = plan.run(index);
    std::error_code ec;
    if (!run.cluster.empty()) {
      if (plan.generator.empty())
        throw InputError(spec, "generator",
                         "expected the path of make_platform.py for platform '" + run.platform + "'");
      if (!fs::is_regular_file(plan.generator, ec))
        throw InputError(spec, "generator", "'" + plan.generator + "' is not a file");
    } else if (input("a platform of the sweep", run.platform) && !fs::is_regular_file(run.platform, ec)) {
      throw InputError(spec, "platform", "'" + run.platform + "' is not a platform file");
    }
    input("a workload of the sweep", run.workload);
    const Workload workload = load_workload(run.workload, run.overrides);
    check_schedule(workload);
    input("a schedule file of the sweep", schedule_file_path(workload));
    if (workload.model) {
      input("a model config of the sweep", workload.model->config);
      input("a calibration file of the sweep", workload.model->calibration);
    }
  }
  if (checking) checking(plan.size, plan.size);
  return plan;
}

std::vector<std::size_t> shard_runs(const SweepPlan& plan, int index, int count) {
  std::vector<std::size_t> out;
  for (std::size_t i = static_cast<std::size_t>(index - 1); i < plan.size; i += static_cast<std::size_t>(count))
    out.push_back(i);
  return out;
}

std::pair<int, int> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  long long i = 0, n = 0;
  if (slash == std::string::npos || !YamlFields::parse_integer(text.substr(0, slash), i) ||
      !YamlFields::parse_integer(text.substr(slash + 1), n) || n < 1 || n > INT_MAX || i < 1 || i > n)
    throw std::invalid_argument("expected I/N with 1 <= I <= N, like 2/5, got '" + text + "'");
  return {static_cast<int>(i), static_cast<int>(n)};
}

}  // namespace pipesim
