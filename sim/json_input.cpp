#include "sim/json_input.hpp"

#include <algorithm>

#include "sim/input_error.hpp"

namespace pipesim {
namespace {

using nlohmann::json;

// "syntax error while parsing object key - unexpected '}'; expected string literal"
// from nlohmann's "[json.exception.parse_error.101] parse error at line 3, column 1: ...".
std::string parse_message(const std::string& what) {
  std::string text = what;
  const std::size_t bracket = text.find("] ");
  if (bracket != std::string::npos) text = text.substr(bracket + 2);
  const std::string prefix = "parse error";
  if (text.compare(0, prefix.size(), prefix) == 0) {
    const std::size_t colon = text.find(": ");
    if (colon != std::string::npos) text = text.substr(colon + 2);
  }
  return text;
}

int line_of(const std::string& text, std::size_t byte) {
  // nlohmann's byte is the 1-based index of the last byte read.
  const std::size_t end = std::min(text.size(), byte > 0 ? byte - 1 : 0);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

}  // namespace

json parse_json_input(const std::string& text, const std::string& path, const json::parser_callback_t& callback) {
  try {
    return json::parse(text, callback);
  } catch (const json::parse_error& e) {
    throw InputError(path, "line " + std::to_string(line_of(text, e.byte)) + ": JSON syntax error",
                     single_line(parse_message(e.what())));
  } catch (const json::exception& e) {
    // A number too large for a double ("number overflow parsing '1e400'"): nlohmann gives no position,
    // so the line is that of the quoted token.
    const std::string message = parse_message(e.what());
    const std::size_t open = message.find('\''), close = message.rfind('\'');
    const std::size_t at = open < close ? text.find(message.substr(open + 1, close - open - 1)) : std::string::npos;
    throw InputError(
        path,
        (at == std::string::npos ? "" : "line " + std::to_string(line_of(text, at + 1)) + ": ") + "JSON syntax error",
        single_line(message));
  }
}

json stream_json_list(const std::string& text, const std::string& path, const std::string& key,
                      const JsonListNouns& nouns, const std::function<void(const json&, std::size_t)>& on_element,
                      bool* seen) {
  using Event = json::parse_event_t;
  std::string top_key;
  std::size_t index = 0;
  bool list_seen = false;
  const auto fail = [&](const std::string& field, const std::string& what) { throw InputError(path, field, what); };
  json root = parse_json_input(text, path, [&](int depth, Event event, json& parsed) {
    if (depth == 1 && event == Event::key) {
      top_key = parsed.get<std::string>();
      if (top_key == key && list_seen) fail(key, "given twice");
      return true;
    }
    if (top_key != key) return true;
    if (depth == 1) {  // the list itself
      if (event == Event::array_start) list_seen = true;
      if (event == Event::object_start) fail(key, "expected a list of " + nouns.plural + ", got object");
      if (event == Event::value)
        fail(key, "expected a list of " + nouns.plural + ", got " + std::string(parsed.type_name()));
      return true;
    }
    if (depth != 2) return true;
    const std::string where = key + "[" + std::to_string(index) + "]";
    if (event == Event::array_start) fail(where, "expected " + nouns.singular + " object, got array");
    if (event == Event::value)
      fail(where, "expected " + nouns.singular + " object, got " + std::string(parsed.type_name()));
    if (event != Event::object_end) return true;
    on_element(parsed, index++);
    return false;
  });
  if (seen) *seen = list_seen;
  return root;
}

}  // namespace pipesim
