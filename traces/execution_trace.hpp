// A PyTorch execution trace (ExecutionTraceObserver's JSON, the input
// format of Chakra) reduced to what the saved-bytes attribution reads: each
// op's place in the call tree, its autograd sequence number and thread, and
// the storages its tensors live in. docs/import.md#execution-traces.
#pragma once

#include <string>
#include <vector>

namespace pipesim {

// A tensor argument on a GPU: the storage it views and how far into it.
struct EtTensor {
  long long storage = 0;  // the observer's storage id (reused once the memory is freed)
  double extent = 0;      // bytes from the storage's start to the view's end: (offset + numel) * itemsize
};

struct EtNode {
  long long id = 0, parent = 0;  // "id", "ctrl_deps"
  std::string name;
  long long rf_id = 0;                    // record function id: the order ops began in
  long long seq_id = -1;                  // autograd sequence number: a forward op <-> its backward node; -1 none
  std::vector<EtTensor> inputs, outputs;  // GPU tensors only (CPU scalars hold no GPU memory)
};

struct ExecutionTrace {
  std::string file;
  std::vector<EtNode> nodes;  // in the order they began (rf_id)
};

// Throws InputError(path, "line N: JSON syntax error" or "nodes[N].FIELD", WHAT).
ExecutionTrace read_execution_trace(const std::string& path);
// The same from the file's text (path names it in errors).
ExecutionTrace parse_execution_trace(const std::string& text, const std::string& path);

}  // namespace pipesim
