// Trace lanes: tasks that overlap on one link or device go to separate
// threads, so that every thread's complete events nest (Perfetto's rule).
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include "tests/support/build_paths.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/chrome_trace.hpp"
#include "reports/track_lanes.hpp"
#include "tests/support/cli_runner.hpp"

namespace pipesim {
namespace {

using Track = std::pair<int, int>;  // pid, tid
struct Span {
  double ts, end;
  std::string name;
};

struct ParsedTrace {
  std::map<Track, std::string> thread_names;
  std::map<Track, int> sort_index;
  std::map<Track, std::vector<Span>> spans;  // complete events per thread
};

ParsedTrace parse_trace(const std::string& text) {
  const nlohmann::json tree = nlohmann::json::parse(text);
  ParsedTrace t;
  for (const nlohmann::json& e : tree.at("traceEvents")) {
    const std::string ph = e.at("ph"), name = e.at("name");
    auto track = [&] { return Track{e.at("pid").get<int>(), e.at("tid").get<int>()}; };
    if (ph == "M" && name == "thread_name") t.thread_names[track()] = e.at("args").at("name").get<std::string>();
    if (ph == "M" && name == "thread_sort_index") t.sort_index[track()] = e.at("args").at("sort_index").get<int>();
    if (ph == "X") {
      const double ts = e.at("ts").get<double>();
      t.spans[track()].push_back({ts, ts + e.at("dur").get<double>(), name});
    }
  }
  return t;
}

// Two events of one thread are disjoint or one holds the other. The numbers
// are printed with 15 significant digits, so ends may differ by that much.
void expect_nested(const ParsedTrace& t) {
  for (const auto& [track, spans] : t.spans)
    for (std::size_t i = 0; i < spans.size(); ++i)
      for (std::size_t j = i + 1; j < spans.size(); ++j) {
        const Span& a = spans[i];
        const Span& b = spans[j];
        const double eps = 1e-12 * std::max({1.0, a.end, b.end});
        const bool disjoint = a.end <= b.ts + eps || b.end <= a.ts + eps;
        const bool nested =
            (a.ts <= b.ts + eps && b.end <= a.end + eps) || (b.ts <= a.ts + eps && a.end <= b.end + eps);
        EXPECT_TRUE(disjoint || nested) << "pid " << track.first << " tid " << track.second << ": " << a.name << " ["
                                        << a.ts << ", " << a.end << ") and " << b.name << " [" << b.ts << ", " << b.end
                                        << ")";
      }
}

TEST(TrackLanes, FirstFreeLaneAtTheStart) {
  // By (start, finish): [0,2) lane 0; [1,2) lane 1; [1,3) overlaps both,
  // lane 2; [2,4) fits after [0,2) (touching is fine), lane 0; [3,5) takes
  // lane 1, free since 2, before lane 2, free since 3.
  EXPECT_EQ(assign_lanes({{0, 2}, {1, 3}, {2, 4}, {1, 2}, {3, 5}}), (std::vector<int>{0, 2, 0, 1, 1}));
  // The order of the input does not matter, only (start, finish, index).
  EXPECT_EQ(assign_lanes({{3, 5}, {1, 2}, {2, 4}, {1, 3}, {0, 2}}), (std::vector<int>{1, 1, 0, 2, 0}));
  // Equal intervals: by index.
  EXPECT_EQ(assign_lanes({{0, 1}, {0, 1}}), (std::vector<int>{0, 1}));
  EXPECT_EQ(assign_lanes({{0, 1}, {1, 2}, {2, 2}, {2, 3}}), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_TRUE(assign_lanes({}).empty());
}

// Two devices, one link "link0": transfers mb0 [1, 3] ms and mb1 [2, 4] ms
// overlap on it, then mb2 [3, 5] ms fits after mb0; on gpu1 two backwards
// [4, 6] and [5, 7] ms overlap too (a device running two tasks at once).
struct OverlappingRun {
  Platform platform;
  TaskGraph g{2};
  Timeline tl;
  OverlappingRun() {
    platform.devices = {{"gpu0", 1e12, 0, "gpu"}, {"gpu1", 1e12, 0, "gpu"}};
    tl.links = {{"link0", 1e10}};
    auto add = [&](TaskKind kind, int device, int mb, double start, double finish) {
      Task t;
      t.kind = kind;
      t.device = device;
      t.peer = is_transfer(kind) ? 1 : -1;
      t.stage = 0;
      t.microbatch = mb;
      g.add(t);
      tl.start.push_back(start * 1e-3);
      tl.finish.push_back(finish * 1e-3);
      if (is_transfer(kind)) tl.route_links.push_back(0);
      tl.route_offsets.push_back(static_cast<std::uint32_t>(tl.route_links.size()));
    };
    add(TaskKind::Forward, 0, 0, 0, 1);
    add(TaskKind::Transfer, 0, 0, 1, 3);
    add(TaskKind::Transfer, 0, 1, 2, 4);
    add(TaskKind::Transfer, 0, 2, 3, 5);
    add(TaskKind::Backward, 1, 0, 4, 6);
    add(TaskKind::Backward, 1, 1, 5, 7);
    tl.makespan = 7e-3;
  }
  std::string trace() const {
    std::ostringstream os;
    write_chrome_trace(os, g, tl, platform);
    return os.str();
  }
};

TEST(TraceLanes, OverlappingTransfersGetTwoLanesOfTheLink) {
  const ParsedTrace t = parse_trace(OverlappingRun().trace());
  // Lane 0 keeps tid = link index; the second lane takes the next tid.
  EXPECT_EQ(t.thread_names,
            (std::map<Track, std::string>{
                {{0, 0}, "gpu0"}, {{0, 1}, "gpu1"}, {{0, 2}, "gpu1 #2"}, {{1, 0}, "link0"}, {{1, 1}, "link0 #2"}}));
  EXPECT_EQ(t.sort_index, (std::map<Track, int>{{{0, 0}, 0}, {{0, 1}, 1}, {{0, 2}, 2}, {{1, 0}, 0}, {{1, 1}, 1}}));
  auto names = [&](Track track) {
    std::vector<std::string> out;
    for (const Span& s : t.spans.at(track)) out.push_back(s.name);
    return out;
  };
  EXPECT_EQ(names({1, 0}), (std::vector<std::string>{"T 0->1 mb0", "T 0->1 mb2"}));
  EXPECT_EQ(names({1, 1}), (std::vector<std::string>{"T 0->1 mb1"}));
  EXPECT_EQ(names({0, 1}), (std::vector<std::string>{"B s0 mb0"}));
  EXPECT_EQ(names({0, 2}), (std::vector<std::string>{"B s0 mb1"}));
  expect_nested(t);
  const std::string again = OverlappingRun().trace();
  EXPECT_EQ(OverlappingRun().trace(), again);
}

// FSLPP on the 8-GPU NVSwitch box fetches weights while activations travel:
// several transfers at once on some NVLinks.
TEST(TraceLanes, MasterSchedulerRunNestsOnEveryThread) {
  const std::string root = std::string(PIPESIM_SOURCE_DIR) + "/";
  const std::string trace = testing::temp_path("fslpp.trace.json");
  const testing::CliResult r = testing::run_pipesim(
      "run " + root + "platforms/nvswitch-8gpu.xml " + root +
      "workloads/examples/transformer-8.yaml --schedule-param scheme=fslpp --quiet --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ParsedTrace t = parse_trace(testing::read_text(trace));
  EXPECT_EQ(t.thread_names.at({1, 16}), "gpu0-nvlink_UP #2");  // the first extra lane
  expect_nested(t);
}

}  // namespace
}  // namespace pipesim
