// What each layer of a transformer keeps for its backward (its stash, term
// by term for a block), what it sends on, and its transient working memory,
// per TP rank. Formulas and their sources: docs/model-to-workload.md,
// "Activation memory" and "Transients".
#pragma once

#include "models/transformer.hpp"

namespace pipesim {

// The bytes one block keeps from its forward to its backward, term by term
// (Korthikanti et al. 2022, sec. 4.1), under the config's recompute mode.
struct BlockStash {
  double input = 0;           // the block's input (first norm's input)
  double norm_input = 0;      // the second norm's input (after the first residual)
  double norm_outputs = 0;    // both norms' outputs: QKV's input and the FFN's input
  double qkv = 0;             // Q, K, V (K and V kv_heads wide under GQA)
  double attention_out = 0;   // attention output, the output projection's input
  double ffn = 0;             // GELU: its input and output; SwiGLU: gate, up, silu(gate), product
  double dropout_masks = 0;   // post-attention and post-FFN masks, one byte per element
  double attention_core = 0;  // unfused: softmax output (+ its dropout mask and output); flash: logsumexp + RNG state
  double norm_stats = 0;      // fp32 per-token statistics of the two norms
  double total() const {
    return input + norm_input + norm_outputs + qkv + attention_out + ffn + dropout_masks + attention_core + norm_stats;
  }
};

// Bytes flash attention's RNG state tensors take (philox seed and offset,
// each one 512-byte block of PyTorch's caching allocator): measured.
constexpr double kFlashRngStateBytes = 1024;
// Scalars the loss keeps (the loss and nll_loss's total weight, 512-byte
// allocator blocks each): measured.
constexpr double kLossScalarBytes = 1024;

BlockStash block_stash(const TransformerConfig& c);

struct LayerMemory {
  double stash = 0;
  // Of what the layer holds for its backward, what a split backward still
  // holds between its input gradient and its weight gradient: each weight
  // GEMM's input and output gradient (the zero-bubble paper's 32 s.b.h of
  // a GPT block), at most the stash (docs/model-to-workload.md).
  double weight_gradient_stash = 0;
  double output = 0;
  double forward_workspace = 0;
  double backward_workspace = 0;
};

LayerMemory embedding_memory(const TransformerConfig& c);
LayerMemory block_memory(const TransformerConfig& c);
LayerMemory head_memory(const TransformerConfig& c);

}  // namespace pipesim
