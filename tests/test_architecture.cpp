// The house shows the flow (docs/architecture.md): folders include one
// another one way only, each layer only what lies below it, and the
// architecture document names exactly the folders that hold code.
#include <gtest/gtest.h>
#include "tests/support/build_paths.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = PIPESIM_SOURCE_DIR;
// Code of the program itself; tests and benchmarks sit beside it.
const std::vector<std::string> kCodeTops = {"sim",         "devices",  "traces",      "models",   "workloads",
                                            "layout",      "folding",  "collectives", "patterns", "schedules",
                                            "parallelism", "analysis", "reports",     "studies",  "cli"};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// folder -> folders its files include (project headers only, other folders).
std::map<std::string, std::set<std::string>> folder_includes() {
  std::map<std::string, std::set<std::string>> deps;
  const std::regex include(R"(#include\s+"([^"]+)/[^/"]+")");
  for (const std::string& top : kCodeTops)
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp") continue;
      const std::string folder = fs::relative(entry.path().parent_path(), kRoot).generic_string();
      deps[folder];
      const std::string text = read(entry.path());
      for (std::sregex_iterator m(text.begin(), text.end(), include), end; m != end; ++m)
        if ((*m)[1] != folder) deps[folder].insert((*m)[1]);
    }
  return deps;
}

bool under(const std::string& folder, const std::string& top) {
  return folder == top || folder.rfind(top + "/", 0) == 0;
}

}  // namespace

TEST(Architecture, FoldersIncludeEachOtherOneWayOnly) {
  const auto deps = folder_includes();
  std::map<std::string, int> index;
  for (const auto& [folder, _] : deps) index.emplace(folder, static_cast<int>(index.size()));
  boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS> graph(index.size());
  for (const auto& [folder, targets] : deps)
    for (const std::string& t : targets) {
      ASSERT_TRUE(index.count(t)) << folder << " includes from " << t << ", which holds no code";
      boost::add_edge(index.at(folder), index.at(t), graph);
    }
  std::vector<int> order;
  EXPECT_NO_THROW(boost::topological_sort(graph, std::back_inserter(order)))
      << "two folders include each other, directly or through others";
  // And no pair directly (the message names them).
  for (const auto& [a, targets] : deps)
    for (const std::string& b : targets) EXPECT_FALSE(deps.at(b).count(a)) << a << " <-> " << b;
}

// What each layer may not see: generators know nothing of SimGrid or of what
// reads timelines; collectives know only sim/'s contracts; the engine knows
// no schedule; analysis reads timelines, not the engine; only studies and
// the CLI drive the engine.
TEST(Architecture, EachLayerSeesOnlyWhatLiesBelow) {
  const std::map<std::string, std::vector<std::string>> forbidden = {
      {"sim",
       {"devices", "traces", "models", "workloads", "layout", "folding", "collectives", "patterns", "schedules",
        "parallelism", "analysis", "reports", "studies", "cli"}},
      {"devices",
       {"traces", "models", "workloads", "layout", "folding", "collectives", "patterns", "schedules", "parallelism",
        "sim/engine", "analysis", "reports", "studies", "cli"}},
      // A trace becomes a calibration of the device model's op keys: it knows no model or workload.
      {"traces",
       {"models", "workloads", "layout", "folding", "collectives", "patterns", "schedules", "parallelism", "sim/engine",
        "analysis", "reports", "studies", "cli"}},
      {"models",
       {"traces", "workloads", "layout", "folding", "collectives", "patterns", "schedules", "parallelism", "sim/engine",
        "analysis", "reports", "studies", "cli"}},
      {"workloads",
       {"layout", "folding", "collectives", "patterns", "schedules", "parallelism", "sim/engine", "analysis", "reports",
        "studies", "cli"}},
      // The layout maps ranks to devices; collectives become transfers of a
      // task graph: neither knows a schedule, and collectives know no workload.
      {"layout",
       {"folding", "collectives", "patterns", "schedules", "parallelism", "sim/engine", "analysis", "reports",
        "studies", "cli"}},
      // Folding finds alike replicas from the layout and the platform's routes: it builds nothing.
      {"folding",
       {"collectives", "patterns", "schedules", "parallelism", "sim/engine", "analysis", "reports", "studies", "cli"}},
      {"collectives",
       {"devices", "traces", "models", "workloads", "layout", "folding", "patterns", "schedules", "parallelism",
        "sim/engine", "analysis", "reports", "studies", "cli"}},
      {"patterns", {"folding", "parallelism", "sim/engine", "analysis", "reports", "studies", "cli", "schedules"}},
      {"schedules", {"folding", "parallelism", "sim/engine", "analysis", "reports", "studies", "cli"}},
      {"parallelism", {"sim/engine", "analysis", "reports", "studies", "cli"}},
      {"sim/engine",
       {"devices", "traces", "models", "workloads", "layout", "folding", "collectives", "patterns", "schedules",
        "parallelism", "analysis", "reports", "studies", "cli"}},
      {"analysis", {"folding", "schedules", "parallelism", "sim/engine", "reports", "studies", "cli"}},
      {"reports", {"folding", "schedules", "parallelism", "sim/engine", "studies", "cli"}},
      {"studies", {"cli"}},
  };
  for (const auto& [folder, targets] : folder_includes())
    for (const auto& [layer, banned] : forbidden) {
      // sim/engine is its own layer, not part of sim's rules.
      if (!under(folder, layer) || (layer == "sim" && under(folder, "sim/engine"))) continue;
      for (const std::string& t : targets)
        for (const std::string& b : banned)
          EXPECT_FALSE(under(t, b)) << folder << " includes from " << t << " (" << layer << " must not see " << b
                                    << ")";
    }
}

// A module's *_internal.hpp exposes pieces to its tests only: no other folder's code includes it.
TEST(Architecture, InternalHeadersStayInTheirFolder) {
  const std::regex include(R"re(#include\s+"(([^"]+)/[^/"]+_internal\.hpp)")re");
  for (const std::string& top : kCodeTops)
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp") continue;
      const std::string folder = fs::relative(entry.path().parent_path(), kRoot).generic_string();
      const std::string text = read(entry.path());
      for (std::sregex_iterator m(text.begin(), text.end(), include), end; m != end; ++m)
        EXPECT_EQ((*m)[2], folder) << fs::relative(entry.path(), kRoot).generic_string() << " includes " << (*m)[1];
    }
}

// A test lives in the folder of what it tests (tests/sim/engine/ for
// sim/engine/); support/ and fuzz/ hold what serves, or crosses, every layer.
TEST(Architecture, TestFoldersMirrorTheSourceTree) {
  for (const auto& entry : fs::recursive_directory_iterator(kRoot / "tests")) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".cpp" || name.rfind("test_", 0) != 0) continue;
    const std::string folder = fs::relative(entry.path().parent_path(), kRoot / "tests").generic_string();
    if (folder == "." || folder == "fuzz") continue;
    EXPECT_TRUE(fs::is_directory(kRoot / folder))
        << "tests/" << folder << "/" << name << ": no source folder " << folder;
  }
}

TEST(Architecture, DocumentNamesEveryFolderThatHoldsCode) {
  const std::string doc = read(kRoot / "docs/architecture.md");
  std::set<std::string> code_folders;
  for (const auto& [folder, _] : folder_includes()) code_folders.insert(folder);
  for (const std::string& folder : code_folders)
    EXPECT_NE(doc.find("`" + folder + "/`"), std::string::npos) << "docs/architecture.md does not name " << folder;
  // Every folder the document names exists.
  const std::regex named("`([a-z_]+(?:/[a-z_]+)*)/`");
  for (std::sregex_iterator m(doc.begin(), doc.end(), named), end; m != end; ++m)
    EXPECT_TRUE(fs::is_directory(kRoot / (*m)[1].str())) << "docs/architecture.md names " << (*m)[1] << "/";
}
