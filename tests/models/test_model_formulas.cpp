// models/: flops, parameters and activation bytes per layer against the
// published formulas (Narayanan et al. 2021; Korthikanti et al. 2022).
#include <gtest/gtest.h>

#include "models/layer_memory.hpp"
#include "models/transformer.hpp"

namespace pipesim {
namespace {

TransformerConfig gpt(int h, int a, int s, int b) {
  TransformerConfig c;
  c.name = "gpt";
  c.layers = 2;
  c.hidden = h;
  c.heads = a;
  c.vocab = 51200;
  c.tied_embeddings = true;
  c.seq_length = s;
  c.microbatch_size = b;
  return c;
}

// Llama-2-70B's block: GQA (8 KV heads of 128), SwiGLU 28672, RMSNorm, no biases.
TransformerConfig llama70(int s, int b) {
  TransformerConfig c = gpt(8192, 64, s, b);
  c.kv_heads = 8;
  c.ffn_hidden = 28672;
  c.activation = FfnActivation::SwiGlu;
  c.vocab = 32000;
  c.tied_embeddings = false;
  c.learned_positions = false;
  c.bias = false;
  c.rms_norm = true;
  return c;
}

const ModelLayer& block_of(const ModelChain& chain) { return chain.layers.at(1); }

TEST(ModelFlops, GptBlockIsNarayanan24bsh2Plus4bs2h) {
  for (const auto& [h, a, s, b] : {std::tuple{1024, 8, 2048, 1}, {2304, 24, 2048, 4}, {12288, 96, 2048, 1}}) {
    const ModelChain chain = transformer_chain(gpt(h, a, s, b));
    const ModelLayer& block = block_of(chain);
    const double H = h, S = s, B = b;
    const double fwd = 24 * B * S * H * H + 4 * B * S * S * H;
    EXPECT_DOUBLE_EQ(block.forward.flops, fwd);
    EXPECT_DOUBLE_EQ(block.backward_weight.flops, 2 * B * S * 12 * H * H);  // one GEMM per matrix
    EXPECT_DOUBLE_EQ(block.backward_input.flops + block.backward_weight.flops, 2 * fwd);
    EXPECT_DOUBLE_EQ(block.model_flops, 3 * fwd);
    EXPECT_EQ(block.recompute.flops, 0);
    EXPECT_EQ(block.forward.gemm_m, B * S);
    EXPECT_EQ(block.forward.gemm_n, 4 * H);
    EXPECT_EQ(block.forward.gemm_k, H);
    EXPECT_EQ(block.forward.key, "block.forward");
    EXPECT_EQ(block.backward_input.key, "block.backward_input");
    EXPECT_EQ(block.backward_weight.key, "block.backward_weight");
  }
}

TEST(ModelFlops, SwiGluGqaBlockCountsItsMatrices) {
  const ModelChain chain = transformer_chain(llama70(4096, 1));
  const ModelLayer& block = block_of(chain);
  const double h = 8192, s = 4096, kvd = 8 * 128, f = 28672;
  const double matrices = h * (h + 2 * kvd) + h * h + 3 * h * f;  // 855,638,016
  EXPECT_DOUBLE_EQ(matrices, 855638016.0);
  EXPECT_DOUBLE_EQ(block.forward.flops, 2 * s * matrices + 4 * s * s * h);
  EXPECT_DOUBLE_EQ(block.backward_weight.flops, 2 * s * matrices);
  EXPECT_DOUBLE_EQ(block.backward_input.flops, 2 * s * matrices + 8 * s * s * h);
  EXPECT_DOUBLE_EQ(block.parameters, matrices + 2 * h);
  EXPECT_EQ(block.forward.gemm_n, f);
}

TEST(ModelFlops, RecomputeRedoesTheForwardOrTheAttentionCore) {
  TransformerConfig c = gpt(2048, 16, 2048, 2);
  const double fwd = block_of(transformer_chain(c)).forward.flops;
  c.recompute = Recompute::Full;
  EXPECT_DOUBLE_EQ(block_of(transformer_chain(c)).recompute.flops, fwd);
  EXPECT_DOUBLE_EQ(block_of(transformer_chain(c)).model_flops, 3 * fwd);  // model flops exclude recompute
  c.recompute = Recompute::Selective;
  EXPECT_DOUBLE_EQ(block_of(transformer_chain(c)).recompute.flops, 4.0 * 2 * 2048 * 2048 * 2048);
}

// What Transformer Engine runs in fp8: each block pass's weight GEMMs, the
// pass less its attention core (4 T s h forward, 8 T s h input gradient);
// full recompute as the forward; selective recompute (the attention core)
// and the head (Megatron's own output layer) none; the embedding, no GEMM, unsaid.
TEST(ModelFlops, WeightGemmFlopsAreWhatFp8Runs) {
  TransformerConfig c = gpt(2048, 16, 2048, 2);
  const double T = 2 * 2048, s = 2048, h = 2048;
  const ModelChain chain = transformer_chain(c);
  const ModelLayer& block = block_of(chain);
  EXPECT_DOUBLE_EQ(block.forward.gemm_flops, block.forward.flops - 4 * T * s * h);
  EXPECT_DOUBLE_EQ(block.backward_input.gemm_flops, block.backward_input.flops - 8 * T * s * h);
  EXPECT_DOUBLE_EQ(block.backward_weight.gemm_flops, block.backward_weight.flops);
  for (const OpWork* pass :
       {&chain.layers.back().forward, &chain.layers.back().backward_input, &chain.layers.back().backward_weight})
    EXPECT_EQ(pass->gemm_flops, 0);
  EXPECT_LT(chain.layers.front().forward.gemm_flops, 0);
  c.recompute = Recompute::Full;
  EXPECT_DOUBLE_EQ(block_of(transformer_chain(c)).recompute.gemm_flops, block.forward.gemm_flops);
  c.recompute = Recompute::Selective;
  EXPECT_EQ(block_of(transformer_chain(c)).recompute.gemm_flops, 0);
}

TEST(ModelFlops, TensorParallelismDividesMatricesAndVocabulary) {
  TransformerConfig c = llama70(4096, 1);
  const ModelChain one = transformer_chain(c);
  c.tp = 8;
  const ModelChain eight = transformer_chain(c);
  for (std::size_t i : {std::size_t{1}, one.layers.size() - 1}) {
    EXPECT_DOUBLE_EQ(eight.layers[i].forward.flops, one.layers[i].forward.flops / 8) << i;
    EXPECT_DOUBLE_EQ(eight.layers[i].backward_input.flops, one.layers[i].backward_input.flops / 8) << i;
    EXPECT_DOUBLE_EQ(eight.layers[i].backward_weight.flops, one.layers[i].backward_weight.flops / 8) << i;
    EXPECT_EQ(eight.layers[i].forward.gemm_n, one.layers[i].forward.gemm_n / 8) << i;
  }
  // Norms replicated (no biases in Llama): 2 RMSNorms of h on every rank.
  EXPECT_DOUBLE_EQ(eight.layers[1].parameters, 855638016.0 / 8 + 2 * 8192);
  EXPECT_DOUBLE_EQ(eight.layers[0].parameters, 32000.0 / 8 * 8192);
  EXPECT_DOUBLE_EQ(eight.total_parameters, one.total_parameters);
}

TEST(ModelFlops, HeadIsTheLogitsGemmAndTheEmbeddingNone) {
  const ModelChain chain = transformer_chain(gpt(2048, 16, 2048, 1));
  const ModelLayer& head = chain.layers.back();
  const double gemm = 2.0 * 2048 * 2048 * 51200;
  EXPECT_EQ(head.name, "head");
  EXPECT_DOUBLE_EQ(head.forward.flops, gemm);
  EXPECT_DOUBLE_EQ(head.backward_input.flops, gemm);
  EXPECT_DOUBLE_EQ(head.backward_weight.flops, gemm);
  EXPECT_DOUBLE_EQ(head.model_flops, 3 * gemm);
  EXPECT_EQ(head.forward.gemm_n, 51200);
  EXPECT_TRUE(head.tied_to_embedding);
  const ModelLayer& embedding = chain.layers.front();
  EXPECT_EQ(embedding.name, "embedding");
  EXPECT_EQ(embedding.forward.flops, 0);
  EXPECT_EQ(embedding.forward.gemm_m, 0);
  EXPECT_GT(embedding.forward.bytes, 0);
  EXPECT_EQ(embedding.forward.key, "embedding.forward");
  EXPECT_DOUBLE_EQ(chain.input_bytes, 8.0 * 2048);
  EXPECT_EQ(chain.layers.size(), 4u);
}

TEST(ModelFlops, KernelCounts) {
  const ModelLayer block = block_of(transformer_chain(gpt(1024, 8, 2048, 1)));
  EXPECT_EQ(block.forward.kernels, 14);         // 4 GEMMs + 10 others
  EXPECT_EQ(block.backward_input.kernels, 24);  // 4 + 2 x 10
  EXPECT_EQ(block.backward_weight.kernels, 8);  // 4 weight GEMMs + 4 bias reductions
}

TEST(ModelParameters, GptBlockIs12h2Plus13h) {
  const ModelChain chain = transformer_chain(gpt(2304, 24, 2048, 1));
  const double h = 2304;
  EXPECT_DOUBLE_EQ(block_of(chain).parameters, 12 * h * h + 13 * h);
  // Megatron's P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), plus the final LayerNorm.
  const double l = 2, V = 51200, s = 2048;
  EXPECT_DOUBLE_EQ(chain.total_parameters, 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h)) + 2 * h);
  EXPECT_DOUBLE_EQ(chain.total_parameters, transformer_parameters(gpt(2304, 24, 2048, 1)));
}

// Korthikanti et al. 2022 count no norm statistics; ours keeps them (fp32
// per token per norm: 8 bytes for LayerNorm's mean and rstd).
double without_norm_stats(const BlockStash& st) { return st.total() - st.norm_stats; }

TEST(ModelActivation, KorthikantiWithoutParallelism) {
  TransformerConfig c = gpt(4096, 32, 2048, 2);
  c.flash_attention = false;
  c.dropout = true;
  const double s = 2048, b = 2, h = 4096, a = 32;
  EXPECT_DOUBLE_EQ(without_norm_stats(block_stash(c)), 34 * s * b * h + 5 * a * s * s * b);
  EXPECT_DOUBLE_EQ(block_stash(c).norm_stats, 16 * s * b);
  EXPECT_DOUBLE_EQ(block_of(transformer_chain(c)).stash_bytes, block_stash(c).total());
}

TEST(ModelActivation, KorthikantiTensorAndSequenceParallel) {
  TransformerConfig c = gpt(4096, 32, 2048, 2);
  c.flash_attention = false;
  c.dropout = true;
  const double s = 2048, b = 2, h = 4096, a = 32, t = 8;
  c.tp = 8;
  EXPECT_DOUBLE_EQ(without_norm_stats(block_stash(c)), s * b * h * (10 + 24 / t + 5 * a * s / (h * t)));
  c.recompute = Recompute::Selective;
  EXPECT_DOUBLE_EQ(without_norm_stats(block_stash(c)), s * b * h * (10 + 24 / t));
  c.recompute = Recompute::Full;
  EXPECT_DOUBLE_EQ(block_stash(c).total(), 2 * s * b * h);
  c.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(block_stash(c).total(), 2 * s * b * h / t);
  c.recompute = Recompute::None;
  EXPECT_DOUBLE_EQ(without_norm_stats(block_stash(c)), s * b * h / t * (34 + 5 * a * s / h));
  c.recompute = Recompute::Selective;
  EXPECT_DOUBLE_EQ(without_norm_stats(block_stash(c)), 34 * s * b * h / t);
  EXPECT_DOUBLE_EQ(block_of(transformer_chain(c)).output_bytes, 2 * s * b * h / t);
}

TEST(ModelActivation, FlashAttentionWithoutDropoutKeeps32sbh) {
  const TransformerConfig c = gpt(2048, 16, 2048, 1);
  const double s = 2048, b = 1, h = 2048, a = 16;
  const BlockStash st = block_stash(c);
  EXPECT_DOUBLE_EQ(st.input, 2 * s * b * h);
  EXPECT_DOUBLE_EQ(st.total() - st.attention_core - st.norm_stats, 32 * s * b * h);
  EXPECT_DOUBLE_EQ(st.attention_core, 4 * a * s * b + kFlashRngStateBytes);
  EXPECT_EQ(st.dropout_masks, 0);
}

TEST(ModelActivation, SwiGluGqaTermByTerm) {
  const TransformerConfig c = llama70(4096, 1);
  const double s = 4096, b = 1, h = 8192, a = 64, kvd = 1024, f = 28672;
  const BlockStash st = block_stash(c);
  EXPECT_DOUBLE_EQ(st.qkv, 2 * s * b * (h + 2 * kvd));
  EXPECT_DOUBLE_EQ(st.ffn, 4 * 2 * s * b * f);     // gate, up, silu(gate), product
  EXPECT_DOUBLE_EQ(st.norm_stats, 2 * 4 * s * b);  // RMSNorm: rstd only
  EXPECT_DOUBLE_EQ(st.total(), /* input, norm input, 2 norm outputs, Q, attention output */ 2 * s * b * h * 6 +
                                   2 * s * b * 2 * kvd + 8 * s * b * f + 4 * a * s * b + kFlashRngStateBytes +
                                   8 * s * b);
}

TEST(ModelActivation, HeadKeepsLogitsAndFp32LogSoftmax) {
  const ModelChain chain = transformer_chain(gpt(2048, 16, 2048, 4));
  const ModelLayer& head = chain.layers.back();
  const double T = 8192, h = 2048, V = 51200;
  EXPECT_DOUBLE_EQ(head.stash_bytes, 2 * 2 * T * h + 8 * T + 6 * T * V + kLossScalarBytes);
  EXPECT_EQ(head.output_bytes, 0);
  EXPECT_DOUBLE_EQ(chain.layers.front().stash_bytes, 8 * T + 8 * 2048);  // token ids, position ids
}

// What a split backward keeps from its input gradient until its weight
// gradient: each weight GEMM's input and output gradient. Qi et al. 2024
// (zero bubble) count M_W = 32 s.b.h bytes for a GPT block
// (zerobubble/runtime.py, w_mem_approx = -32 * hidden_size per token).
TEST(ModelActivation, WeightGradientKeepsTheZeroBubblePapers32sbh) {
  TransformerConfig c = gpt(2304, 24, 1024, 6);
  c.flash_attention = false;
  c.dropout = true;
  const double s = 1024, b = 6, h = 2304, V = 51200, t = 4, e = 2;
  ModelChain chain = transformer_chain(c);
  EXPECT_DOUBLE_EQ(block_of(chain).weight_stash_bytes, 32 * s * b * h);
  EXPECT_LT(block_of(chain).weight_stash_bytes, block_of(chain).stash_bytes);
  // The head: the norm's output and the logits' gradient; the embedding: its ids.
  EXPECT_DOUBLE_EQ(chain.layers.back().weight_stash_bytes, e * s * b * (h + V));
  EXPECT_DOUBLE_EQ(chain.layers.front().weight_stash_bytes, chain.layers.front().stash_bytes);
  // Under TP the column-parallel GEMMs' inputs and the row-parallel ones'
  // output gradients stay whole: 4h, the rest (h + 3h + 4h + 4h) / t.
  c.tp = 4;
  chain = transformer_chain(c);
  EXPECT_DOUBLE_EQ(block_of(chain).weight_stash_bytes, e * s * b * (4 * h + 12 * h / t));
  // Full recompute keeps only the input: W cannot keep more than the stash.
  c.recompute = Recompute::Full;
  chain = transformer_chain(c);
  EXPECT_DOUBLE_EQ(block_of(chain).weight_stash_bytes, block_of(chain).stash_bytes);
}

TEST(ModelChecks, NameTheField) {
  const auto message = [](TransformerConfig c) {
    try {
      check_transformer(c, "w.yaml", "model");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  TransformerConfig c = gpt(4096, 32, 2048, 1);
  EXPECT_EQ(message(c), "no error");
  c.hidden = 4100;
  EXPECT_EQ(message(c), "w.yaml: model.heads: heads (32) must divide hidden (4100)");
  c = gpt(4096, 32, 2048, 1);
  c.kv_heads = 5;
  EXPECT_EQ(message(c), "w.yaml: model.kv_heads: kv_heads (5) must divide heads (32)");
  c.kv_heads = 8;
  c.tp = 16;
  EXPECT_EQ(message(c), "w.yaml: model.tp: tp (16) must divide kv_heads (8)");
  c.tp = 3;
  EXPECT_EQ(message(c), "w.yaml: model.tp: tp (3) must divide heads (32)");
  c = gpt(4096, 32, 2048, 1);
  c.ffn_hidden = 11000;
  c.tp = 16;
  EXPECT_EQ(message(c), "w.yaml: model.tp: tp (16) must divide ffn_hidden (11000)");
  c = gpt(4096, 32, 2048, 1);
  c.layers = 0;
  EXPECT_EQ(message(c), "w.yaml: model.layers: must be positive, got 0");
  c = gpt(4096, 32, 2048, 0);
  EXPECT_EQ(message(c), "w.yaml: model.microbatch_size: must be positive, got 0");
  c = gpt(4096, 32, 2048, 1);
  c.max_positions = 1024;
  EXPECT_EQ(message(c),
            "w.yaml: model.seq_length: seq_length (2048) exceeds max_positions (1024) of the learned position table");
  c = gpt(4096, 32, 2050, 1);
  c.tp = 4;
  c.sequence_parallel = true;
  EXPECT_EQ(message(c), "w.yaml: model.sequence_parallel: needs tp (4) to divide seq_length (2050)");
  c = gpt(4096, 32, 2048, 1);
  c.vocab = -3;
  EXPECT_EQ(message(c), "w.yaml: model.vocab: must be positive, got -3");
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

// The numbers of docs/model-to-workload.md's worked example.
TEST(ModelWorkedExample, Gpt3OnePointSevenB) {
  TransformerConfig c = gpt(2304, 24, 2048, 1);
  c.layers = 24;
  const ModelChain chain = transformer_chain(c);
  const ModelLayer& block = chain.layers.at(1);
  EXPECT_DOUBLE_EQ(block.parameters, 63730944.0);
  EXPECT_DOUBLE_EQ(block.forward.flops, 299573968896.0);
  EXPECT_DOUBLE_EQ(block.backward_input.flops, 338228674560.0);
  EXPECT_DOUBLE_EQ(block.backward_weight.flops, 260919263232.0);
  EXPECT_DOUBLE_EQ(block.model_flops, 898721906688.0);
  EXPECT_DOUBLE_EQ(block.stash_bytes, 151225344.0);
  EXPECT_DOUBLE_EQ(block.output_bytes, 9437184.0);
  EXPECT_DOUBLE_EQ(block.forward_workspace, 9437184.0);
  EXPECT_DOUBLE_EQ(block.backward_workspace, 165210624.0);
  const ModelLayer& head = chain.layers.back();
  EXPECT_DOUBLE_EQ(head.parameters, 117969408.0);
  EXPECT_DOUBLE_EQ(head.forward.flops, 483183820800.0);
  EXPECT_DOUBLE_EQ(head.stash_bytes, 648037376.0);
  EXPECT_DOUBLE_EQ(head.forward_workspace, 428867584.0);
  EXPECT_DOUBLE_EQ(head.backward_workspace, 1074790400.0);
  EXPECT_DOUBLE_EQ(chain.total_parameters, 1652230656.0);
  c.tp = 2;
  c.sequence_parallel = true;
  const ModelLayer half = transformer_chain(c).layers.at(1);
  EXPECT_DOUBLE_EQ(half.stash_bytes, 75613184.0);
  EXPECT_DOUBLE_EQ(half.forward.flops, 149786984448.0);
}

}  // namespace
}  // namespace pipesim

namespace pipesim {
namespace {

TEST(ModelChain, LayersKeysAndRecomputeMemory) {
  TransformerConfig c = gpt(2048, 16, 2048, 2);
  c.layers = 5;
  c.precision = Precision::FP16;
  const ModelChain none = transformer_chain(c);
  ASSERT_EQ(none.layers.size(), 7u);
  for (std::size_t i = 1; i + 1 < none.layers.size(); ++i) EXPECT_EQ(none.layers[i].name, "block");
  for (const ModelLayer& l : none.layers) {
    EXPECT_EQ(l.forward.precision, Precision::FP16);
    EXPECT_EQ(l.forward.key, l.name + ".forward");
    EXPECT_EQ(l.backward_input.key, l.name + ".backward_input");
    EXPECT_EQ(l.backward_weight.key, l.name + ".backward_weight");
  }
  const ModelLayer& b0 = none.layers[1];
  const double input = 2.0 * 2048 * 2 * 2048;
  c.recompute = Recompute::Full;
  const ModelLayer full = transformer_chain(c).layers[1];
  EXPECT_DOUBLE_EQ(full.stash_bytes, input);
  EXPECT_DOUBLE_EQ(full.backward_workspace, b0.backward_workspace + (b0.stash_bytes - input) + b0.forward_workspace);
  EXPECT_EQ(full.recompute.kernels, full.forward.kernels);
  c.recompute = Recompute::Selective;
  const ModelLayer selective = transformer_chain(c).layers[1];
  const double core = 4.0 * 16 * 4096 + kFlashRngStateBytes;
  EXPECT_DOUBLE_EQ(selective.stash_bytes, b0.stash_bytes - core);
  EXPECT_DOUBLE_EQ(selective.backward_workspace, b0.backward_workspace + core);
  EXPECT_EQ(selective.recompute.kernels, 1);
}

// Under TP a block's GEMMs shrink each on its own side (Megatron-LM,
// Shoeybi et al. 2019, §3): QKV and FFN up column-parallel, attention output
// and FFN down row-parallel; their shares of the matrix flops, GPT's
// 3h², h², 4h², 4h² of 12h².
TEST(ModelChain, TensorParallelBlocksListTheirGemmsAtTpOne) {
  TransformerConfig c = gpt(1024, 8, 2048, 1);
  c.tp = 4;
  const ModelLayer block = transformer_chain(c).layers[1];
  for (const OpWork* pass : {&block.forward, &block.backward_input, &block.backward_weight}) {
    EXPECT_EQ(pass->tp, 4);
    ASSERT_EQ(pass->parts.size(), 4u);
    const double shares[] = {3.0 / 12, 1.0 / 12, 4.0 / 12, 4.0 / 12};
    const double n[] = {3072, 1024, 4096, 1024}, k[] = {1024, 1024, 1024, 4096};
    const bool row[] = {false, true, false, true};
    for (int i = 0; i < 4; ++i) {
      EXPECT_DOUBLE_EQ(pass->parts[i].share, shares[i]);
      EXPECT_DOUBLE_EQ(pass->parts[i].n, n[i]);
      EXPECT_DOUBLE_EQ(pass->parts[i].k, k[i]);
      EXPECT_EQ(pass->parts[i].row_parallel, row[i]);
    }
  }
  EXPECT_DOUBLE_EQ(block.forward.gemm_n, 4096.0 / 4);  // the one shape: FFN per rank
}

TEST(ModelChain, UnfusedAttentionKeepsTheScores) {
  TransformerConfig c = gpt(1024, 8, 2048, 1);
  const ModelLayer flash = transformer_chain(c).layers[1];
  c.flash_attention = false;
  const ModelLayer unfused = transformer_chain(c).layers[1];
  const double scores = 8.0 * 2048 * 2048;  // a s^2 b
  EXPECT_DOUBLE_EQ(unfused.stash_bytes - flash.stash_bytes, 2 * scores - (4 * 8 * 2048 + kFlashRngStateBytes));
  EXPECT_DOUBLE_EQ(unfused.forward_workspace - flash.forward_workspace, 2 * scores);
  EXPECT_EQ(unfused.forward.kernels, flash.forward.kernels + 3);
  EXPECT_DOUBLE_EQ(unfused.forward.flops, flash.forward.flops);
  // The scores pass through scale-and-mask, softmax and dropout kernels of
  // their own: 4 bf16 passes forward, 8 in the input gradient, timed after
  // the GEMMs rather than under them (docs/devices.md "The model").
  EXPECT_DOUBLE_EQ(unfused.forward.bytes, flash.forward.bytes);
  EXPECT_DOUBLE_EQ(flash.forward.serial_bytes, 0);
  EXPECT_DOUBLE_EQ(unfused.forward.serial_bytes, 2 * 4 * scores);
  EXPECT_DOUBLE_EQ(unfused.backward_input.serial_bytes, 2 * 8 * scores);
  EXPECT_DOUBLE_EQ(unfused.backward_weight.serial_bytes, 0);
}

}  // namespace
}  // namespace pipesim
