// Writes a whole buffer to a file descriptor, retrying short writes and
// EINTR. Async-signal-safe (write and errno only), so signal handlers use it
// too.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>

namespace pipesim {

// 0, or the errno of the failed write (EIO if write wrote nothing).
inline int write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

inline int write_all(int fd, const std::string& text) { return write_all(fd, text.data(), text.size()); }

}  // namespace pipesim
