// JSON inputs (a Hugging Face config.json, a PyTorch profiler trace) parsed
// with nlohmann-json, a syntax error reported as the error contract's one
// line with the line it is on.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace pipesim {

// TEXT parsed; throws InputError(path, "line N: JSON syntax error", WHAT).
// With a callback (nlohmann's parser_callback_t), values it returns false
// for are dropped as they are read: a large input streams through it.
nlohmann::json parse_json_input(const std::string& text, const std::string& path,
                                const nlohmann::json::parser_callback_t& callback = nullptr);

// A JSON document whose top-level list KEY may be large (a profiler
// trace's events, an execution trace's nodes): each element is handed to
// ON_ELEMENT(element, index) as it closes, then dropped, so the list never
// stands whole. NOUNS names its elements in errors ({"events", "an event"}):
// InputError(path, KEY, "given twice" or "expected a list of events, got
// object"), (path, KEY[N], "expected an event object, got array"). Returns
// the document without the list; *SEEN says whether the list was there.
struct JsonListNouns {
  std::string plural, singular;  // "events", "an event"
};
nlohmann::json stream_json_list(const std::string& text, const std::string& path, const std::string& key,
                                const JsonListNouns& nouns,
                                const std::function<void(const nlohmann::json&, std::size_t)>& on_element, bool* seen);

}  // namespace pipesim
