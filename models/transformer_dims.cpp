#include "models/transformer_dims.hpp"

#include <cmath>

namespace pipesim {

int default_ffn_hidden(int hidden, FfnActivation activation) {
  if (activation == FfnActivation::Gelu) return 4 * hidden;
  const long long two_thirds = (8LL * hidden + 2) / 3;  // ceil(8h/3)
  return static_cast<int>((two_thirds + 255) / 256 * 256);
}

TransformerDims transformer_dims(const TransformerConfig& c) {
  TransformerDims d;
  d.b = c.microbatch_size;
  d.s = c.seq_length;
  d.tokens = d.b * d.s;
  d.h = c.hidden;
  d.heads = c.heads;
  d.kv_heads = c.kv_heads > 0 ? c.kv_heads : c.heads;
  d.head_dim = c.heads > 0 ? d.h / d.heads : 0;
  d.ffn = c.ffn_hidden > 0 ? c.ffn_hidden : default_ffn_hidden(c.hidden, c.activation);
  d.vocab = c.vocab;
  d.max_positions = c.learned_positions ? (c.max_positions > 0 ? c.max_positions : c.seq_length) : 0;
  d.t = c.tp > 0 ? c.tp : 1;
  d.vocab_rank = std::ceil(d.vocab / d.t);
  d.rep = c.sequence_parallel ? 1.0 / d.t : 1.0;
  d.elem = c.precision == Precision::FP32 ? 4.0 : 2.0;
  d.qkv_width = d.h + 2 * d.kv_heads * d.head_dim;
  d.up_matrices = c.activation == FfnActivation::SwiGlu ? 2 : 1;
  d.norm_params = c.rms_norm ? d.h : 2 * d.h;
  d.norm_stat_bytes = c.rms_norm ? 4 : 8;
  return d;
}

double block_matrix_parameters(const TransformerDims& d) {
  return d.h * d.qkv_width + d.h * d.h + (d.up_matrices + 1) * d.h * d.ffn;
}

double block_rank_parameters(const TransformerConfig& c, const TransformerDims& d) {
  double p = block_matrix_parameters(d) / d.t + 2 * d.norm_params;
  if (c.bias) p += (d.qkv_width + d.up_matrices * d.ffn) / d.t + 2 * d.h;
  return p;
}

}  // namespace pipesim
