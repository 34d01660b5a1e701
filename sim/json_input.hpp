// JSON inputs (a Hugging Face config.json, a PyTorch profiler trace) parsed
// with nlohmann-json, a syntax error reported as the error contract's one
// line with the line it is on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipesim {

// TEXT parsed; throws InputError(path, "line N: JSON syntax error", WHAT).
nlohmann::json parse_json_input(const std::string& text, const std::string& path);

}  // namespace pipesim
