#include "traces/kineto_trace.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/input_error.hpp"
#include "sim/input_file.hpp"
#include "sim/json_input.hpp"

namespace pipesim {
namespace {

using nlohmann::json;

struct EventReader {
  const json& event;
  std::string where;  // "traceEvents[N]"
  const std::string& path;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(path, where + (field.empty() ? "" : "." + field), single_line(what));
  }
  // Microseconds, as Kineto writes them.
  double micros(const char* key) const {
    if (!event.contains(key)) fail(key, "missing");
    const json& v = event.at(key);
    if (!v.is_number()) fail(key, "expected a number of microseconds, got " + std::string(v.type_name()));
    const double x = v.get<double>();
    if (!std::isfinite(x) || std::fabs(x) > 1e18)
      fail(key, "expected a finite number of microseconds, got " + v.dump());
    return x;
  }
  std::string id(const char* key) const {
    if (!event.contains(key)) return "";
    const json& v = event.at(key);
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<long long>());
    fail(key, "expected a number or a string, got " + std::string(v.type_name()));
  }
  long long integer_arg(const json& args, const char* key) const {
    if (!args.contains(key)) return -1;
    const json& v = args.at(key);
    if (!v.is_number_integer()) fail(std::string("args.") + key, "expected an integer, got " + v.dump());
    return v.get<long long>();
  }
  // "Input Dims": one list per argument; tensors are lists of integers, other arguments [].
  std::vector<std::vector<long long>> dims(const json& args) const {
    std::vector<std::vector<long long>> out;
    if (!args.contains("Input Dims")) return out;
    const json& all = args.at("Input Dims");
    if (!all.is_array()) fail("args.Input Dims", "expected a list of shapes, got " + std::string(all.type_name()));
    for (const json& shape : all) {
      std::vector<long long> d;
      if (shape.is_array())
        for (const json& x : shape)
          if (x.is_number_integer()) d.push_back(x.get<long long>());
      out.push_back(std::move(d));
    }
    return out;
  }
};

// One element of traceEvents, kept when it is a complete event of a category read.
void add_event(KinetoTrace& trace, const json& e, std::size_t index) {
  const EventReader r{e, "traceEvents[" + std::to_string(index) + "]", trace.file};
  if (!e.is_object()) r.fail("", "expected an event object, got " + std::string(e.type_name()));
  // Only complete events ("X") of the categories read; the rest (flows, metadata) is skipped.
  if (!e.contains("cat") || !e.at("cat").is_string() || e.value("ph", json()) != json("X")) return;
  const std::string cat = e.at("cat").get<std::string>();
  std::vector<TraceEvent>* into = cat == "user_annotation"                                        ? &trace.annotations
                                  : cat == "cpu_op"                                               ? &trace.ops
                                  : cat == "kernel" || cat == "gpu_memset" || cat == "gpu_memcpy" ? &trace.kernels
                                                                                                  : nullptr;
  if (!into) return;
  TraceEvent event;
  if (!e.contains("name") || !e.at("name").is_string()) r.fail("name", "expected the event's name");
  event.name = e.at("name").get<std::string>();
  event.start = r.micros("ts");
  event.duration = r.micros("dur");
  if (event.duration < 0) r.fail("dur", "expected a duration >= 0, got " + e.at("dur").dump());
  event.thread = r.id("pid") + "/" + r.id("tid");
  if (e.contains("args")) {
    const json& args = e.at("args");
    if (!args.is_object()) r.fail("args", "expected an object, got " + std::string(args.type_name()));
    event.external_id = r.integer_arg(args, "External id");
    event.sequence = r.integer_arg(args, "Sequence number");
    if (cat == "cpu_op") event.input_dims = r.dims(args);
  }
  into->push_back(std::move(event));
}

}  // namespace

KinetoTrace parse_kineto_trace(const std::string& text, const std::string& path) {
  KinetoTrace trace;
  trace.file = path;
  // Streamed: each event is read as it closes and then dropped, so that a
  // trace of hundreds of MB never stands whole as a JSON tree.
  bool events_seen = false;
  const json root = stream_json_list(
      text, path, "traceEvents", {"events", "an event"},
      [&](const json& event, std::size_t index) { add_event(trace, event, index); }, &events_seen);
  if (!root.is_object())
    throw InputError(path, "document", "expected a JSON object (a Chrome trace), got " + std::string(root.type_name()));
  if (!events_seen)
    throw InputError(path, "traceEvents", "missing: not a PyTorch profiler trace (export_chrome_trace)");
  // Seconds from the first event: Kineto's microsecond timestamps are ~1e12,
  // so differences are taken before scaling.
  double origin = std::numeric_limits<double>::infinity();
  for (const auto* list : {&trace.annotations, &trace.ops, &trace.kernels})
    for (const TraceEvent& e : *list) origin = std::min(origin, e.start);
  for (auto* list : {&trace.annotations, &trace.ops, &trace.kernels}) {
    for (TraceEvent& e : *list) {
      e.start = (e.start - origin) * 1e-6;
      e.duration *= 1e-6;
    }
    std::stable_sort(list->begin(), list->end(),
                     [](const TraceEvent& a, const TraceEvent& b) { return a.start < b.start; });
  }
  return trace;
}

KinetoTrace read_kineto_trace(const std::string& path) {
  return parse_kineto_trace(read_input_file(path, "a PyTorch profiler trace (JSON)", kMaxTraceBytes), path);
}

}  // namespace pipesim
