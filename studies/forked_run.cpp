#include "studies/forked_run.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "sim/write_all.hpp"
#include "studies/subprocess.hpp"

namespace pipesim {

std::string run_forked(const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // nothing buffered is inherited and printed twice
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]), ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string reply;
    try {
      reply = "0" + work();
    } catch (const std::exception& e) {
      reply = std::string("1") + e.what();
    } catch (...) {
      reply = "1unknown exception";
    }
    const bool sent = write_all(fds[1], reply) == 0;
    ::close(fds[1]);
    ::_exit(sent ? 0 : 1);  // no atexit handlers, no SimGrid teardown
  }
  ::close(fds[1]);
  std::string reply;
  char buf[65536];
  for (;;) {
    const ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    reply.append(buf, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  const int status = wait_child(pid).status;
  if (reply.empty()) throw std::runtime_error("child " + describe_exit(status));
  if (reply[0] != '0') throw std::runtime_error(reply.substr(1));
  return reply.substr(1);
}

}  // namespace pipesim
