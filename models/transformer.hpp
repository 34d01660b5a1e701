// A decoder-only transformer as LLM engineers describe it (GPT-2/3, Llama
// 2/3, Mistral), and the layer chain it becomes: per layer the flops of each
// pass, the bytes of its parameters, of what it stashes for the backward
// and of what it sends on, and its transient working memory.
// Formulas and sources: docs/model-to-workload.md.
#pragma once

#include <string>
#include <vector>

#include "devices/op_work.hpp"

namespace pipesim {

enum class FfnActivation { Gelu, SwiGlu };
enum class Recompute { None, Selective, Full };  // Korthikanti et al. 2022

struct TransformerConfig {
  std::string name;
  int layers = 0;      // transformer blocks L
  int hidden = 0;      // h
  int heads = 0;       // a
  int kv_heads = 0;    // GQA key/value heads; 0 = heads (multi-head attention)
  int ffn_hidden = 0;  // FFN inner size; 0 = 4h (GELU) or Llama's rounded 8h/3 (SwiGLU)
  FfnActivation activation = FfnActivation::Gelu;
  int vocab = 0;                  // V
  bool tied_embeddings = false;   // LM head shares the token embedding's weights
  bool learned_positions = true;  // GPT: a position table of max_positions x h; Llama: RoPE (none)
  int max_positions = 0;          // rows of the position table; 0 = seq_length
  bool bias = true;               // GPT: linear biases; Llama: none
  bool rms_norm = false;          // Llama: RMSNorm (h parameters), else LayerNorm (2h)
  // The training set-up.
  int seq_length = 0;       // s
  int microbatch_size = 1;  // b
  Precision precision = Precision::BF16;
  bool flash_attention = true;  // no s^2 attention matrix kept or written
  bool dropout = false;
  Recompute recompute = Recompute::None;
  int tp = 1;                      // tensor-parallel size t (divides heads, kv_heads, ffn, vocab rows)
  bool sequence_parallel = false;  // Korthikanti's sequence parallelism (with tp > 1)
};

// The tensor-parallel collectives of one pass of a layer on its TP group
// (Megatron's f and g operators; Shoeybi et al. 2019, Korthikanti et al.
// 2022 for sequence parallelism), each over the layer's full b.s.h tensor.
struct TpPassCollectives {
  int all_reduce = 0;
  int all_gather = 0;
  int reduce_scatter = 0;
  int count() const { return all_reduce + all_gather + reduce_scatter; }
};
struct TpCollectives {
  TpPassCollectives forward, backward, recompute;  // backward: the input-gradient pass
  double bytes = 0;                                // the tensor each one reduces or gathers: b.s.h elements
};

// What one layer of the chain costs, per device of its tensor-parallel group.
struct ModelLayer {
  std::string name;       // "embedding", "block", "head"
  double parameters = 0;  // parameter count held by one TP rank
  OpWork forward;
  OpWork backward_input;           // input gradient (I)
  OpWork backward_weight;          // weight gradient (W)
  OpWork recompute;                // forward work redone before the backward (0 flops without recompute)
  double model_flops = 0;          // forward + backward model flops (no recompute): MFU's numerator
  double stash_bytes = 0;          // kept from the forward until the backward (Korthikanti, by recompute mode)
  double weight_stash_bytes = 0;   // of it, what a split backward keeps from its I until its W (<= stash_bytes)
  double output_bytes = 0;         // sent to the next layer (and its gradient back)
  double forward_workspace = 0;    // transient bytes while the forward runs, above the stash
  double backward_workspace = 0;   // transient bytes while the backward runs
  bool tied_to_embedding = false;  // head whose weights are the embedding's (not held twice on one device)
  TpCollectives tp{};              // none when tp = 1
};

struct ModelChain {
  std::vector<ModelLayer> layers;  // embedding, L blocks, head (final norm, LM head, loss)
  double input_bytes = 0;          // token ids of one micro-batch (int64)
  double total_parameters = 0;     // whole model, all TP ranks, tied weights once
};

// Checks the config (InputError on file/path: heads dividing hidden, ...).
void check_transformer(const TransformerConfig& c, const std::string& file, const std::string& path);
// The chain of one micro-batch.
ModelChain transformer_chain(const TransformerConfig& c);
// Total parameters (published counts: docs/model-to-workload.md).
double transformer_parameters(const TransformerConfig& c);

}  // namespace pipesim
