#include "traces/trace_labels.hpp"

#include "sim/input_error.hpp"

namespace pipesim {
namespace {
constexpr std::size_t kMaxLabelLength = 256;
}

const char* part_key(ModelPart part) {
  switch (part) {
    case ModelPart::Embedding:
      return "embedding";
    case ModelPart::Head:
      return "head";
    case ModelPart::Optimizer:
      return "optimizer";
    default:
      return "block";
  }
}

LabelMatcher::LabelMatcher(const TraceLabels& labels, const std::string& file) {
  try {
    embedding_ = std::regex(labels.embedding);
    block_ = std::regex(labels.block);
    head_ = std::regex(labels.head);
  } catch (const std::regex_error& e) {
    throw InputError(file, "labels", single_line(std::string("a label pattern is not a regex: ") + e.what()));
  }
}

std::optional<ModelPart> LabelMatcher::part(const std::string& label) const {
  if (label.size() > kMaxLabelLength) return std::nullopt;
  if (std::regex_match(label, block_)) return ModelPart::Block;
  if (std::regex_match(label, embedding_)) return ModelPart::Embedding;
  if (std::regex_match(label, head_)) return ModelPart::Head;
  return std::nullopt;
}

}  // namespace pipesim
