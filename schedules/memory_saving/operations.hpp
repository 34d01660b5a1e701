// The output of the memory-saving programs: a sequence of operations on one
// GPU (and its link to CPU memory) that a task-graph builder can execute.
#pragma once

#include <string>
#include <vector>

namespace pipesim::memory_saving {

enum class OpKind {
  ForwardAll,         // F_all: keeps its input and the tape ā^i
  ForwardCheckpoint,  // F_ck: keeps its input a^{i-1} and its output a^i
  ForwardNone,        // F_∅: keeps only its output a^i, frees a^{i-1}
  Backward,           // B^i: consumes δ^i and ā^i, frees a^{i-1}, makes δ^{i-1}
  Offload,            // copy a^i to CPU memory, then free it on the GPU
  Prefetch,           // copy a^i back from CPU memory
  Free,               // drop a^i without using it
};

const char* op_kind_name(OpKind kind);  // "F_all", "F_ck", "F_none", "B", ...

struct Operation {
  OpKind kind = OpKind::ForwardAll;
  int layer = 1;        // 1..L: the layer computed, or a^layer moved
  double start = 0;     // seconds from the start of the iteration
  double duration = 0;  // u_f, u_b, or size / bandwidth for transfers
  double memory = 0;    // GPU memory in use while it runs (everything, a^0 included)
};

// One line per operation: "F_ck 1 start=0 duration=1 memory=3".
std::string describe(const std::vector<Operation>& ops);

}  // namespace pipesim::memory_saving
