#include "devices/op_work.hpp"

namespace pipesim {

const char* to_string(Precision precision) {
  switch (precision) {
    case Precision::FP32:
      return "fp32";
    case Precision::BF16:
      return "bf16";
    case Precision::FP16:
      return "fp16";
    case Precision::FP8:
      return "fp8";
  }
  return "?";
}

const char* to_string(Pass pass) {
  switch (pass) {
    case Pass::Gemm:
      return "gemm";
    case Pass::Forward:
      return "forward";
    case Pass::Backward:
      return "backward";
  }
  return "?";
}

bool parse_precision(const std::string& text, Precision& out) {
  for (Precision p : {Precision::FP32, Precision::BF16, Precision::FP16, Precision::FP8})
    if (text == to_string(p)) {
      out = p;
      return true;
    }
  return false;
}

}  // namespace pipesim
