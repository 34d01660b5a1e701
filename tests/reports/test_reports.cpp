#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "reports/chrome_trace.hpp"
#include "reports/json_report.hpp"
#include "reports/json_writer.hpp"
#include "reports/memory_csv.hpp"
#include "reports/summary.hpp"
#include "reports/violations_report.hpp"
#include "sim/format.hpp"

using namespace pipesim;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Two devices (gpu1 has 1 KiB and overflows), one link:
//   t0 F s0 mb0 on gpu0 [0, 0.001], t1 T 0->1 mb0 [0.001, 0.0015] over "link0",
//   t2 B s1 mb0 on gpu1 [0.0015, 0.0035].
struct SmallRun {
  Platform platform;
  TaskGraph g{2};
  Timeline tl;
  SmallRun() {
    platform.file = "two.xml";
    platform.devices = {{"gpu0", 1e12, 0, "gpu"}, {"gpu1", 1e12, 1024, "gpu"}};
    Task f;
    f.device = 0;
    f.stage = 0;
    f.microbatch = 0;
    f.amount = 1e9;
    g.add(f);
    Task t;
    t.kind = TaskKind::Transfer;
    t.device = 0;
    t.peer = 1;
    t.microbatch = 0;
    t.stage = 0;
    t.amount = 4096;
    g.add(t, {0});
    Task b;
    b.kind = TaskKind::Backward;
    b.device = 1;
    b.stage = 1;
    b.microbatch = 0;
    g.add(b, {1});
    g.add_static_memory(0, MemoryCategory::Weights, 512);
    g.add_memory(1, 1, MemoryCategory::CommBuffers, MemoryWhen::AtStart, 4096);
    g.add_memory(2, 1, MemoryCategory::CommBuffers, MemoryWhen::AtFinish, -4096);
    tl.start = {0, 0.001, 0.0015};
    tl.finish = {0.001, 0.0015, 0.0035};
    tl.makespan = 0.0035;
    tl.links = {{"link0", 1e10}};
    tl.route_offsets = {0, 0, 1, 1};
    tl.route_links = {0};
  }
  Metrics metrics() const { return compute_metrics(g, tl, platform, 4); }
};

template <class F>
std::string capture(F write) {
  std::ostringstream os;
  write(os);
  return os.str();
}

// Fields kept in the order written, so that an event compares whole, order included.
nlohmann::ordered_json parse_json(const std::string& text) { return nlohmann::ordered_json::parse(text); }

// The index of the first trace event named NAME with phase PH, or -1.
int event_index(const nlohmann::ordered_json& events, const std::string& name, const std::string& ph) {
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].at("name") == name && events[i].at("ph") == ph) return static_cast<int>(i);
  return -1;
}

// A run of 8 micro-batches in 2 iterations of 1.6 s whose completions are
// 0.1 s apart in the steady state, the second iteration ending 1.5 s after
// the first: the headline and the steady state differ.
Metrics two_times() {
  Metrics m;
  m.makespan = 3.2;
  m.iterations = 2;
  m.microbatches = 8;
  m.iteration_time = 1.6;
  m.steady_iteration_time = 1.5;  // the second overlapped the first's end
  m.iteration_time_per_microbatch = 0.2;
  m.time_per_microbatch = 0.1;
  m.throughput = 5;
  return m;
}

}  // namespace

TEST(ReportFormat, HumanUnits) {
  EXPECT_EQ(fmt::time(0.0123), "12.30 ms");
  EXPECT_EQ(fmt::time(2.5), "2.50 s");
  EXPECT_EQ(fmt::time(3e-6), "3.00 us");
  EXPECT_EQ(fmt::time(0), "0.00 s");
  EXPECT_EQ(fmt::bytes(1.5 * (1 << 30)), "1.50 GiB");
  EXPECT_EQ(fmt::bytes(512), "512 B");
  EXPECT_EQ(fmt::bytes(2048), "2.00 KiB");
  EXPECT_EQ(fmt::percent(0.125), "12.5 %");
  EXPECT_EQ(fmt::number(0.1 + 0.2), "0.3");
  EXPECT_EQ(fmt::number(1099511627776.0), "1099511627776");
  EXPECT_EQ(fmt::number(-0.0), "0");
  EXPECT_EQ(fmt::number(2.5e-7), "2.5e-07");
}

TEST(JsonWriter, EscapesAndNesting) {
  const std::string out = capture([](std::ostream& os) {
    JsonWriter w(os);
    w.begin_object();
    w.field("a\"b", "x\\y\n\x01");
    w.key("list");
    w.begin_array();
    w.value(1);
    w.value(2.5);
    w.value(NAN);
    w.value(true);
    w.begin_object();
    w.end_object();
    w.end_array();
    w.end_object();
  });
  EXPECT_EQ(out, R"({"a\"b":"x\\y\n\u0001","list":[1,2.5,null,true,{}]})");
}

TEST(JsonReport, KeysAndNumbers) {
  SmallRun r;
  const Metrics m = r.metrics();
  const std::string json = capture([&](std::ostream& os) { write_json_report(os, m, r.platform, "1f1b"); });
  const nlohmann::ordered_json j = parse_json(json);
  for (const char* key : {"iteration_time", "time_per_microbatch", "throughput", "makespan", "microbatches",
                          "iterations", "valid", "devices", "links", "violations"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j.at("devices").size(), 2u) << json;
  for (const nlohmann::ordered_json& device : j["devices"]) {
    for (const char* key :
         {"name", "busy_time", "idle_time", "bubble_fraction", "peak_memory", "memory_capacity", "peak_breakdown"})
      EXPECT_TRUE(device.contains(key)) << key;
    for (const char* key : {"weights", "activations", "gradients", "comm_buffers", "optimizer"})
      EXPECT_TRUE(device.at("peak_breakdown").contains(key)) << key;
  }
  EXPECT_EQ(j.at("schedule"), "1f1b") << json;
  EXPECT_EQ(j.at("makespan"), 0.0035) << json;
  EXPECT_EQ(j.at("microbatches"), 1) << json;
  EXPECT_EQ(j.at("throughput"), nlohmann::ordered_json::parse(fmt::number(4 / 0.0035))) << json;
  EXPECT_EQ(j.at("valid"), false) << json;
  const nlohmann::ordered_json& gpu1 = j["devices"][1];
  EXPECT_EQ(gpu1.at("name"), "gpu1") << json;
  EXPECT_EQ(gpu1.at("busy_time"), 0.002) << json;
  EXPECT_EQ(gpu1.at("peak_memory"), 4096) << json;
  EXPECT_EQ(gpu1.at("memory_capacity"), 1024) << json;
  EXPECT_EQ(gpu1.at("peak_breakdown").at("comm_buffers"), 4096) << json;
  ASSERT_EQ(j.at("links").size(), 1u) << json;
  EXPECT_EQ(j["links"][0].at("name"), "link0") << json;
  EXPECT_TRUE(j["links"][0].contains("bytes")) << json;
  ASSERT_EQ(j.at("violations").size(), 1u) << json;
  EXPECT_EQ(j["violations"][0].at("device"), "gpu1") << json;
  EXPECT_EQ(j["violations"][0].at("time"), 0.001) << json;
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.substr(json.size() - 2), "}\n");
  // Same input, same bytes.
  EXPECT_EQ(json, capture([&](std::ostream& os) { write_json_report(os, r.metrics(), r.platform, "1f1b"); }));
}

TEST(JsonReport, VersionFirstAndBothTimesPerMicrobatch) {
  const Platform platform;
  const std::string json = capture([&](std::ostream& os) { write_json_report(os, two_times(), platform, "gpipe"); });
  const auto tree = parse_json(json);
  EXPECT_EQ(tree.begin().key(), "version") << json;
  EXPECT_EQ(tree.at("version"), PIPESIM_VERSION);
  EXPECT_EQ(tree.at("schedule"), "gpipe");
  EXPECT_DOUBLE_EQ(tree.at("iteration_time").get<double>(), 1.6);
  EXPECT_DOUBLE_EQ(tree.at("iteration_time_per_microbatch").get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(tree.at("time_per_microbatch").get<double>(), 0.1);  // steady state, as before
}

TEST(MemoryCsv, Rows) {
  SmallRun r;
  r.platform.devices[1].name = "gpu,1";  // quoted when needed
  const std::string csv = capture([&](std::ostream& os) { write_memory_csv(os, memory_trace(r.g, r.tl), r.platform); });
  EXPECT_EQ(csv,
            "time,device,category,bytes\n"
            "0,gpu0,weights,512\n"
            "0.001,\"gpu,1\",comm_buffers,4096\n"
            "0.0035,\"gpu,1\",comm_buffers,0\n");
}

TEST(ChromeTrace, TracksEventsAndCounters) {
  SmallRun r;
  const std::string trace = capture([&](std::ostream& os) { write_chrome_trace(os, r.g, r.tl, r.platform); });
  const nlohmann::ordered_json t = parse_json(trace);
  ASSERT_EQ(t.size(), 2u) << trace;
  EXPECT_EQ(t.begin().key(), "traceEvents");
  EXPECT_EQ(t.at("displayTimeUnit"), "ms");
  const nlohmann::ordered_json& events = t.at("traceEvents");
  auto has_event = [&](const std::string& expected) {
    return std::find(events.begin(), events.end(), nlohmann::ordered_json::parse(expected)) != events.end();
  };
  EXPECT_TRUE(has_event(R"({"name":"process_name","ph":"M","pid":0,"args":{"name":"devices"}})"));
  EXPECT_TRUE(has_event(R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"links"}})"));
  EXPECT_TRUE(has_event(R"({"name":"thread_name","ph":"M","pid":0,"tid":0,"args":{"name":"gpu0"}})"));
  EXPECT_TRUE(has_event(R"({"name":"thread_name","ph":"M","pid":0,"tid":1,"args":{"name":"gpu1"}})"));
  EXPECT_TRUE(has_event(R"({"name":"thread_name","ph":"M","pid":1,"tid":0,"args":{"name":"link0"}})"));
  EXPECT_TRUE(has_event(R"({"name":"F s0 mb0","cat":"forward","ph":"X","pid":0,"tid":0,"ts":0,"dur":1000,)"
                        R"("args":{"task":0,"stage":0,"microbatch":0,"iteration":0,"flops":1000000000}})"))
      << trace;
  EXPECT_TRUE(has_event(R"({"name":"T 0->1 mb0","cat":"transfer","ph":"X","pid":1,"tid":0,"ts":1000,"dur":500,)"
                        R"("args":{"task":1,"stage":0,"microbatch":0,"iteration":0,"from":0,"to":1,"bytes":4096}})"))
      << trace;
  const int backward = event_index(events, "B s1 mb0", "X");
  ASSERT_GE(backward, 0) << trace;
  // Its first fields, in order (the rest are the task's arguments).
  const nlohmann::ordered_json b_fields = nlohmann::ordered_json::parse(
      R"({"name":"B s1 mb0","cat":"backward","ph":"X","pid":0,"tid":1,"ts":1500,"dur":2000})");
  auto field = events[backward].begin();
  for (auto want = b_fields.begin(); want != b_fields.end(); ++want, ++field) {
    ASSERT_NE(field, events[backward].end()) << trace;
    EXPECT_EQ(field.key(), want.key());
    EXPECT_EQ(field.value(), want.value()) << want.key();
  }
  EXPECT_TRUE(
      has_event(R"({"name":"memory gpu1","ph":"C","pid":0,"ts":1000,"args":{"weights":0,)"
                R"("activations":0,"gradients":0,"comm_buffers":4096,"optimizer":0,"workspace":0,"runtime":0}})"))
      << trace;
  const int gpu0_memory = event_index(events, "memory gpu0", "C");
  ASSERT_GE(gpu0_memory, 0) << trace;
  EXPECT_EQ(events[gpu0_memory].at("pid"), 0);
  EXPECT_EQ(events[gpu0_memory].at("ts"), 0);
  EXPECT_EQ(events[gpu0_memory].at("args").begin().key(), "weights");
  EXPECT_EQ(events[gpu0_memory].at("args").at("weights"), 512);
  // Metadata first, then events in time order.
  int last_metadata = -1, first_event = -1;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].at("ph") == "M") last_metadata = static_cast<int>(i);
    if (events[i].at("ph") == "X" && first_event < 0) first_event = static_cast<int>(i);
  }
  EXPECT_LT(last_metadata, first_event);
  EXPECT_LT(event_index(events, "F s0 mb0", "X"), event_index(events, "T 0->1 mb0", "X"));
  EXPECT_LT(event_index(events, "T 0->1 mb0", "X"), backward);
  const std::string tail = "\n],\"displayTimeUnit\":\"ms\"}\n";
  EXPECT_EQ(trace.substr(trace.size() - tail.size()), tail);
  EXPECT_EQ(trace, capture([&](std::ostream& os) { write_chrome_trace(os, r.g, r.tl, r.platform); }));
}

// Dumps every report for inspection (e.g. with a JSON parser) when
// PIPESIM_REPORT_DUMP names a directory.
TEST(ChromeTrace, EventNames) {
  Task t;
  t.kind = TaskKind::BackwardWeight;
  t.stage = 2;
  t.microbatch = 5;
  EXPECT_EQ(trace_event_name(t), "BW s2 mb5");
  t.kind = TaskKind::Update;
  t.microbatch = -1;
  EXPECT_EQ(trace_event_name(t), "U s2");
}

TEST(Summary, HeadlineIsIterationTimeOverMicrobatchesBesideTheSteadyState) {
  const Platform platform;
  const std::string out = capture([&](std::ostream& os) { write_summary(os, two_times(), platform, "gpipe"); });
  EXPECT_EQ(out.substr(0, out.find("verdict")),
            "schedule              gpipe\n"
            "devices               0 (0 used)\n"
            "micro-batches         8\n"
            "iterations            2\n"
            "makespan              3.20 s\n"
            "iteration time        1.60 s\n"
            "steady iteration      1.50 s (the last one's end after the previous one's)\n"
            "time per micro-batch  200.00 ms\n"
            "steady state          100.00 ms per micro-batch\n"
            "throughput            5.00 samples/s\n");
}

TEST(Summary, ValidAndInvalid) {
  SmallRun r;
  const std::string bad = capture([&](std::ostream& os) { write_summary(os, r.metrics(), r.platform, "1f1b"); });
  EXPECT_TRUE(contains(bad, "schedule")) << bad;
  EXPECT_TRUE(contains(bad, "1f1b")) << bad;
  EXPECT_TRUE(contains(bad, "3.50 ms")) << bad;
  EXPECT_TRUE(
      contains(bad, "INVALID: out of memory on gpu1 at 1.00 ms (4.00 KiB > 1.00 KiB, pushed over by comm_buffers)"))
      << bad;
  EXPECT_TRUE(contains(bad, "comm_buffers (4.00 KiB)")) << bad;
  EXPECT_TRUE(contains(bad, "link0")) << bad;
  EXPECT_TRUE(contains(bad, "unlimited")) << bad;

  r.platform.devices[1].memory = 0;
  r.tl.links.push_back({"idle_link", 1e9});
  const std::string good = capture([&](std::ostream& os) { write_summary(os, r.metrics(), r.platform, "1f1b"); });
  EXPECT_TRUE(contains(good, "VALID")) << good;
  EXPECT_FALSE(contains(good, "INVALID")) << good;
  EXPECT_FALSE(contains(good, "idle_link")) << good;  // carried nothing
  EXPECT_EQ(good, capture([&](std::ostream& os) { write_summary(os, r.metrics(), r.platform, "1f1b"); }));
}

TEST(ViolationsJson, VerdictAndViolations) {
  SmallRun r;
  const std::vector<Violation> violations = {{"memory", "gpu1 over its capacity", 1, 0.25},
                                             {"deadlock", "a cycle", -1, NAN}};
  const nlohmann::json tree =
      nlohmann::json::parse(capture([&](std::ostream& os) { write_violations_json(os, violations, r.platform); }));
  EXPECT_EQ(tree.at("verdict"), "INVALID");
  EXPECT_EQ(tree.at("violations"), nlohmann::json::parse(R"([
    {"kind": "memory", "device": "gpu1", "time": 0.25, "message": "gpu1 over its capacity"},
    {"kind": "deadlock", "device": null, "time": null, "message": "a cycle"}])"));

  const std::string valid = capture([&](std::ostream& os) { write_violations_json(os, {}, r.platform); });
  EXPECT_EQ(valid, "{\n  \"verdict\": \"VALID\",\n  \"violations\": []\n}\n");
}
