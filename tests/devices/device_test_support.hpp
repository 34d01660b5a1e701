// The measured tables of tests/data/measured (README-devices.md) and the
// ops the device tests build from them: a bare GEMM, a GPT block's passes
// (built as models/transformer_chain builds them for a GPT-2-style block:
// bias, GELU, learned positions, flash attention, no dropout, tp = 1).
#pragma once

#include <fstream>
#include <string>
#include "tests/support/build_paths.hpp"

#include <nlohmann/json.hpp>

#include "devices/compute_model.hpp"
#include "devices/device_spec.hpp"
#include "devices/op_work.hpp"

namespace pipesim::device_test {

inline nlohmann::json measured(const std::string& file) {
  std::ifstream in(std::string(PIPESIM_SOURCE_DIR) + "/tests/data/measured/" + file);
  return nlohmann::json::parse(in);
}

inline OpWork gemm_op(double m, double n, double k, Precision precision) {
  OpWork op;
  op.flops = 2 * m * n * k;
  const double elem = precision == Precision::FP8 ? 1 : 2;
  op.bytes = elem * (m * k + k * n) + 2 * m * n;
  op.gemm_m = m;
  op.gemm_n = n;
  op.gemm_k = k;
  op.kernels = 1;
  op.precision = precision;
  op.pass = Pass::Gemm;
  return op;
}

// One GPT block's passes, bf16: forward 24*T*h^2 + 4*T*s*h flops (full
// attention, as the measurements count it), input gradient 24*T*h^2 +
// 8*T*s*h, weight gradient 24*T*h^2 (the backward: twice the forward);
// GEMM shape (T, 4h, h); kernels 14 forward, 24 input gradient, 8 weight
// gradient; bytes: 38*T*h activation elements read and written by the
// forward (twice in the input gradient) plus the weights (twice in the
// weight gradient), 2 bytes each.
struct BlockOps {
  OpWork forward, backward_input, backward_weight;
};

inline BlockOps block_ops(double h, double b, double s) {
  const double T = b * s, weights = 12 * h * h + 13 * h, traffic = 38 * T * h;
  auto make = [&](const char* key, double flops, double bytes, int kernels, Pass pass) {
    OpWork op;
    op.key = key;
    op.flops = flops;
    op.bytes = 2 * bytes;
    op.gemm_m = T;
    op.gemm_n = 4 * h;
    op.gemm_k = h;
    op.kernels = kernels;
    op.pass = pass;
    return op;
  };
  BlockOps ops;
  ops.forward = make("block.forward", 24 * T * h * h + 4 * T * s * h, traffic + weights, 14, Pass::Forward);
  ops.backward_input =
      make("block.backward_input", 24 * T * h * h + 8 * T * s * h, 2 * traffic + weights, 24, Pass::Backward);
  ops.backward_weight = make("block.backward_weight", 24 * T * h * h, traffic + 2 * weights, 8, Pass::Backward);
  return ops;
}

inline double block_forward_seconds(const DeviceSpec& d, double h, double b, double s) {
  return op_seconds(d, block_ops(h, b, s).forward);
}

inline double block_backward_seconds(const DeviceSpec& d, double h, double b, double s) {
  const BlockOps ops = block_ops(h, b, s);
  return op_seconds(d, ops.backward_input) + op_seconds(d, ops.backward_weight);
}

}  // namespace pipesim::device_test
