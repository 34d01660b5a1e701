// check_transformer and transformer_parameters (docs/model-to-workload.md,
// "Parameters" and "Checks").
#include <string>

#include "models/transformer.hpp"
#include "models/transformer_dims.hpp"
#include "sim/input_error.hpp"

namespace pipesim {
namespace {

struct Checker {
  const std::string& file;
  const std::string& path;
  std::string field(const std::string& name) const { return path.empty() ? name : path + "." + name; }
  void fail(const std::string& name, const std::string& what) const { throw InputError(file, field(name), what); }
  void positive(const std::string& name, int value) const {
    if (value <= 0) fail(name, "must be positive, got " + std::to_string(value));
  }
  void not_negative(const std::string& name, int value) const {
    if (value < 0) fail(name, "must not be negative, got " + std::to_string(value));
  }
  // "tp (3) must divide heads (32)", reported on the divisor's field.
  void divides(const std::string& divisor, int d, const std::string& dividend, int n) const {
    if (n % d != 0)
      fail(divisor, divisor + " (" + std::to_string(d) + ") must divide " + dividend + " (" + std::to_string(n) + ")");
  }
};

}  // namespace

void check_transformer(const TransformerConfig& c, const std::string& file, const std::string& path) {
  const Checker k{file, path};
  k.positive("layers", c.layers);
  k.positive("hidden", c.hidden);
  k.positive("heads", c.heads);
  k.not_negative("kv_heads", c.kv_heads);
  k.not_negative("ffn_hidden", c.ffn_hidden);
  k.positive("vocab", c.vocab);
  k.not_negative("max_positions", c.max_positions);
  k.positive("seq_length", c.seq_length);
  k.positive("microbatch_size", c.microbatch_size);
  k.positive("tp", c.tp);
  k.divides("heads", c.heads, "hidden", c.hidden);
  const int kv = c.kv_heads > 0 ? c.kv_heads : c.heads;
  if (c.kv_heads > 0) k.divides("kv_heads", c.kv_heads, "heads", c.heads);
  const int ffn = c.ffn_hidden > 0 ? c.ffn_hidden : default_ffn_hidden(c.hidden, c.activation);
  k.divides("tp", c.tp, "heads", c.heads);
  k.divides("tp", c.tp, "kv_heads", kv);
  k.divides("tp", c.tp, "ffn_hidden", ffn);
  if (c.sequence_parallel && c.seq_length % c.tp != 0)
    k.fail("sequence_parallel",
           "needs tp (" + std::to_string(c.tp) + ") to divide seq_length (" + std::to_string(c.seq_length) + ")");
  if (c.learned_positions && c.max_positions > 0 && c.seq_length > c.max_positions)
    k.fail("seq_length", "seq_length (" + std::to_string(c.seq_length) + ") exceeds max_positions (" +
                             std::to_string(c.max_positions) + ") of the learned position table");
}

double transformer_parameters(const TransformerConfig& c) {
  TransformerConfig whole = c;
  whole.tp = 1;
  whole.sequence_parallel = false;
  const TransformerDims d = transformer_dims(whole);
  const double embedding = d.vocab * d.h + d.max_positions * d.h;
  const double head = d.norm_params + (c.tied_embeddings ? 0 : d.vocab * d.h);
  return embedding + c.layers * block_rank_parameters(whole, d) + head;
}

}  // namespace pipesim
