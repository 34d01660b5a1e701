// A transformer config -> its layer chain: flops, bytes, GEMM shape and
// kernel count of each pass (docs/model-to-workload.md, "Flops", "Kernels",
// "Bytes"); memory from layer_memory.cpp.
#include "models/transformer.hpp"

#include <string>
#include <vector>

#include "models/layer_memory.hpp"
#include "models/transformer_dims.hpp"

namespace pipesim {
namespace {

OpWork op(const std::string& key, double flops, double bytes, double m, double n, double k, int kernels,
          Precision precision) {
  OpWork w;
  w.key = key;
  w.flops = flops;
  w.bytes = bytes;
  w.gemm_m = m;
  w.gemm_n = n;
  w.gemm_k = k;
  w.kernels = kernels;
  w.precision = precision;
  // The compute model fits forward and backward passes on separate curves (docs/devices.md).
  w.pass = key.find(".backward") != std::string::npos ? Pass::Backward : Pass::Forward;
  return w;
}

void set_memory(ModelLayer& layer, const LayerMemory& m) {
  layer.stash_bytes = m.stash;
  layer.weight_stash_bytes = m.weight_gradient_stash;
  layer.output_bytes = m.output;
  layer.forward_workspace = m.forward_workspace;
  layer.backward_workspace = m.backward_workspace;
}

ModelLayer embedding_layer(const TransformerConfig& c, const TransformerDims& d) {
  const double e = d.elem, T = d.tokens, h = d.h;
  const bool positions = d.max_positions > 0;
  ModelLayer l;
  l.name = "embedding";
  l.parameters = d.vocab_rank * h + d.max_positions * h;
  // Memory-bound: read the ids and T rows, write T rows (twice more and a sum with positions).
  const double fwd_bytes = 8 * T + 2 * e * T * h + (positions ? 4 * e * T * h : 0);
  l.forward = op("embedding.forward", 0, fwd_bytes, 0, 0, 0, positions ? 3 : 1, c.precision);
  l.backward_input = op("embedding.backward_input", 0, 0, 0, 0, 0, 0, c.precision);  // token ids: no gradient
  // Zero the table's gradient, read the output gradient, scatter-add the rows.
  const double bwd_bytes = e * l.parameters + 8 * T + 2 * e * T * h * (positions ? 2 : 1);
  l.backward_weight = op("embedding.backward_weight", 0, bwd_bytes, 0, 0, 0, positions ? 6 : 3, c.precision);
  l.recompute = op("embedding.recompute", 0, 0, 0, 0, 0, 0, c.precision);
  set_memory(l, embedding_memory(c));
  return l;
}

ModelLayer block_layer(const TransformerConfig& c, const TransformerDims& d) {
  const double e = d.elem, T = d.tokens, h = d.h, t = d.t, f = d.ffn, rep = d.rep;
  const double matrices = block_matrix_parameters(d);
  const double attention = 4 * T * d.s * h / t;  // QK^T and PV, full (not causal) attention
  const double fwd = 2 * T * matrices / t + attention;
  const double wgrad = 2 * T * matrices / t;
  const double igrad = 2 * T * matrices / t + 2 * attention;
  ModelLayer l;
  l.name = "block";
  l.parameters = block_rank_parameters(c, d);
  l.model_flops = fwd + igrad + wgrad;

  // Kernels of an eager PyTorch/Megatron block forward (docs: "Kernels").
  const bool swiglu = c.activation == FfnActivation::SwiGlu;
  const int gemms = swiglu ? 5 : 4;  // fused QKV, projection, FFN (gate and up apart)
  const int core = c.flash_attention ? 1 : 4 + (c.dropout ? 1 : 0);
  const int others = 2 /*norms*/ + 3 /*q,k,v to heads*/ + core + 1 /*output layout*/ + 2 /*residuals*/ +
                     (swiglu ? 2 : 1) /*activation*/ + (c.dropout ? 2 : 0) + (c.learned_positions ? 0 : 2) /*RoPE*/;
  const int fwd_kernels = gemms + others;

  // Bytes: activations read and written by each op, in elements, plus the weights.
  const double scores = d.heads * d.s * T / t;
  // Without flash attention the scores pass through kernels of their own
  // (scale and mask, softmax, dropout, each reading and writing them).
  const double score_traffic = c.flash_attention ? 0 : 4 * scores;
  const double attn_traffic = T * d.qkv_width / t + T * h / t;
  const double traffic = 2 * T * h * rep                      // norm 1
                         + T * h + T * d.qkv_width / t        // QKV
                         + attn_traffic                       // attention core
                         + T * h / t + T * h                  // projection
                         + 3 * T * h * rep + 2 * T * h * rep  // residual, norm 2
                         + T * h + d.up_matrices * T * f / t  // FFN up (and gate)
                         + (d.up_matrices + 1) * T * f / t    // activation
                         + T * f / t + T * h                  // FFN down
                         + 3 * T * h * rep;                   // residual
  const double weights = l.parameters;
  const double m = T, n = f / t, k = h;
  l.forward = op("block.forward", fwd, e * (traffic + weights), m, n, k, fwd_kernels, c.precision);
  l.backward_input =
      op("block.backward_input", igrad, e * (2 * traffic + weights), m, n, k, gemms + 2 * others, c.precision);
  l.backward_weight = op("block.backward_weight", wgrad, e * (traffic + 2 * weights), m, n, k,
                         gemms + (c.bias ? gemms : 0), c.precision);
  // Its GEMMs at tp = 1 (QKV and FFN up column-parallel, attention output and
  // FFN down row-parallel), each by its share of the matrix flops.
  const double qkv = d.qkv_width * h, out = h * h, up = d.up_matrices * d.ffn * h, down = d.ffn * h;
  const double all = qkv + out + up + down;
  const std::vector<GemmPart> parts = {{qkv / all, d.qkv_width, h, false},
                                       {out / all, h, h, true},
                                       {up / all, d.ffn, h, false},
                                       {down / all, h, d.ffn, true}};
  for (OpWork* pass : {&l.forward, &l.backward_input, &l.backward_weight}) {
    pass->parts = parts;
    pass->tp = static_cast<int>(t);
    pass->gemm_flops = wgrad;  // each pass's weight GEMMs: 2 T matrices / t
  }
  l.forward.serial_bytes = e * score_traffic;
  l.backward_input.serial_bytes = 2 * e * score_traffic;
  if (c.recompute == Recompute::Full) {
    l.recompute = op("block.recompute", fwd, l.forward.bytes, m, n, k, fwd_kernels, c.precision);
    l.recompute.serial_bytes = l.forward.serial_bytes;
    l.recompute.parts = parts;
    l.recompute.tp = l.forward.tp;
    l.recompute.gemm_flops = wgrad;
  } else if (c.recompute == Recompute::Selective) {
    l.recompute = op("block.recompute", attention, e * attn_traffic, m, n, k, core, c.precision);
    l.recompute.serial_bytes = e * score_traffic;
    l.recompute.gemm_flops = 0;  // attention's core: no weight GEMM
  } else
    l.recompute = op("block.recompute", 0, 0, m, n, k, 0, c.precision);
  set_memory(l, block_memory(c));
  return l;
}

ModelLayer head_layer(const TransformerConfig& c, const TransformerDims& d) {
  const double e = d.elem, T = d.tokens, h = d.h, V = d.vocab_rank;
  const double gemm = 2 * T * h * V;
  ModelLayer l;
  l.name = "head";
  l.parameters = d.norm_params + V * h;
  l.tied_to_embedding = c.tied_embeddings;
  l.model_flops = 3 * gemm;
  // Norm in and out, logits written, cast to fp32, log-softmax read and written, the loss.
  const double fwd_bytes = e * (2 * T * h * d.rep + T * h + V * h) + e * T * V + 4 * T * V * 3 + 8 * T;
  l.forward = op("head.forward", gemm, fwd_bytes, T, V, h, 5, c.precision);
  l.backward_input = op("head.backward_input", gemm, fwd_bytes + 4 * T * V, T, V, h, 5, c.precision);
  l.backward_weight = op("head.backward_weight", gemm, e * (T * h + T * V + 2 * V * h), T, V, h, 2, c.precision);
  l.recompute = op("head.recompute", 0, 0, T, V, h, 0, c.precision);
  // Megatron's output layer is its own ColumnParallelLinear, not a Transformer
  // Engine module: under fp8 it still runs in bf16 (no weight GEMM in fp8).
  for (OpWork* pass : {&l.forward, &l.backward_input, &l.backward_weight}) pass->gemm_flops = 0;
  set_memory(l, head_memory(c));
  return l;
}

// Megatron's collectives per layer (docs/model-to-workload.md, "Tensor
// parallelism"): a block's attention and MLP each end in g (all-reduce
// forward) and start with f (all-reduce backward); with sequence
// parallelism each all-reduce becomes a reduce-scatter where it reduces and
// an all-gather where the layer's input enters (Korthikanti et al. 2022,
// section 4.2.2). A full recompute runs the forward's collectives again.
// The embedding is vocab-parallel (one reduction forward); the LM head is
// column-parallel (f: one reduction of the input gradient backward).
TpCollectives tp_collectives(const TransformerConfig& c, const TransformerDims& d, const std::string& layer) {
  TpCollectives tp;
  if (d.t <= 1) return tp;
  tp.bytes = d.elem * d.tokens * d.h;
  const bool sp = c.sequence_parallel;
  auto reductions = [sp](int n) {
    TpPassCollectives p;
    (sp ? p.reduce_scatter : p.all_reduce) = n;
    return p;
  };
  auto gathers = [sp](TpPassCollectives p, int n) {
    if (sp) p.all_gather += n;
    return p;
  };
  if (layer == "block") {
    tp.forward = gathers(reductions(2), 2);
    tp.backward = gathers(reductions(2), 2);
    if (c.recompute == Recompute::Full) tp.recompute = tp.forward;
  } else if (layer == "embedding") {
    tp.forward = reductions(1);
  } else if (layer == "head") {
    tp.forward = gathers(TpPassCollectives{}, 1);
    tp.backward = reductions(1);
  }
  return tp;
}

}  // namespace

ModelChain transformer_chain(const TransformerConfig& c) {
  check_transformer(c, c.name.empty() ? "transformer" : c.name, "");
  const TransformerDims d = transformer_dims(c);
  ModelChain chain;
  chain.layers.reserve(static_cast<std::size_t>(c.layers) + 2);
  chain.layers.push_back(embedding_layer(c, d));
  const ModelLayer block = block_layer(c, d);
  for (int i = 0; i < c.layers; ++i) chain.layers.push_back(block);
  chain.layers.push_back(head_layer(c, d));
  for (ModelLayer& layer : chain.layers) layer.tp = tp_collectives(c, d, layer.name);
  chain.input_bytes = 8 * d.tokens;
  chain.total_parameters = transformer_parameters(c);
  return chain;
}

}  // namespace pipesim
