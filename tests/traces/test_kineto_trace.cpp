// Reading a PyTorch profiler trace: what is kept, in seconds from the first
// event, and one InputError line for each malformed piece.
#include <gtest/gtest.h>

#include "sim/input_error.hpp"
#include "tests/traces/synthetic_trace.hpp"
#include "traces/kineto_trace.hpp"

namespace pipesim {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_kineto_trace(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KinetoTrace, KeepsAnnotationsOpsAndKernelsInSecondsFromTheFirstEvent) {
  nlohmann::json t = testing::synthetic_trace();
  for (auto& e : t["traceEvents"]) e["ts"] = e["ts"].get<double>() + 4.8e12;  // Kineto's epoch microseconds
  const KinetoTrace trace = parse_kineto_trace(t.dump(), "t.json");
  EXPECT_EQ(trace.annotations.size(), 7u);
  EXPECT_EQ(trace.ops.size(), 13u);
  EXPECT_EQ(trace.kernels.size(), 9u);
  EXPECT_EQ(trace.annotations.front().name, "ProfilerStep#1");
  EXPECT_DOUBLE_EQ(trace.annotations.front().start, 0);
  EXPECT_NEAR(trace.annotations.front().duration, 1e-3, 1e-15);
  const TraceEvent& mm = trace.ops[1];  // by start: embedding 12, mm 40, ...
  EXPECT_EQ(mm.name, "aten::mm");
  EXPECT_NEAR(mm.start, 40e-6, 1e-9);
  EXPECT_EQ(mm.thread, "1/1");
  EXPECT_EQ(mm.external_id, 2);
  EXPECT_EQ(mm.sequence, 101);
  EXPECT_EQ(mm.input_dims, (std::vector<std::vector<long long>>{{16, 64}, {64, 64}}));
  EXPECT_EQ(trace.kernels.front().thread, "0/7");
}

TEST(KinetoTrace, EachMalformedPieceIsOneErrorLine) {
  EXPECT_EQ(error_of("{\"traceEvents\": [\n{\"ph\": \"X\",, }]}"),
            "t.json: line 2: JSON syntax error: syntax error while parsing object key - unexpected ','; expected "
            "string literal");
  EXPECT_EQ(error_of("[]"), "t.json: document: expected a JSON object (a Chrome trace), got array");
  EXPECT_EQ(error_of("{}"), "t.json: traceEvents: missing: not a PyTorch profiler trace (export_chrome_trace)");
  EXPECT_EQ(error_of("{\"traceEvents\": 3}"), "t.json: traceEvents: expected a list of events, got number");
  EXPECT_EQ(error_of("{\"traceEvents\": {}}"), "t.json: traceEvents: expected a list of events, got object");
  EXPECT_EQ(error_of("{\"traceEvents\": [], \"traceEvents\": []}"), "t.json: traceEvents: given twice");
  EXPECT_EQ(error_of("{\"traceEvents\": [1]}"), "t.json: traceEvents[0]: expected an event object, got number");
  EXPECT_EQ(error_of("{\"traceEvents\": [{}, [1]]}"), "t.json: traceEvents[1]: expected an event object, got array");
  // Other keys may hold anything, events included.
  EXPECT_EQ(error_of("{\"deviceProperties\": [{\"traceEvents\": 1}, 2], \"traceEvents\": []}"), "");
  const std::string kernel = R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, )";
  EXPECT_EQ(error_of("{\"traceEvents\": [" + kernel + "\"ts\": \"1\", \"dur\": 1}]}"),
            "t.json: traceEvents[0].ts: expected a number of microseconds, got string");
  EXPECT_EQ(error_of("{\"traceEvents\": [" + kernel + "\"ts\": 1}]}"), "t.json: traceEvents[0].dur: missing");
  EXPECT_EQ(error_of("{\"traceEvents\": [" + kernel + "\"ts\": 1, \"dur\": -2}]}"),
            "t.json: traceEvents[0].dur: expected a duration >= 0, got -2");
  EXPECT_EQ(error_of("{\"traceEvents\": [" + kernel + "\"ts\": 1, \"dur\": 2, \"args\": []}]}"),
            "t.json: traceEvents[0].args: expected an object, got array");
  EXPECT_EQ(error_of("{\"traceEvents\": [" + kernel + "\"ts\": 1, \"dur\": 2, \"args\": {\"External id\": 1.5}}]}"),
            "t.json: traceEvents[0].args.External id: expected an integer, got 1.5");
  // Events of other kinds are skipped whatever they hold.
  EXPECT_EQ(error_of(R"({"traceEvents": [{"ph": "M", "ts": "x"}, {"ph": "X", "cat": "python_function", "ts": []}]})"),
            "");
}

}  // namespace
}  // namespace pipesim
