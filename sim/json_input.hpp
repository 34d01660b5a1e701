// JSON inputs (a Hugging Face config.json, a PyTorch profiler trace) parsed
// with nlohmann-json, a syntax error reported as the error contract's one
// line with the line it is on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipesim {

// TEXT parsed; throws InputError(path, "line N: JSON syntax error", WHAT).
// With a callback (nlohmann's parser_callback_t), values it returns false
// for are dropped as they are read: a large input streams through it.
nlohmann::json parse_json_input(const std::string& text, const std::string& path,
                                const nlohmann::json::parser_callback_t& callback = nullptr);

}  // namespace pipesim
