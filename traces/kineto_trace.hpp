// A PyTorch profiler trace (Kineto's Chrome trace JSON, export_chrome_trace)
// reduced to what the step attribution reads: the CPU annotations and ops
// with their thread, and the GPU kernels with the op that launched them.
// docs/import.md#profiler-traces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipesim {

// Largest trace read: one step of a large model with record_shapes is a few
// hundred MB.
constexpr std::uintmax_t kMaxTraceBytes = 2ull << 30;

struct TraceEvent {
  std::string name;
  std::string thread;                              // "pid/tid" as the trace writes them
  double start = 0;                                // seconds from the trace's first event
  double duration = 0;                             // seconds
  long long external_id = -1;                      // Kineto's "External id": op <-> the kernels it launched
  long long sequence = -1;                         // autograd's "Sequence number": forward op <-> its backward node
  std::vector<std::vector<long long>> input_dims;  // "Input Dims" (record_shapes), tensors only
  double end() const { return start + duration; }
};

struct KinetoTrace {
  std::string file;
  std::vector<TraceEvent> annotations;  // cat user_annotation (record_function, ProfilerStep#N, Optimizer.*)
  std::vector<TraceEvent> ops;          // cat cpu_op
  std::vector<TraceEvent> kernels;      // cat kernel, gpu_memset, gpu_memcpy: device work
};

// Throws InputError(path, "line N: JSON syntax error" or "traceEvents[N].FIELD", WHAT).
KinetoTrace read_kineto_trace(const std::string& path);
// The same from the file's text (path names it in errors).
KinetoTrace parse_kineto_trace(const std::string& text, const std::string& path);

}  // namespace pipesim
