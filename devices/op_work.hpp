// What one operation asks of a device: the input of the compute model
// (devices/compute_model.hpp). Plain data, filled by models/ for each pass
// of each layer, so that a device preset can turn it into seconds.
#pragma once

#include <string>
#include <vector>

namespace pipesim {

// Number formats of compute (and of stored tensors).
enum class Precision { FP32, BF16, FP16, FP8 };

// "fp32", "bf16", "fp16", "fp8".
const char* to_string(Precision precision);
// Parses one of the names above; false when unknown.
bool parse_precision(const std::string& text, Precision& out);

// Which efficiency curve of the device an op follows (DeviceSpec): a single
// GEMM kernel (microbenchmarks, the measured GEMM tables), a layer's forward
// (or recompute), or a layer's backward (input- or weight-gradient). Added
// beside the contract's fields: a layer's backward runs its GEMMs (and the
// flash-attention backward) at a lower rate than its forward on the same
// shape, and the host issues it from the C++ autograd engine, not Python.
enum class Pass { Gemm, Forward, Backward };

// "gemm", "forward", "backward".
const char* to_string(Pass pass);

// One GEMM of a layer at tensor-parallel degree 1, in the curve's terms (n:
// the output width, k: the contraction), with its share of the layer's GEMM
// flops. Under TP a column-parallel GEMM (QKV, FFN up) keeps n / tp columns,
// a row-parallel one (attention output, FFN down) contracts over k / tp.
struct GemmPart {
  double share = 0;
  double n = 0;
  double k = 0;
  bool row_parallel = false;
};

// One pass of one layer (a forward, an input-gradient or a weight-gradient
// step, or a recompute), as the device sees it.
struct OpWork {
  double flops = 0;  // floating-point operations (multiply-add = 2)
  // Of those, the weight GEMMs' (a layer's linear layers): what Transformer
  // Engine runs in fp8 when the op's precision is fp8; the rest (attention's
  // core, norms, activations) stays in bf16. Negative: not said (bare GEMMs,
  // layers given by their flops).
  double gemm_flops = -1;
  double bytes = 0;  // bytes read and written in device memory (for the roofline's memory side)
  // Bytes of memory-bound kernels that run on their own between the op's
  // GEMMs, so their time adds to the roofline's instead of hiding under it:
  // attention without flash attention scales, masks, softmaxes and drops out
  // the b*a*s^2 scores in kernels of their own.
  double serial_bytes = 0;
  // The shape of the op's dominant GEMM, for the efficiency curve (0 when the
  // op has no GEMM, an embedding lookup: then it is memory-bound):
  //   gemm_m: tokens of the micro-batch, b*s;
  //   gemm_n: a block's FFN inner size per TP rank (ffn_hidden / tp), the
  //           head's vocabulary rows per TP rank (V / tp);
  //   gemm_k: the hidden size h.
  double gemm_m = 0;
  double gemm_n = 0;
  double gemm_k = 0;
  // The layer's GEMMs at tp = 1 and its tensor-parallel degree: under TP
  // each GEMM shrinks on its own side and the op runs at their efficiency
  // (compute_model.hpp); empty, or tp 1: the one shape above.
  std::vector<GemmPart> parts{};
  int tp = 1;
  int kernels = 1;  // kernel launches, for the per-kernel host overhead
  Precision precision = Precision::BF16;
  // Forward for "*.forward" and "*.recompute", Backward for "*.backward_input"
  // and "*.backward_weight"; Gemm for a bare GEMM kernel.
  Pass pass = Pass::Forward;
  // Calibration key ("block.forward", "head.backward_input", ...): a
  // calibration file that names it replaces the model's time by a measured one.
  std::string key;
};

}  // namespace pipesim
