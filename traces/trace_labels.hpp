// Which record_function labels name a model's parts, shared by the two
// traces a step is imported from (the Kineto trace's times, the execution
// trace's saved bytes). docs/import.md#profiler-traces.
#pragma once

#include <optional>
#include <regex>
#include <string>

namespace pipesim {

// Which record_function labels name the model's parts (ECMAScript regexes,
// matched whole).
struct TraceLabels {
  std::string embedding = "embedding|embed|embed_tokens|wte|tok_embeddings";
  std::string block = "(block|layer|layers|h)[._]?[0-9]+";
  std::string head = "lm_head|head|output|loss|norm|ln_f|final_norm";
};

enum class ModelPart { Embedding, Block, Head, Optimizer };

// The calibration key of a part: "embedding", "block", "head", "optimizer".
const char* part_key(ModelPart part);

// The labels compiled. Throws InputError(file, "labels", WHAT) when one is
// not a regex.
class LabelMatcher {
 public:
  LabelMatcher(const TraceLabels& labels, const std::string& file);
  // The part a label names, a block first; none for other labels (and for
  // names too long to be a label: std::regex recurses per character).
  std::optional<ModelPart> part(const std::string& label) const;

 private:
  std::regex embedding_, block_, head_;
};

}  // namespace pipesim
