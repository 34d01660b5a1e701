// The resolved sizes of a TransformerConfig (defaults filled in, per-rank
// widths under tensor parallelism), shared by the formulas of models/.
#pragma once

#include "models/transformer.hpp"

namespace pipesim {

// Llama's FFN size when ffn_hidden is 0 for SwiGLU: 8h/3 rounded up to a
// multiple of 256 (Llama-2 7B: 11008); 4h for GELU.
int default_ffn_hidden(int hidden, FfnActivation activation);

struct TransformerDims {
  double b = 0, s = 0, tokens = 0;  // micro-batch, sequence, b*s
  double h = 0, heads = 0, kv_heads = 0, head_dim = 0;
  double ffn = 0, vocab = 0;
  double max_positions = 0;    // rows of the position table (0 without one)
  double t = 1;                // tensor-parallel size
  double vocab_rank = 0;       // vocabulary rows per TP rank: ceil(V / t)
  double rep = 1;              // share of a TP-replicated activation a rank keeps: 1, or 1/t with SP
  double elem = 2;             // bytes of an activation element (4 for fp32, else 16-bit)
  double qkv_width = 0;        // h + 2 * kv_heads * head_dim
  double up_matrices = 1;      // h x ffn matrices before the activation: 1 (GELU), 2 (SwiGLU)
  double norm_params = 0;      // 2h (LayerNorm) or h (RMSNorm)
  double norm_stat_bytes = 0;  // fp32 statistics a norm saves per token: 8 (mean, rstd) or 4 (rstd)
};

TransformerDims transformer_dims(const TransformerConfig& c);

// Parameters of one block's weight matrices (QKV, output projection, FFN),
// whole (t = 1): h(h + 2 kv d) + h^2 + (2 or 3) h f.
double block_matrix_parameters(const TransformerDims& d);
// Parameters of one block held by one TP rank: matrices / t, column-parallel
// biases / t, row-parallel biases and norms replicated (Megatron).
double block_rank_parameters(const TransformerConfig& c, const TransformerDims& d);

}  // namespace pipesim
