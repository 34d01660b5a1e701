#include "sim/input_file.hpp"

#include <filesystem>
#include <fstream>

#include "sim/input_error.hpp"
#include "sim/units.hpp"

namespace pipesim {
namespace {

std::string type_name(std::filesystem::file_type type) {
  using std::filesystem::file_type;
  switch (type) {
    case file_type::directory:
      return "a directory";
    case file_type::character:
      return "a character device";
    case file_type::block:
      return "a block device";
    case file_type::fifo:
      return "a FIFO";
    case file_type::socket:
      return "a socket";
    default:
      return "a special file";
  }
}

}  // namespace

std::string read_input_file(const std::string& path, const std::string& kind, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);  // follows symbolic links
  if (status.type() == fs::file_type::not_found) throw InputError(path, "", "cannot open: no such file");
  if (ec) throw InputError(path, "", "cannot open: " + ec.message());
  if (status.type() != fs::file_type::regular)
    throw InputError(path, "", "expected " + kind + ", got " + type_name(status.type()));
  const std::string limit = format_bytes(static_cast<double>(max_bytes));
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes)
    throw InputError(path, "",
                     "expected " + kind + " of at most " + limit + ", got " + format_bytes(static_cast<double>(size)));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open for reading (permission denied?)");
  // Read in chunks and stop past the limit: the file may grow while it is read.
  std::string text;
  if (!ec) text.reserve(static_cast<std::size_t>(size));
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) throw InputError(path, "", "expected " + kind + " of at most " + limit + ", got more");
  }
  if (in.bad()) throw InputError(path, "", "read error");
  return text;
}

}  // namespace pipesim
