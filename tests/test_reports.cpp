#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

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

boost::property_tree::ptree parse_json(const std::string& text) {
  std::istringstream in(text);
  boost::property_tree::ptree tree;
  boost::property_tree::read_json(in, tree);
  return tree;
}

// A run of 8 micro-batches in 2 iterations of 1.6 s whose completions are
// 0.1 s apart in the steady state: the headline and the steady state differ.
Metrics two_times() {
  Metrics m;
  m.makespan = 3.2;
  m.iterations = 2;
  m.microbatches = 8;
  m.iteration_time = 1.6;
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
  for (const char* key : {"iteration_time", "time_per_microbatch",
                          "throughput",     "makespan",
                          "microbatches",   "iterations",
                          "valid",          "devices",
                          "name",           "busy_time",
                          "idle_time",      "bubble_fraction",
                          "peak_memory",    "memory_capacity",
                          "peak_breakdown", "weights",
                          "activations",    "gradients",
                          "comm_buffers",   "optimizer",
                          "links",          "bytes",
                          "violations"})
    EXPECT_TRUE(contains(json, std::string("\"") + key + "\":")) << key;
  EXPECT_TRUE(contains(json, "\"schedule\": \"1f1b\"")) << json;
  EXPECT_TRUE(contains(json, "\"makespan\": 0.0035")) << json;
  EXPECT_TRUE(contains(json, "\"microbatches\": 1")) << json;
  EXPECT_TRUE(contains(json, "\"throughput\": " + fmt::number(4 / 0.0035))) << json;
  EXPECT_TRUE(contains(json, "\"valid\": false")) << json;
  EXPECT_TRUE(contains(json, "\"name\": \"gpu1\"")) << json;
  EXPECT_TRUE(contains(json, "\"busy_time\": 0.002")) << json;
  EXPECT_TRUE(contains(json, "\"peak_memory\": 4096")) << json;
  EXPECT_TRUE(contains(json, "\"memory_capacity\": 1024")) << json;
  EXPECT_TRUE(contains(json, "\"comm_buffers\": 4096")) << json;
  EXPECT_TRUE(contains(json, "\"name\": \"link0\"")) << json;
  EXPECT_TRUE(contains(json, "\"device\": \"gpu1\"")) << json;
  EXPECT_TRUE(contains(json, "\"time\": 0.001,")) << json;
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.substr(json.size() - 2), "}\n");
  // Same input, same bytes.
  EXPECT_EQ(json, capture([&](std::ostream& os) { write_json_report(os, r.metrics(), r.platform, "1f1b"); }));
}

TEST(JsonReport, VersionFirstAndBothTimesPerMicrobatch) {
  const Platform platform;
  const std::string json = capture([&](std::ostream& os) { write_json_report(os, two_times(), platform, "gpipe"); });
  EXPECT_EQ(json.rfind(std::string("{\n  \"version\": \"") + PIPESIM_VERSION + "\",\n", 0), 0u) << json;
  const auto tree = parse_json(json);
  EXPECT_EQ(tree.get<std::string>("version"), PIPESIM_VERSION);
  EXPECT_EQ(tree.get<std::string>("schedule"), "gpipe");
  EXPECT_DOUBLE_EQ(tree.get<double>("iteration_time"), 1.6);
  EXPECT_DOUBLE_EQ(tree.get<double>("iteration_time_per_microbatch"), 0.2);
  EXPECT_DOUBLE_EQ(tree.get<double>("time_per_microbatch"), 0.1);  // steady state, as before
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
  EXPECT_EQ(trace.rfind("{\"traceEvents\":[", 0), 0u);
  EXPECT_TRUE(contains(trace, R"({"name":"process_name","ph":"M","pid":0,"args":{"name":"devices"}})"));
  EXPECT_TRUE(contains(trace, R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"links"}})"));
  EXPECT_TRUE(contains(trace, R"({"name":"thread_name","ph":"M","pid":0,"tid":0,"args":{"name":"gpu0"}})"));
  EXPECT_TRUE(contains(trace, R"({"name":"thread_name","ph":"M","pid":0,"tid":1,"args":{"name":"gpu1"}})"));
  EXPECT_TRUE(contains(trace, R"({"name":"thread_name","ph":"M","pid":1,"tid":0,"args":{"name":"link0"}})"));
  EXPECT_TRUE(contains(trace, R"({"name":"F s0 mb0","cat":"forward","ph":"X","pid":0,"tid":0,"ts":0,"dur":1000,)"
                              R"("args":{"task":0,"stage":0,"microbatch":0,"iteration":0,"flops":1000000000}})"))
      << trace;
  EXPECT_TRUE(contains(trace,
                       R"({"name":"T 0->1 mb0","cat":"transfer","ph":"X","pid":1,"tid":0,"ts":1000,"dur":500,)"
                       R"("args":{"task":1,"stage":0,"microbatch":0,"iteration":0,"from":0,"to":1,"bytes":4096}})"))
      << trace;
  EXPECT_TRUE(contains(trace, R"({"name":"B s1 mb0","cat":"backward","ph":"X","pid":0,"tid":1,"ts":1500,"dur":2000,)"))
      << trace;
  EXPECT_TRUE(
      contains(trace, R"({"name":"memory gpu1","ph":"C","pid":0,"ts":1000,"args":{"weights":0,)"
                      R"("activations":0,"gradients":0,"comm_buffers":4096,"optimizer":0,"workspace":0,"runtime":0}})"))
      << trace;
  EXPECT_TRUE(contains(trace, R"({"name":"memory gpu0","ph":"C","pid":0,"ts":0,"args":{"weights":512,)"));
  // Metadata first, then events in time order.
  EXPECT_LT(trace.find("thread_name"), trace.find("\"ph\":\"X\""));
  EXPECT_LT(trace.find("F s0 mb0"), trace.find("T 0->1 mb0"));
  EXPECT_LT(trace.find("T 0->1 mb0"), trace.find("B s1 mb0"));
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
  const auto tree = parse_json(capture([&](std::ostream& os) { write_violations_json(os, violations, r.platform); }));
  EXPECT_EQ(tree.get<std::string>("verdict"), "INVALID");
  std::vector<std::string> rows;
  for (const auto& [key, v] : tree.get_child("violations"))
    rows.push_back(v.get<std::string>("kind") + "|" + v.get<std::string>("device") + "|" + v.get<std::string>("time") +
                   "|" + v.get<std::string>("message"));
  // property_tree reads JSON null as "null".
  EXPECT_EQ(rows, (std::vector<std::string>{"memory|gpu1|0.25|gpu1 over its capacity", "deadlock|null|null|a cycle"}));

  const std::string valid = capture([&](std::ostream& os) { write_violations_json(os, {}, r.platform); });
  EXPECT_EQ(valid, "{\n  \"verdict\": \"VALID\",\n  \"violations\": []\n}\n");
}
