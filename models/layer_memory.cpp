// Stash, output and transient bytes per layer (docs/model-to-workload.md).
#include "models/layer_memory.hpp"

#include <algorithm>

#include "models/transformer_dims.hpp"

namespace pipesim {
namespace {

// The stash without recomputation.
BlockStash full_stash(const TransformerConfig& c, const TransformerDims& d) {
  const double e = d.elem, T = d.tokens, h = d.h, t = d.t, rep = d.rep;
  BlockStash st;
  // Replicated across the TP group (Korthikanti's "10 sbh"), split by sequence parallelism.
  st.input = e * T * h * rep;
  st.norm_input = e * T * h * rep;
  st.norm_outputs = 2 * e * T * h * rep;
  if (c.dropout) st.dropout_masks = 2 * T * h * rep;
  st.norm_stats = 2 * d.norm_stat_bytes * T * rep;
  // Split across the TP group (heads and FFN columns).
  st.qkv = e * T * d.qkv_width / t;
  st.attention_out = e * T * h / t;
  st.ffn = (c.activation == FfnActivation::SwiGlu ? 4 : 2) * e * T * d.ffn / t;
  const double scores = d.heads * d.s * T / t;  // a s^2 b elements
  if (c.flash_attention)
    st.attention_core = 4 * d.heads * T / t + kFlashRngStateBytes;  // fp32 logsumexp per head and token
  else
    st.attention_core = e * scores + (c.dropout ? scores + e * scores : 0);  // softmax; mask, dropout output
  return st;
}

}  // namespace

BlockStash block_stash(const TransformerConfig& c) {
  const TransformerDims d = transformer_dims(c);
  BlockStash st = full_stash(c, d);
  if (c.recompute == Recompute::Selective) st.attention_core = 0;
  if (c.recompute == Recompute::Full) {
    BlockStash input_only;
    input_only.input = st.input;
    return input_only;
  }
  return st;
}

LayerMemory embedding_memory(const TransformerConfig& c) {
  const TransformerDims d = transformer_dims(c);
  const double e = d.elem, T = d.tokens;
  LayerMemory m;
  m.stash = 8 * T + (d.max_positions > 0 ? 8 * d.s : 0);  // int64 token ids (+ position ids)
  m.weight_gradient_stash = m.stash;                      // the ids its scatter-add reads
  m.output = e * T * d.h * d.rep;
  m.forward_workspace = d.max_positions > 0 ? 2 * e * T * d.h : 0;  // the two lookups before their sum
  // Dense gradient of the table, plus sort and index temporaries.
  m.backward_workspace = e * d.vocab_rank * d.h + 2.5 * e * T * d.h + e * d.max_positions * d.h;
  return m;
}

LayerMemory block_memory(const TransformerConfig& c) {
  const TransformerDims d = transformer_dims(c);
  const double e = d.elem, T = d.tokens, h = d.h, t = d.t;
  TransformerConfig none = c;
  none.recompute = Recompute::None;
  const BlockStash all = full_stash(none, d);
  const double scores = d.heads * d.s * T / t;
  LayerMemory m;
  m.stash = block_stash(c).total();
  // W's inputs: both norms' outputs (QKV's and FFN up's input, gathered
  // again under SP), the attention output and FFN down's input; its output
  // gradients: QKV's, the projection's (whole h), FFN up's (and gate's) and
  // FFN down's (whole h). GPT without TP: 2h + h + 4h + 3h + h + 4h + h = 16h
  // elements, Qi et al. 2024's M_W = 32 s.b.h bytes (zerobubble/runtime.py,
  // w_mem_approx). Under full recompute the stash (the input) bounds it.
  const double weight_gemm_io = 4 * h + (h + d.ffn + d.qkv_width + d.up_matrices * d.ffn) / t;
  m.weight_gradient_stash = std::min(m.stash, e * T * weight_gemm_io);
  m.output = e * T * h * d.rep;
  m.forward_workspace = e * T * h + (c.flash_attention ? 0 : e * scores);
  const double ffn_grads = (c.activation == FfnActivation::SwiGlu ? 3 : 2) * T * d.ffn / t;
  const double small_params = block_rank_parameters(c, d) - block_matrix_parameters(d) / t;
  m.backward_workspace = e * std::max(17.5 * T * h, ffn_grads + h * d.ffn / t) + e * small_params +
                         (c.flash_attention ? 0 : 2 * e * scores);
  if (c.recompute == Recompute::Full) m.backward_workspace += all.total() - all.input + m.forward_workspace;
  if (c.recompute == Recompute::Selective) m.backward_workspace += all.attention_core;
  return m;
}

LayerMemory head_memory(const TransformerConfig& c) {
  const TransformerDims d = transformer_dims(c);
  const double e = d.elem, T = d.tokens, h = d.h, V = d.vocab_rank;
  LayerMemory m;
  m.stash = 2 * e * T * h * d.rep + d.norm_stat_bytes * T * d.rep  // input, norm output, norm statistics
            + e * T * V + 4 * T * V + kLossScalarBytes;            // logits, fp32 log-softmax, scalars
  m.output = 0;                                                    // the loss; the logits stay
  // W reads the norm's output (gathered under SP) and the logits' gradient.
  m.weight_gradient_stash = std::min(m.stash, e * T * h + e * T * V);
  m.forward_workspace = 4 * T * V + e * T * h;
  m.backward_workspace = 8 * T * V + e * V * h;
  return m;
}

}  // namespace pipesim
